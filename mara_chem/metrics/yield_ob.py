"""Yield and OB_N (docs/metrics.md, "Yield" and "OB_N"): how many good molecules, and how many oracle calls the N-th one cost."""

from __future__ import annotations

import math
from collections.abc import Sequence

from mara_chem.metrics.metric import Column, HitsAtThreshold, threshold_metrics
from mara_chem.run_folder.oracle_log import LoggedMolecule


def is_hit(score: float, threshold: float) -> bool:
    """score >= τ counts; a failed (NaN) score never does."""
    return not math.isnan(score) and score >= threshold


def hits(molecules: Sequence[LoggedMolecule], threshold: float, budget: int | None = None) -> list[LoggedMolecule]:
    """Unique molecules with score >= τ among calls <= budget, in call order."""
    return [m for m in molecules if (budget is None or m.call <= budget) and is_hit(m.score, threshold)]


def yield_count(molecules: Sequence[LoggedMolecule], threshold: float, budget: int | None = None) -> int:
    """Yield: number of unique molecules with score >= τ within the budget."""
    return len(hits(molecules, threshold, budget))


def oracle_burden(molecules: Sequence[LoggedMolecule], threshold: float, n: int = 100,
                  budget: int | None = None) -> int | None:
    """OB_N: 1-based oracle-call index of the N-th unique hit; None ("not reached") if fewer than N."""
    if n < 1:
        raise ValueError("OB_N needs N >= 1")
    found = hits(molecules, threshold, budget)
    return found[n - 1].call if len(found) >= n else None


@threshold_metrics(Column("yield", "Yield", "d", benchmark=True), column=10)
def _yield(h: HitsAtThreshold) -> dict[str, object]:
    return {"yield": len(h.found)}


@threshold_metrics(Column("ob_n", "OB{n}", "d", missing="not reached", benchmark=True), column=20,
                   conventions={"ob_n": "call index of the N-th unique hit; null = not reached within the budget"})
def _oracle_burden(h: HitsAtThreshold) -> dict[str, object]:
    return {"n": h.options.n, "ob_n": oracle_burden(h.molecules, h.threshold, h.options.n, h.budget)}
