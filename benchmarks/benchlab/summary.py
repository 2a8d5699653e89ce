"""Writing the outputs: metrics of every finished run that matches the grid, then CSV, JSON, Markdown, PNGs."""

from __future__ import annotations

import csv
import json
import math
import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchlab.jobs import Job, filter_config, finished_record, stale_reason
from benchlab.plots import plot_curves, plot_scores
from benchlab.run_metrics import measured_run
from benchlab.stats import aggregate
from benchlab.tables import results_markdown
from benchlab.tasks import Task
from benchlab.variants import Variant

from mara_chem.data.moses import sha256_of


def prior_info(prior: str) -> dict[str, Any]:
    """Path, sha256 and training metadata (epochs, validation NLL) of the prior file."""
    from mara_chem.models.prior_file import read_metadata

    meta = read_metadata(prior)
    keep = {k: meta.get(k) for k in ("model_type", "hyperparameters", "epochs", "validation_nll", "save_validity",
                                     "saved_at", "training_data_sha256")
            if k in meta}
    return {"path": str(prior), "sha256": sha256_of(prior), **keep}


def _priors_used(records: Sequence[dict[str, Any]], out: Path) -> list[dict[str, Any]]:
    """Path, sha256 and metadata of every prior the reported runs used (the metadata from the prior file while
    it is there, else from a previous results.json of ``out``)."""
    used = {(r["prior"], r["prior_sha256"]) for r in records}
    previous = {}
    if (out / "results.json").exists():
        previous = {p["sha256"]: p for p in json.loads((out / "results.json").read_text()).get("priors", [])}
    infos = []
    for path, sha in sorted(used):
        if Path(path).exists() and sha256_of(path) == sha:
            infos.append(prior_info(path))
        else:
            infos.append(previous.get(sha, {"path": path, "sha256": sha}))
    return infos


def _measure(jobs: Sequence[Job], ob_n: int, circle_seed: int | None, workers: int) -> list[dict[str, Any]]:
    """Each finished run's metrics (``measured_run``), in ``workers`` processes when several runs are not cached."""
    if workers <= 1 or len(jobs) < 2:
        return [measured_run(job, ob_n, circle_seed) for job in jobs]
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(partial(measured_run, ob_n=ob_n, circle_seed=circle_seed), jobs))


def summarize(jobs: Sequence[Job], tasks: Sequence[Task], variants: Sequence[Variant], out: Path, ob_n: int,
              command: str, circle_seed: int | None = None, workers: int = 1) -> dict[str, Any] | None:
    """Metrics of every finished run whose configuration matches its job, then results.md/.csv/.json, runs.csv
    and the PNGs under ``out``. Runs made with another configuration are named and left out. None (and nothing
    written) when no run matches."""
    rows, curves, scores, records = [], {}, {}, []
    finished = []
    for job in jobs:
        if (reason := stale_reason(job)) is not None:
            print(reason.replace("it is run again", "left out of the tables"), flush=True)
        record = finished_record(job)
        if record is not None:
            records.append(record)
            finished.append(job)
    for job, m in zip(finished, _measure(finished, ob_n, circle_seed, workers)):
        rows.append(m["row"])
        curves.setdefault(job.task.name, {}).setdefault(job.strategy, []).append(m["curves"])
        scores.setdefault(job.task.name, {}).setdefault(job.strategy, []).extend(m["scores"])
    if not rows:
        return None
    out.mkdir(parents=True, exist_ok=True)
    names = [v.name for v in variants]
    by_name = {v.name: v for v in variants}
    summary = aggregate(rows, names)
    write_csv(out / "runs.csv", rows)
    write_csv(out / "results.csv", summary)
    order = "discovery" if circle_seed is None else f"random (seed {circle_seed})"
    for task in tasks:
        for stale in out.glob(f"{task.name}_*.png"):
            stale.unlink()
        if task.name not in curves:
            continue
        plot_curves(out / f"{task.name}_hits.png", task, curves[task.name], "hits", by_name, order)
        plot_curves(out / f"{task.name}_circles.png", task, curves[task.name], "circles", by_name, order)
        plot_scores(out / f"{task.name}_scores.png", task, scores[task.name], by_name)
    info = {"command": command, "created": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "ob_n": ob_n,
            "budget": max((job.budget for job in jobs), default=0),
            "batch_size": max((job.batch_size for job in jobs), default=0),
            "circle_order": order,
            "filters": {t.name: filter_config(t) for t in tasks},
            "variants": {v.name: {"label": v.label, "harness": v.harness.model_dump(),
                                   **{t.name: v.options(t) for t in tasks}} for v in variants},
            "priors": _priors_used(records, out),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, torch threads per worker 1",
            "planned": [j.key for j in jobs], "summary": summary, "runs": rows}
    (out / "results.json").write_text(json.dumps(info, indent=2, default=_json_default))
    (out / "results.md").write_text(results_markdown(info, tasks, variants, rows, summary, ob_n, out))
    return info


def _json_default(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(type(value))


def write_csv(path: Path, records: list[dict[str, Any]]) -> None:
    """Records as CSV (dict values as JSON)."""
    columns = list(dict.fromkeys(k for r in records for k in r))
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        for r in records:
            writer.writerow({k: json.dumps(v) if isinstance(v, dict) else _fmt_csv(v) for k, v in r.items()})


def _fmt_csv(value: Any) -> Any:
    if isinstance(value, float):
        return "" if not math.isfinite(value) else f"{value:.6g}"
    return value
