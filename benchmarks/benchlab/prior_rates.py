"""Hit rates before learning: sample from the prior, score the unique valid molecules with each task."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchlab.jobs import Job, run_config
from benchlab.summary import prior_info
from benchlab.tasks import Task, region_assigner
from benchlab.variants import Variant

_PROBE = Variant(name="dap", label="DAP", learning_strategy={"type": "dap"})


def sample_prior(prior: str, n: int, seed: int) -> tuple[list[str | None], list[str]]:
    """``n`` SMILES sampled from the prior with torch seed ``seed`` (chunks of 512): their canonical forms (None
    where invalid) and the unique valid ones in order of first appearance. The same (prior, n, seed) gives the
    same sample here and in ``benchmarks/calibrate_pmo.py``."""
    import torch

    from mara_chem.chem.smiles import canonicalize
    from mara_chem.models.prior_file import load_prior

    torch.manual_seed(seed)
    model = load_prior(prior, "cpu")
    smiles: list[str] = []
    while len(smiles) < n:
        smiles += model.sample(min(512, n - len(smiles))).smiles
    canon = [canonicalize(s) for s in smiles]
    return canon, list(dict.fromkeys(c for c in canon if c))


def task_scores(task: Task, smiles: list[str], prior: str, out: Path) -> np.ndarray:
    """The task's total score of each SMILES, with the scoring section exactly as a run builds it (NaN → 0)."""
    from mara_chem.rl.config import load_run_config
    from mara_chem.scoring.scorer import Scorer

    job = Job(task, _PROBE, 0, 1, prior, out / "_probe")
    scorer = Scorer(load_run_config(run_config(job)).stage[0].scoring)
    try:
        return np.nan_to_num(scorer(smiles).total, nan=0.0)
    finally:
        scorer.close()


def prior_hit_rates(tasks: Sequence[Task], prior: str, n: int, seed: int, out: Path) -> list[dict[str, Any]]:
    """Sample ``n`` SMILES from the prior, score the unique valid ones with each task: fraction ≥ τ per region."""
    canon, unique = sample_prior(prior, n, seed)
    results = []
    for task in tasks:
        totals = task_scores(task, unique, prior, out)
        entry: dict[str, Any] = {"task": task.name, "sampled": n, "valid": sum(c is not None for c in canon),
                                 "unique": len(unique)}
        assign = region_assigner(task)
        for level, t in (("lenient", task.lenient), ("strict", task.strict)):
            hits = [s for s, v in zip(unique, totals) if v >= t]
            entry[f"hits@{level}"] = len(hits)
            entry[f"rate@{level}"] = len(hits) / max(len(unique), 1)
            regions = assign(hits)
            entry[f"regions@{level}"] = {name: regions.count(name) for name in dict.fromkeys(regions)}
        results.append(entry)
    out.mkdir(parents=True, exist_ok=True)
    info = {"prior": prior_info(prior), "n": n, "seed": seed, "tasks": results}
    (out / "prior_hit_rates.json").write_text(json.dumps(info, indent=2))
    lines = [f"Prior hit rates: {n} SMILES sampled from `{prior}` (sha256 `{info['prior']['sha256'][:16]}…`, "
             f"epochs {info['prior'].get('epochs')}), seed {seed}; rate = hits / unique valid molecules.\n",
             "| task | valid | unique | hits ≥ lenient | rate | hits ≥ strict | rate | strict hits per region |",
             "|---|---|---|---|---|---|---|---|"]
    for e, task in zip(results, tasks):
        regions = ", ".join(f"{k}: {v}" for k, v in e["regions@strict"].items()) or "none"
        lines.append(f"| {e['task']} | {e['valid']} | {e['unique']} | {e['hits@lenient']} (τ={task.lenient}) | "
                     f"{e['rate@lenient']:.2%} | {e['hits@strict']} (τ={task.strict}) | {e['rate@strict']:.2%} | "
                     f"{regions} |")
    (out / "prior_hit_rates.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return results


# --- CLI --------------------------------------------------------------------------------------------------------
