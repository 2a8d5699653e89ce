"""Every plugin family of mara-chem, its entry-point group and its registry (README: "Extending mara-chem").

A third-party package adds an implementation by subclassing the family's base class and declaring an entry
point in the family's group, e.g. in its ``pyproject.toml``::

    [project.entry-points."mara_chem.components"]
    heavy_atoms = "my_package.components:HeavyAtoms"

Nothing here imports torch or RDKit: the families' base classes live next to their built-ins and register
into these tables when imported; each table imports its built-ins module on first use.
"""

from __future__ import annotations

import argparse
from typing import Any

from mara_chem.registry import Registry

COMPONENTS: Registry[Any] = Registry("scoring component", "mara_chem.components", "mara_chem.scoring.components")
TRANSFORMS: Registry[Any] = Registry("transform", "mara_chem.transforms", "mara_chem.scoring.transforms")
AGGREGATORS: Registry[Any] = Registry("scoring type", "mara_chem.aggregators", "mara_chem.scoring.aggregation")
FILTERS: Registry[Any] = Registry("diversity filter", "mara_chem.diversity_filters", "mara_chem.rl.diversity_filters",
                                  ignore_case=False)
STRATEGIES: Registry[Any] = Registry(
    "learning strategy", "mara_chem.strategies", "mara_chem.rl.strategies", ignore_case=False
)
NETWORKS: Registry[Any] = Registry("model_type", "mara_chem.networks", "mara_chem.models.networks", ignore_case=False)
EXECUTORS: Registry[Any] = Registry("executor", "mara_chem.executors", "mara_chem.scoring.workers.executors")

FAMILIES: dict[str, Registry[Any]] = {
    "components": COMPONENTS,
    "transforms": TRANSFORMS,
    "aggregators": AGGREGATORS,
    "diversity_filters": FILTERS,
    "strategies": STRATEGIES,
    "networks": NETWORKS,
    "executors": EXECUTORS,
}


def plugin_table(families: list[str] | None = None) -> list[tuple[str, str, str]]:
    """(family, name, origin) rows for every registered implementation; origin is "built-in" or a distribution."""
    rows = []
    for family in families or list(FAMILIES):
        registry = FAMILIES[family]
        rows.extend((family, name, registry.origin(name)) for name in registry.names())
    return rows


def cmd_plugins(args: argparse.Namespace) -> int:
    unknown = [f for f in args.family if f not in FAMILIES]
    if unknown:
        raise SystemExit(f"error: unknown plugin family {unknown[0]!r}; valid: {', '.join(FAMILIES)}")
    for family, name, origin in plugin_table(args.family or None):
        print(f"{family:<18} {name:<28} {origin}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """``mara-chem plugins [FAMILY ...]``: every registered implementation and where it comes from."""
    parser = sub.add_parser("plugins", help="list built-in and installed plugin implementations by family")
    parser.add_argument("family", nargs="*", help=f"restrict to these families ({', '.join(FAMILIES)})")
    parser.set_defaults(func=cmd_plugins)
