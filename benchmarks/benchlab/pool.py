"""Running the jobs: each in-progress run resumes from its checkpoint, each worker process has one torch thread."""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Sequence
from typing import Any

from benchlab.jobs import CONFIG_NAME, DONE_NAME, Job, config_fingerprint, is_finished, run_config, stale_reason


def _init_worker() -> None:
    import torch

    torch.set_num_threads(1)


def _started_with_same_config(job: Job, fingerprint: dict[str, Any]) -> bool:
    path = job.run_dir / CONFIG_NAME
    try:
        return json.loads(path.read_text()).get("sha256") == fingerprint["sha256"]
    except (OSError, ValueError):
        return False


def run_job(job: Job) -> dict[str, Any]:
    """Run (or resume) one job in this process and write ``benchmark_run.json``; returns its record.

    An interrupted run resumes only when it was started with the same configuration; otherwise (or when its
    folder cannot be resumed) it starts again from scratch."""
    from mara_chem.rl.config import load_run_config
    from mara_chem.rl.loop import RunDirError, StagedLearning

    if is_finished(job):
        return {"key": job.key, "status": "skipped"}
    start = time.perf_counter()
    fingerprint = config_fingerprint(job)
    try:
        cfg = load_run_config(run_config(job))
        fresh = not _started_with_same_config(job, fingerprint)
        (job.run_dir / DONE_NAME).unlink(missing_ok=True)
        try:
            learner = StagedLearning(cfg, overwrite=fresh, quiet=True)
        except RunDirError:  # a log without checkpoint, or a checkpoint of another prior: start the run again
            learner = StagedLearning(cfg, overwrite=True, quiet=True)
        (job.run_dir / CONFIG_NAME).write_text(json.dumps(fingerprint, indent=2))
        result = learner.run()
    except Exception as exc:  # one broken run must not take the grid down; it is reported, the runner exits 1
        return {"key": job.key, "status": "failed", "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()}
    record = {
        "key": job.key, "task": job.task.name, "strategy": job.strategy, "seed": job.seed, "budget": job.budget,
        "prior": job.prior, "prior_sha256": fingerprint["prior_sha256"], "config_sha256": fingerprint["sha256"],
        "steps": result.steps, "oracle_calls": result.oracle_calls, "stop_reason": result.stop_reason,
        "wall_s": round(time.perf_counter() - start, 1), "status": "done",
    }
    (job.run_dir / DONE_NAME).write_text(json.dumps(record, indent=2))
    return record


def run_grid(jobs: Sequence[Job], workers: int) -> list[dict[str, Any]]:
    """Run the unfinished jobs on ``workers`` processes (one thread each); prints one line per finished run."""
    for job in jobs:
        if (reason := stale_reason(job)) is not None:
            print(reason, flush=True)
    todo = [j for j in jobs if not is_finished(j)]
    print(f"{len(jobs)} runs, {len(jobs) - len(todo)} already finished, {len(todo)} to run on {workers} worker(s)",
          flush=True)
    if not todo:
        return []
    records = []
    if workers <= 1:
        _init_worker()
        for job in todo:
            records.append(_report(run_job(job)))
        return records
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(workers, initializer=_init_worker) as pool:
        for record in pool.imap_unordered(run_job, todo):
            records.append(_report(record))
    return records


def _report(record: dict[str, Any]) -> dict[str, Any]:
    if record["status"] == "failed":
        print(f"{time.strftime('%H:%M:%S')} {record['key']}: FAILED {record['error']}\n{record['traceback']}", flush=True)
    if record["status"] == "done":
        print(f"{time.strftime('%H:%M:%S')} {record['key']}: {record['oracle_calls']} calls, {record['steps']} steps, "
              f"{record['stop_reason']}, {record['wall_s']} s", flush=True)
    return record
