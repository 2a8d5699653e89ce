"""The job grid: one job per task × variant × seed, its run file, and the fingerprint that decides reuse.

A finished run is reused only when its whole configuration matches the job's (:func:`config_fingerprint`):
the task file's text (thresholds included), the resolved strategy options, the harness (filter, replay,
batch size, step cap), the budget and the prior's sha256. Paths do not enter it, so a run folder can move.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchlab.tasks import Task
from benchlab.variants import Harness, Variant

from mara_chem.data.moses import sha256_of

DONE_NAME = "benchmark_run.json"
CONFIG_NAME = "benchmark_config.json"
DEFAULT_BUDGET = 10_000


@dataclass(frozen=True)
class Job:
    """One run of the grid."""

    task: Task
    variant: Variant
    seed: int
    budget: int
    prior: str
    run_dir: Path
    batch_size: int = 64
    max_steps: int = 400

    @property
    def strategy(self) -> str:
        """The variant's name (the ``strategy`` column of the tables)."""
        return self.variant.name

    @property
    def key(self) -> str:
        return f"{self.task.name}/{self.strategy}/seed{self.seed}"


def filter_config(task: Task, harness: Harness = Harness()) -> dict[str, Any] | None:
    """The scaffold filter of the harness: its ``minscore`` is the task's lenient threshold, so every hit at
    either threshold enters the scaffold buckets (REINVENT's default 0.4 would hide hits below 0.4); None
    when the harness runs without a filter."""
    if harness.diversity_filter == "none":
        return None
    return {"type": "IdenticalMurckoScaffold", "bucket_size": harness.bucket_size, "minscore": task.lenient}


def run_config(job: Job) -> dict[str, Any]:
    """The staged-learning run dict of one job (REINVENT 4 layout; the harness is the variant's)."""
    task, harness = job.task, job.variant.harness
    cfg = {
        "run_type": "staged_learning",
        "device": "cpu",
        "seed": job.seed,
        "parameters": {
            "prior_file": job.prior, "agent_file": job.prior,
            "summary_csv_prefix": str(job.run_dir / "summary"),
            "batch_size": job.batch_size, "hit_threshold": task.strict,
            "checkpoint_every": 10,
        },
        "learning_strategy": job.variant.options(task),
        "diversity_filter": filter_config(task, harness),
        "inception": {"memory_size": harness.memory_size, "sample_size": harness.sample_size},
        # max_score = 1.0 and min_steps = max_steps: the stage ends on the oracle budget (or, for a policy that
        # only repeats itself, on max_steps), never on REINVENT's mean-score rule
        "stage": [{"max_steps": job.max_steps, "min_steps": job.max_steps, "max_score": 1.0,
                   "max_oracle_calls": job.budget, "scoring": task.scoring}],
    }
    if cfg["diversity_filter"] is None:
        del cfg["diversity_filter"]
    if harness.augmentation_rounds:  # only when on: runs without it keep their fingerprints
        cfg["parameters"]["augmentation_rounds"] = harness.augmentation_rounds
    if not harness.randomize_smiles:  # only when off, as above
        cfg["parameters"]["randomize_smiles"] = False
    if not harness.isomeric_smiles:  # likewise
        cfg["parameters"]["isomeric_smiles"] = False
    if harness.replay == "remax":  # only when on, as above
        refs = {"@strict": task.strict, "@lenient": task.lenient}
        cfg["inception"].update(replay="remax", mode=harness.replay_mode,
                                min_score=refs.get(harness.replay_min_score, harness.replay_min_score))
    if harness.genetic is not None:  # likewise
        cfg["genetic"] = dict(harness.genetic)
    return cfg


@lru_cache(maxsize=64)
def _prior_sha256(path: str) -> str:
    return sha256_of(path)


def config_fingerprint(job: Job) -> dict[str, Any]:
    """Everything that decides a run's outcome except paths, with its sha256 under ``sha256``."""
    cfg = run_config(job)
    cfg["parameters"] = {k: v for k, v in cfg["parameters"].items()
                         if k not in ("prior_file", "agent_file", "summary_csv_prefix")}
    content = {"task": job.task.name, "task_sha256": job.task.sha256, "variant": job.variant.name,
               "prior_sha256": _prior_sha256(job.prior), "run": cfg}
    digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()
    return {"sha256": digest, **content}


def make_jobs(tasks: Sequence[Task], variants: Sequence[Variant], seeds: Sequence[int], budget: int, prior: str,
              runs_root: Path, batch_size: int = 64, max_steps: int = 400) -> list[Job]:
    """The grid, seed-major (a partial grid holds every task × variant at the first seeds)."""
    return [Job(t, v, seed, budget, prior, runs_root / t.name / v.name / f"seed{seed}", batch_size, max_steps)
            for seed in seeds for t in tasks for v in variants]


def finished_record(job: Job) -> dict[str, Any] | None:
    """The record of a finished run whose configuration matches the job's, else None."""
    done = job.run_dir / DONE_NAME
    if not done.exists():
        return None
    try:
        info = json.loads(done.read_text())
    except ValueError:
        return None
    return info if info.get("config_sha256") == config_fingerprint(job)["sha256"] else None


def is_finished(job: Job) -> bool:
    """A finished run of exactly this configuration lies in the job's folder."""
    return finished_record(job) is not None


def stale_reason(job: Job) -> str | None:
    """Why a finished run in the job's folder is not reused (None when there is none or it matches)."""
    done = job.run_dir / DONE_NAME
    if not done.exists() or is_finished(job):
        return None
    return f"{job.key}: the run in {job.run_dir} was made with another configuration; it is run again"
