"""``compute_metrics``: every number of docs/metrics.md for one run folder, as a JSON-ready dict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rdkit.DataStructs import ExplicitBitVect

from mara_chem.metrics.auc import top_k_auc
from mara_chem.metrics.collapse import batch_duplicates, scaffold_stats
from mara_chem.metrics.diversity import CIRCLE_DISTANCE, FingerprintSpec, fingerprints, int_div1_fps, n_circles_fps
from mara_chem.run_folder.oracle_log import LogTable, Molecule, read_oracle_log
from mara_chem.metrics.yield_ob import hits, oracle_burden
from mara_chem.run_folder.run_record import read_run_record

CONVENTIONS = {
    "oracle_call": "1-based index of the log row; invalid SMILES, repeats and failed scores still occupy calls",
    "molecule": "unique canonical SMILES, counted once at its first call within the budget, with that call's score",
    "hit": "score >= threshold; a failed (NaN) score is never a hit",
    "ob_n": "call index of the N-th unique hit; null = not reached within the budget",
    "intdiv1": "MOSES 1 - (1/n^2) sum_ij T_ij, diagonal included; null for 0 hits, 0.0 for 1 hit",
    "n_circles": "greedy packing, join if 1 - Tanimoto > t to every chosen hit; hits visited in discovery (call) "
                 "order, or in numpy.random.default_rng(seed).permutation order when a seed is given",
    "auc_top10": "PMO top_auc: mean top-10 every 100 calls from 0 at call 0, trapezoids, last partial interval, "
                 "held flat to the budget if stopped early, divided by the budget; NaN scores left out",
    "scaffolds": "Bemis-Murcko (RDKit); acyclic hits share the empty scaffold",
    "duplicate_fraction": "per step, SMILES_state == 2 over all sampled SMILES in the batch (summary CSVs)",
}


@dataclass(frozen=True)
class MetricOptions:
    """Knobs with the defaults of docs/metrics.md."""

    n: int = 100
    fingerprint: FingerprintSpec = FingerprintSpec()
    circle_distance: float = CIRCLE_DISTANCE
    seed: int | None = None  # #Circles visiting order: None = discovery order, else a random order
    auc_k: int = 10
    auc_freq: int = 100


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
        return int(sum(int(s["max_oracle_calls"]) for s in stages)), "run.json"
    return max(1, int(log.df["call"].max()) if log.n_rows else 1), "calls in log"


def threshold_metrics(molecules: Sequence[Molecule], threshold: float, budget: int,
                      opts: MetricOptions = MetricOptions(),
                      fp_cache: dict[str, ExplicitBitVect] | None = None) -> dict[str, object]:
    """Yield, OB_N, IntDiv1, #Circles and scaffold concentration at one threshold τ.

    ``fp_cache`` (SMILES -> fingerprint for ``opts.fingerprint``) lets several thresholds share the parsing.
    """
    found = hits(molecules, threshold, budget)
    smiles = [m.smiles for m in found]
    cache = fp_cache if fp_cache is not None else {}
    missing = [s for s in smiles if s not in cache]
    cache.update(zip(missing, fingerprints(missing, opts.fingerprint)))
    fps = [cache[s] for s in smiles]
    return {
        "threshold": threshold,
        "yield": len(found),
        "n": opts.n,
        "ob_n": oracle_burden(molecules, threshold, opts.n, budget),
        "intdiv1": int_div1_fps(fps),
        "n_circles": n_circles_fps(fps, opts.circle_distance, opts.seed),
        **scaffold_stats(smiles),
    }


def compute_metrics(run_dir: str | Path, thresholds: Sequence[float], budget: int | None = None,
                    opts: MetricOptions = MetricOptions(), log: LogTable | None = None) -> dict[str, object]:
    """Read ``RUN_DIR/oracle_log.csv`` (unless ``log`` is given) and summary CSVs; all metrics within the budget."""
    log = log if log is not None else read_oracle_log(run_dir)
    fp_cache: dict[str, ExplicitBitVect] = {}
    budget, source = resolve_budget(run_dir, budget, log)
    molecules = log.molecules(budget)
    counts = log.counts(budget)
    return {
        "run_dir": str(run_dir),
        "budget": budget,
        "budget_source": source,
        "log": counts,
        "unique_molecules": len(molecules),
        "fingerprint": opts.fingerprint.as_dict(),
        "circles": {"distance": opts.circle_distance, "seed": opts.seed},
        "auc": {"k": opts.auc_k, "freq": opts.auc_freq,
                "value": top_k_auc(molecules, budget, counts["n_calls"], opts.auc_k, opts.auc_freq)},
        "thresholds": [threshold_metrics(molecules, t, budget, opts, fp_cache) for t in thresholds],
        "batch_duplicates": batch_duplicates(run_dir),
        "conventions": CONVENTIONS,
    }
