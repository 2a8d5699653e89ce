"""Scoring: components (raw values), transforms ([0, 1] scores), aggregators and the scoring function.

Importing this package registers every built-in component, transform and aggregator, so
``build_component("Qed")`` works in a fresh interpreter; installed plugins are found through entry points.
"""

from mara_chem.scoring import aggregation, components, transforms  # noqa: F401  (registers the built-ins)
from mara_chem.scoring.aggregation import Aggregator, get_aggregator, list_aggregators
from mara_chem.scoring.component import (
    ComponentParams,
    ComponentResult,
    Failure,
    ScoringComponent,
    build_component,
    list_components,
)
from mara_chem.scoring.transforms import Transform, build_transform, list_transforms

__all__ = [
    "Aggregator", "ComponentParams", "ComponentResult", "Failure", "ScoringComponent", "Transform",
    "build_component", "build_transform", "get_aggregator", "list_aggregators", "list_components",
    "list_transforms",
]
