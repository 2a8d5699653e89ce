"""PMO AUC top-k (Gao et al., NeurIPS 2022), as ``top_auc`` in wenhao-gao/mol_opt ``main/optimizer.py``.

The mean top-k score of the molecules found so far is recorded every ``freq`` oracle calls, starting
from 0 at call 0; the area is summed by trapezoids, the last (partial) interval runs from the last
checkpoint to the calls actually spent, and when the run stopped early (``finish``) the final value is
held flat up to the budget. The area is divided by the budget, so the AUC lies in [0, 1].
Here the x axis is the log's oracle-call index (the same one Yield and OB_N use); a failed (NaN) score
is left out of the top-k, and the mean of fewer than k molecules is over those present (0 if none).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

from mara_chem.metrics.metric import Column, LoggedRun, run_metrics
from mara_chem.run_folder.oracle_log import LoggedMolecule


def top_k_mean(scores: Sequence[float], k: int = 10) -> float:
    """Mean of the k best finite scores (of all of them if fewer; 0.0 if none)."""
    best = heapq.nlargest(k, (s for s in scores if not math.isnan(s)))
    return float(sum(best) / len(best)) if best else 0.0


def _top_k_at(molecules: Sequence[LoggedMolecule], checkpoints: Sequence[int], k: int) -> list[float]:
    """Mean top-k of the molecules with call <= each (increasing) checkpoint, in one pass."""
    heap: list[float] = []
    out: list[float] = []
    i = 0
    for checkpoint in checkpoints:
        while i < len(molecules) and molecules[i].call <= checkpoint:
            score = molecules[i].score
            if math.isnan(score):
                pass
            elif len(heap) < k:
                heapq.heappush(heap, score)
            else:
                heapq.heappushpop(heap, score)
            i += 1
        out.append(sum(heap) / len(heap) if heap else 0.0)
    return out


def top_k_auc(molecules: Sequence[LoggedMolecule], budget: int, n_calls: int | None = None, k: int = 10,
              freq: int = 100, finish: bool = True) -> float:
    """PMO AUC top-k over unique molecules (first calls), ``n_calls`` spent (default: last molecule's call)."""
    mols = sorted((m for m in molecules if m.call <= budget), key=lambda m: m.call)
    spent = min(budget, n_calls if n_calls is not None else (mols[-1].call if mols else 0))
    checkpoints = list(range(freq, spent, freq)) + [spent]
    total, prev, called = 0.0, 0.0, 0
    for checkpoint, now in zip(checkpoints, _top_k_at(mols, checkpoints, k)):
        total += (checkpoint - called) * (now + prev) / 2
        prev, called = now, checkpoint
    if finish and spent < budget:
        total += (budget - spent) * now
    return total / budget


@run_metrics(Column("auc", "AUC top-{auc[k]}", ".3f", value=lambda entry: entry["value"]), column=50, conventions={
    "auc_top10": "PMO top_auc: mean top-10 every 100 calls from 0 at call 0, trapezoids, last partial interval, "
                 "held flat to the budget if stopped early, divided by the budget; NaN scores left out"})
def _auc(run: LoggedRun) -> dict[str, object]:
    o = run.options
    return {"auc": {"k": o.auc_k, "freq": o.auc_freq,
                    "value": top_k_auc(run.molecules, run.budget, run.n_calls, o.auc_k, o.auc_freq)}}
