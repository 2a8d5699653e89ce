"""One run's metrics, recomputed from its oracle log (docs/metrics.md): both thresholds, hit regions, curves."""

from __future__ import annotations

import hashlib
import json
import math
import os
from functools import cache
from pathlib import Path
from typing import Any

from benchlab.jobs import DONE_NAME, Job, config_fingerprint
from benchlab.tasks import region_assigner

from mara_chem.metrics import metric

CACHE_NAME = "benchmark_metrics.json"
"""A finished run's metrics and diagnostics, kept in its folder so a summary of hundreds of runs does not read and
recompute every oracle log again (several seconds a run). Valid only for the same oracle log, run record, job
configuration, OB_N, circle order and metric code (``_metric_code_sha256``); anything else recomputes."""

AUC_K = 10  # the suite's AUC is PMO's top-10, recorded as auc_top10
#: the threshold metrics a run records per level (``key@strict``), and every column's label, from the metrics'
#: own declarations (mara_chem/metrics/metric.py); ``{n}`` stays for the suite's OB_N
METRICS = tuple(column.key for _, column in metric.columns("threshold") if column.benchmark)
METRIC_LABELS = {column.key: column.header(n="{n}") for _, column in metric.columns("threshold") if column.benchmark}
METRIC_LABELS["auc_top10"] = dict((c.key, c) for _, c in metric.columns("run"))["auc"].header(auc={"k": AUC_K})


def run_metrics(job: Job, ob_n: int, circle_seed: int | None = None) -> dict[str, Any]:
    """One run's metrics at both thresholds, its hit regions and its curves (hits and #Circles vs calls).

    ``circle_seed``: None visits hits in discovery order for #Circles (deterministic, monotone curve);
    an integer visits them in that seed's random order (the former convention)."""
    from mara_chem.metrics import MetricOptions, compute_metrics, read_oracle_log
    from mara_chem.report import circles_curve, hits_curve

    log = read_oracle_log(job.run_dir)
    opts = MetricOptions(n=ob_n, seed=circle_seed, auc_k=AUC_K)
    m = compute_metrics(job.run_dir, list(job.task.thresholds), job.budget, opts, log=log)
    done = json.loads((job.run_dir / DONE_NAME).read_text()) if (job.run_dir / DONE_NAME).exists() else {}
    row: dict[str, Any] = {"task": job.task.name, "strategy": job.strategy, "seed": job.seed,
                           "oracle_calls": m["log"]["n_calls"], "unique_molecules": m["unique_molecules"],
                           "auc_top10": m["auc"]["value"], "wall_s": done.get("wall_s"), "steps": done.get("steps"),
                           "stop_reason": done.get("stop_reason")}
    assign = region_assigner(job.task)
    molecules = log.molecules(job.budget)
    curves: dict[str, Any] = {}
    for level, t in zip(("lenient", "strict"), m["thresholds"]):
        for key in METRICS:
            row[f"{key}@{level}"] = t[key]
        hits = [mol.smiles for mol in molecules if math.isfinite(mol.score) and mol.score >= t["threshold"]]
        regions = assign(hits)
        row[f"regions@{level}"] = {name: regions.count(name) for name in dict.fromkeys(regions)}
        calls, counts = hits_curve(log, t["threshold"], job.budget, points=100)
        ccalls, circles = circles_curve(log, t["threshold"], job.budget, points=20, seed=circle_seed)
        curves[level] = {"calls": calls.tolist(), "hits": counts.tolist(),
                         "circle_calls": ccalls.tolist(), "circles": circles.tolist()}
    scores = [mol.score for mol in molecules if math.isfinite(mol.score)]
    return {"row": row, "curves": curves, "scores": scores}


@cache
def _metric_code_sha256() -> str:
    """Digest of the code the cached numbers come from: the package's metrics and curves, and this runner's."""
    import mara_chem.metrics
    import mara_chem.report.curves

    files = sorted(Path(mara_chem.metrics.__file__).parent.glob("*.py"))
    files += [Path(mara_chem.report.curves.__file__), Path(__file__), Path(__file__).with_name("diagnostics.py")]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _cache_key(job: Job, ob_n: int, circle_seed: int | None) -> str:
    from mara_chem.run_folder.oracle_log import LOG_NAME

    parts = [hashlib.sha256((job.run_dir / LOG_NAME).read_bytes()).hexdigest(),
             hashlib.sha256((job.run_dir / DONE_NAME).read_bytes()).hexdigest(),
             config_fingerprint(job)["sha256"], job.budget, ob_n, circle_seed, _metric_code_sha256()]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def measured_run(job: Job, ob_n: int, circle_seed: int | None = None) -> dict[str, Any]:
    """``run_metrics`` plus the run's diagnostics, from the run folder's cache when it is still valid."""
    from benchlab.diagnostics import run_diagnostics

    key = _cache_key(job, ob_n, circle_seed)
    path = job.run_dir / CACHE_NAME
    try:
        cached = json.loads(path.read_text())
        if cached.get("key") == key:
            return cached["metrics"]
    except (OSError, ValueError):
        pass
    m = run_metrics(job, ob_n, circle_seed)
    m["row"].update(run_diagnostics(job))
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"key": key, "metrics": m}))
    os.replace(tmp, path)
    return m
