"""The running hit count of a run (unique molecules at or above the hit threshold, their scaffolds, the best
score), for the progress line and the run's result; saved whole in the checkpoint."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

@dataclass
class HitTracker:
    """Running hits (unique molecules with score >= threshold) and their scaffolds, for the progress line."""

    threshold: float
    hits: set[str] = field(default_factory=set)
    scaffolds: set[str] = field(default_factory=set)
    best: float = 0.0

    def update(self, smiles: str, score: float, scaffold: str | None) -> None:
        if math.isfinite(score):
            self.best = max(self.best, score)
            if score >= self.threshold and smiles not in self.hits:
                self.hits.add(smiles)
                self.scaffolds.add(scaffold or "")

    def state_dict(self) -> dict[str, Any]:
        """Plain data for the checkpoint."""
        return {"threshold": self.threshold, "hits": sorted(self.hits), "scaffolds": sorted(self.scaffolds),
                "best": self.best}

    @classmethod
    def from_state_dict(cls, state: dict[str, Any]) -> HitTracker:
        return cls(state["threshold"], set(state["hits"]), set(state["scaffolds"]), state["best"])
