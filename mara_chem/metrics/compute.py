"""``compute_metrics``: every number of docs/metrics.md for one run folder, as a JSON-ready dict."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rdkit.DataStructs import ExplicitBitVect

from mara_chem.metrics import metric
from mara_chem.metrics.diversity import fingerprints
from mara_chem.metrics.options import MetricOptions
from mara_chem.metrics.yield_ob import hits
from mara_chem.run_folder.oracle_log import LogTable, LoggedMolecule, read_oracle_log
from mara_chem.run_folder.run_record import read_run_record

#: what every metric counts in (each metric's own convention is declared with it, ``metric.py``)
BASE_CONVENTIONS = {
    "oracle_call": "1-based index of the log row; invalid SMILES, repeats and failed scores still occupy calls",
    "molecule": "unique canonical SMILES, counted once at its first call within the budget, with that call's score",
    "hit": "score >= threshold; a failed (NaN) score is never a hit",
}


def conventions() -> dict[str, str]:
    """Every convention metrics.json states: the base ones, then each declared metric's."""
    return {**BASE_CONVENTIONS, **metric.conventions()}


def resolve_budget(run_dir: str | Path, budget: int | None, log: LogTable) -> tuple[int, str]:
    """Explicit budget; else the sum of the stages' ``max_oracle_calls`` in run.json; else the calls spent."""
    if budget is not None:
        if budget < 1:
            raise ValueError(f"the budget must be at least one oracle call, got {budget}")
        return int(budget), "argument"
    stages = (read_run_record(run_dir) or {}).get("stage")
    if isinstance(stages, list) and stages and all(isinstance(s, dict) and s.get("max_oracle_calls") is not None
                                                   for s in stages):
        for i, s in enumerate(stages):
            if not isinstance(s["max_oracle_calls"], int) or s["max_oracle_calls"] < 1:
                raise ValueError(f"{Path(run_dir) / 'run.json'}: stage {i} max_oracle_calls must be a positive "
                                 f"integer, got {s['max_oracle_calls']!r}")
        total = int(sum(int(s["max_oracle_calls"]) for s in stages))
        spent = int(log.df["call"].max()) if log.n_rows else 0
        if spent > total:  # calls are numbered 1..N in file order, so call ``total + 1`` is on line total + 2
            raise ValueError(f"{Path(run_dir) / 'oracle_log.csv'} line {total + 2}: call number {total + 1} is "
                             f"beyond the run's budget of {total} calls (the stages' max_oracle_calls in run.json)")
        return total, "run.json"
    return max(1, int(log.df["call"].max()) if log.n_rows else 1), "calls in log"


def threshold_metrics(molecules: Sequence[LoggedMolecule], threshold: float, budget: int,
                      opts: MetricOptions = MetricOptions(),
                      fp_cache: dict[str, ExplicitBitVect] | None = None) -> dict[str, object]:
    """Every declared threshold metric (Yield, OB_N, IntDiv1, #Circles, scaffold concentration) at one τ.

    ``fp_cache`` (SMILES -> fingerprint for ``opts.fingerprint``) lets several thresholds share the parsing.
    """
    found = hits(molecules, threshold, budget)
    smiles = [m.smiles for m in found]
    cache = fp_cache if fp_cache is not None else {}
    missing = [s for s in smiles if s not in cache]
    cache.update(zip(missing, fingerprints(missing, opts.fingerprint)))
    inputs = metric.HitsAtThreshold(molecules, threshold, budget, opts, found, [cache[s] for s in smiles])
    row: dict[str, object] = {"threshold": threshold}
    for producer in metric.producers("threshold"):
        row.update(producer.compute(inputs))
    return row


def compute_metrics(run_dir: str | Path, thresholds: Sequence[float], budget: int | None = None,
                    opts: MetricOptions = MetricOptions(), log: LogTable | None = None) -> dict[str, object]:
    """Read ``RUN_DIR/oracle_log.csv`` (unless ``log`` is given) and summary CSVs; all metrics within the budget."""
    log = log if log is not None else read_oracle_log(run_dir)
    fp_cache: dict[str, ExplicitBitVect] = {}
    budget, source = resolve_budget(run_dir, budget, log)
    molecules = log.molecules(budget)
    counts = log.counts(budget)
    out: dict[str, object] = {
        "run_dir": str(run_dir),
        "budget": budget,
        "budget_source": source,
        "log": counts,
        "calls_by_source": log.calls_by_source(budget),
        "unique_molecules": len(molecules),
        "fingerprint": opts.fingerprint.as_dict(),
        "circles": {"distance": opts.circle_distance, "seed": opts.seed},
    }
    run = metric.LoggedRun(Path(run_dir), molecules, budget, counts["n_calls"], opts)
    for producer in metric.producers("run"):
        out.update(producer.compute(run))
    out["thresholds"] = [threshold_metrics(molecules, t, budget, opts, fp_cache) for t in thresholds]
    out["conventions"] = conventions()
    return out
