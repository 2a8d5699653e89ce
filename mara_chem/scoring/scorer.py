"""Builds endpoints from a validated ScoringSpec and scores batches of canonical SMILES."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import mara_chem.scoring.components  # noqa: F401  (registers the built-in components)
from mara_chem.chem.smiles import to_mol
from mara_chem.scoring.aggregation import get_aggregator
from mara_chem.scoring.component import ScoringComponent
from mara_chem.scoring.spec import ScoringSpec, component_class
from mara_chem.scoring.transforms import Transform, build_transform


@dataclass
class Endpoint:
    name: str
    component: ScoringComponent
    weight: float
    transform: Transform | None
    required: bool = False

    def score(self, smiles: Sequence[str], mols: Sequence[Any] | None = None) -> tuple[np.ndarray, np.ndarray, list[str | None]]:
        result = self.component(smiles, mols)
        scored = self.transform(result.values) if self.transform else np.clip(result.values, 0.0, 1.0)
        return scored, result.values, result.reasons


@dataclass
class ScoreResult:
    total: np.ndarray  # [N], NaN where nothing could be scored
    scores: dict[str, np.ndarray]  # endpoint -> transformed score
    raw: dict[str, np.ndarray]  # endpoint -> raw value
    reasons: list[str | None]


class Scorer:
    def __init__(self, spec: ScoringSpec):
        self.aggregate = get_aggregator(spec.type)
        self.endpoints: list[Endpoint] = []
        for entry in spec.component:
            (cname, cspec), = entry.items()
            for ep in cspec.endpoint:
                component = component_class(cname)(ep.params)
                required = component.required_by_default if ep.required is None else ep.required
                self.endpoints.append(
                    Endpoint(ep.name, component, ep.weight, build_transform(ep.transform), required)
                )

    @property
    def endpoint_names(self) -> list[str]:
        return [e.name for e in self.endpoints]

    @property
    def parses(self) -> bool:
        """Whether a component scores parsed molecules (then the scorer parses each SMILES once for all)."""
        return any(e.component.scores_parsed for e in self.endpoints)

    def __call__(self, smiles: Sequence[str], mols: Sequence[Any] | None = None) -> ScoreResult:
        """Scores of a batch of SMILES; ``mols``: the same SMILES already parsed (``to_mol``), else the scorer
        parses them here, once for every component that scores molecules one by one."""
        n = len(smiles)
        if mols is None and n and self.parses:
            mols = [to_mol(s) for s in smiles]
        scores, raw = {}, {}
        reasons: list[list[str]] = [[] for _ in range(n)]
        for ep in self.endpoints:
            s, r, why = ep.score(smiles, mols) if n else (np.zeros(0), np.zeros(0), [])
            scores[ep.name], raw[ep.name] = s, r
            for i, reason in enumerate(why):
                if reason:
                    reasons[i].append(reason)
        total = self._combine(scores, n)
        return ScoreResult(total, scores, raw, ["; ".join(r) if r else None for r in reasons])

    def _combine(self, scores: dict[str, np.ndarray], n: int) -> np.ndarray:
        main = [e for e in self.endpoints if e.component.role == "score"]
        penalties = [e for e in self.endpoints if e.component.role == "penalty"]
        if main:
            values = np.column_stack([scores[e.name] for e in main])
            total = self.aggregate(values, np.array([e.weight for e in main], dtype=float))
        else:
            total = np.ones(n)
        for e in penalties:
            total = total * np.where(np.isfinite(scores[e.name]), scores[e.name], 1.0)
        for e in self.endpoints:
            if e.required:
                total = np.where(np.isfinite(scores[e.name]), total, np.nan)
        return total

    def name_molecules(self, ids: dict[str, str]) -> None:
        """Hand the input's compound ids to every component (see ``ScoringComponent.name_molecules``)."""
        for ep in self.endpoints:
            ep.component.name_molecules(ids)

    def close(self) -> None:
        for ep in self.endpoints:
            ep.component.close()
