"""What every peer shares: its task (a benchmark task file), its oracle (mara-chem's call accounting and oracle
log), its record (``peer_run.json``) and its metrics (``mara-chem metrics``), so that a peer's numbers come
from the same code as mara-chem's own runs.

One oracle call is the first scoring of a new valid canonical SMILES (:class:`mara_chem.rl.oracle.Oracle`);
an invalid SMILES or a repeat costs nothing, as in PMO, and the budget is never exceeded.
"""

from __future__ import annotations

import argparse
import json
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchlab.tasks import Task, resolve_tasks

from mara_chem.run_folder.run_lock import RunFolderBusy, RunLock

RECORD_NAME = "peer_run.json"


class PeerError(ValueError):
    """A peer run that cannot start as asked (bad task, used folder, bad option); nothing was written."""


def add_common_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--task", required=True,
                        help="a benchmark task: a name (zaleplon_mpo), group/name (pmo/zaleplon_mpo) or a task file")
    parser.add_argument("--out", type=Path, required=True, help="the run folder (oracle_log.csv, peer_run.json)")
    parser.add_argument("--budget", type=int, default=10_000, help="oracle calls (default 10,000, PMO's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--overwrite", action="store_true", help="replace a previous run in --out")


def resolve_task(name: str) -> Task:
    """The one task a peer runs; a group name or an unknown task is an error naming it."""
    try:
        tasks = resolve_tasks([name])
    except SystemExit as exc:  # benchlab's message for an unknown name
        raise PeerError(str(exc)) from None
    if len(tasks) != 1:
        raise PeerError(f"--task {name!r} names {len(tasks)} tasks; give one task")
    return tasks[0]


def prepare_run_dir(out: Path, overwrite: bool, outputs: tuple[str, ...] = ()) -> RunLock:
    """A run folder without a previous run, held by this process (mara-chem's run lock, so two grid streams
    never write one folder; freed when the process ends): one holding a peer's record or oracle log is refused
    unless ``overwrite``, which deletes only the files a peer writes (these, ``outputs``, metrics.json)."""
    from mara_chem.run_folder.oracle_log import LOG_NAME

    out.mkdir(parents=True, exist_ok=True)
    lock = RunLock(out)
    try:
        lock.acquire()
    except RunFolderBusy as exc:
        raise PeerError(str(exc)) from None
    names = (LOG_NAME, RECORD_NAME, "metrics.json", *outputs)
    used = [out / n for n in names if (out / n).exists()]
    if used and not overwrite:
        lock.release()
        raise PeerError(f"{out} already holds a run ({used[0].name}); use --overwrite or another --out")
    for path in used:
        path.unlink()
    return lock


def scorer_for(task: Task):
    """The task's scoring section as mara-chem's Scorer (validated by mara-chem's scoring model)."""
    from mara_chem.scoring.scorer import Scorer
    from mara_chem.scoring.spec import ScoringSpec

    return Scorer(ScoringSpec.model_validate(task.scoring))


def open_oracle(task: Task, out: Path, budget: int):
    """mara-chem's oracle on the task's scorer, logging to ``out/oracle_log.csv``, stage 1, ``budget`` calls."""
    from mara_chem.rl.oracle import LOG_NAME, Oracle, OracleLog

    if budget < 1:
        raise PeerError(f"--budget must be at least 1 oracle call, got {budget}")
    scorer = scorer_for(task)
    return Oracle(scorer, OracleLog(out / LOG_NAME, scorer.endpoint_names), stage=1, budget=budget)


@dataclass
class PeerRecord:
    """``peer_run.json``: what ran, with which settings, and what it cost."""

    peer: str
    version: str
    task: str
    task_sha256: str
    budget: int
    seed: int
    settings: dict[str, Any]
    oracle_calls: int
    wall_s: float
    stop_reason: str
    cpu_s: float | None = None  # the run's CPU seconds, where the peer measures them

    def write(self, out: Path) -> Path:
        data = {**self.__dict__, "s_per_oracle_call": self.wall_s / max(self.oracle_calls, 1),
                "python": platform.python_version()}
        path = out / RECORD_NAME
        path.write_text(json.dumps(data, indent=2) + "\n")
        return path


def report(label: str, record: PeerRecord, out: Path, task: Task, budget: int) -> None:
    """The peer's one-line cost summary, then its metrics (:func:`print_metrics`)."""
    print(f"{label}: {record.oracle_calls} oracle calls in {record.wall_s:.1f} s "
          f"({1000 * record.wall_s / max(record.oracle_calls, 1):.1f} ms a call), stopped on {record.stop_reason}")
    print_metrics(out, task, budget)


def print_metrics(out: Path, task: Task, budget: int) -> dict[str, Any]:
    """The run's metrics by ``mara-chem metrics`` at the task's thresholds (written to ``out/metrics.json``)."""
    from mara_chem.metrics.compute import compute_metrics

    metrics = compute_metrics(out, list(task.thresholds), budget)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    strict = metrics["thresholds"][1]
    print(f"{task.name}: AUC top-10 {metrics['auc']['value']:.4f}, {metrics['log']['n_calls']} calls, "
          f"strict Yield {strict['yield']}, #Circles {strict['n_circles']} "
          f"(mara-chem metrics {out} --threshold {task.lenient:g} {task.strict:g} --budget {budget})")
    return metrics
