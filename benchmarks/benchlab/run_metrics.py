"""One run's metrics, recomputed from its oracle log (docs/metrics.md): both thresholds, hit regions, curves."""

from __future__ import annotations

import json
import math
from typing import Any

from benchlab.jobs import DONE_NAME, Job
from benchlab.tasks import region_assigner

METRICS = ("yield", "ob_n", "intdiv1", "n_circles", "n_scaffolds")
METRIC_LABELS = {"yield": "Yield", "ob_n": "OB{n}", "intdiv1": "IntDiv1", "n_circles": "#Circles",
                 "n_scaffolds": "hit scaffolds", "auc_top10": "AUC top-10"}


def run_metrics(job: Job, ob_n: int, circle_seed: int | None = None) -> dict[str, Any]:
    """One run's metrics at both thresholds, its hit regions and its curves (hits and #Circles vs calls).

    ``circle_seed``: None visits hits in discovery order for #Circles (deterministic, monotone curve);
    an integer visits them in that seed's random order (the former convention)."""
    from mara_chem.metrics import MetricOptions, compute_metrics, read_oracle_log
    from mara_chem.report import circles_curve, hits_curve

    log = read_oracle_log(job.run_dir)
    opts = MetricOptions(n=ob_n, seed=circle_seed)
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
