"""Multi-seed benchmark runner: tasks x strategies x seeds, in parallel processes, then tables and plots.

    python benchmarks/run_benchmark.py --tasks all --strategies dap mara grpo ips_grpo --seeds 0 1 2 \
        --budget 2000 --workers 2 --prior /tmp/bench_prior.prior --out benchmarks/results/cpu_suite

Each run gets its own folder ``<runs>/<task>/<strategy>/seed<k>`` (default ``runs/benchmark``) holding the
staged-learning outputs (oracle log, summary CSV, run.json, checkpoint) and ``benchmark_run.json`` once it has
finished; a finished run is skipped when the command is repeated, an interrupted one resumes from its
checkpoint. Afterwards (or with ``--summarize-only``) every metric is recomputed from the oracle logs
(docs/metrics.md) and written to ``--out``: ``results.md``, ``results.csv`` (mean ± std over seeds and the Welch
t-test p-value against DAP), ``runs.csv`` (one row per run), ``results.json`` and the PNG figures.
``--prior-hit-rates N`` samples N SMILES from the prior and reports each task's hit rate before any learning.

Tasks are TOML files in ``benchmarks/tasks/`` (a ``[task]`` table plus a REINVENT-style ``[scoring]``
table); the four strategy variants are defined in :data:`STRATEGIES` below.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mara_chem.data.moses import sha256_of

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TASK_DIR = HERE / "tasks"
DEFAULT_PRIOR = REPO / "priors" / "moses-gru-2x256.prior"
DONE_NAME = "benchmark_run.json"
BASELINE = "dap"


# --- tasks ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    """A benchmark task: a scoring section, (lenient, strict) hit thresholds and its high-scoring regions."""

    name: str
    description: str
    thresholds: tuple[float, float]
    scoring: dict[str, Any]
    region_kind: str
    regions: list[dict[str, Any]] = field(default_factory=list)
    path: Path | None = None

    @property
    def lenient(self) -> float:
        return self.thresholds[0]

    @property
    def strict(self) -> float:
        return self.thresholds[1]


def load_task(path: str | Path) -> Task:
    """Read a task TOML file (``[task]`` metadata and ``[scoring]``)."""
    path = Path(path)
    data = tomllib.loads(path.read_text())
    meta = data["task"]
    lenient, strict = (float(t) for t in meta["thresholds"])
    if not lenient < strict:
        raise ValueError(f"{path}: thresholds must be [lenient, strict] with lenient < strict")
    return Task(meta["name"], meta.get("description", ""), (lenient, strict), data["scoring"],
                meta.get("regions", "none"), list(meta.get("region", [])), path)


def available_tasks(task_dir: Path = TASK_DIR) -> dict[str, Task]:
    """Every task file in ``task_dir``, by task name."""
    tasks = [load_task(p) for p in sorted(task_dir.glob("*.toml"))]
    return {t.name: t for t in tasks}


def resolve_tasks(names: Sequence[str], task_dir: Path = TASK_DIR) -> list[Task]:
    """Task names (or ``all``, or paths to task files) to Task objects."""
    known = available_tasks(task_dir)
    if list(names) == ["all"]:
        return list(known.values())
    out = []
    for name in names:
        if name in known:
            out.append(known[name])
        elif Path(name).is_file():
            out.append(load_task(name))
        else:
            raise SystemExit(f"unknown task {name!r}; valid: {', '.join(known)} or a path to a task file")
    return out


# --- regions: which high-scoring region a hit belongs to (a collapse diagnostic) ------------------------------
def region_assigner(task: Task) -> Callable[[list[str]], list[str]]:
    """A function mapping SMILES to region names ('other' when none applies)."""
    from rdkit import Chem, DataStructs
    from rdkit.Chem import rdMolDescriptors

    from mara_chem.chem.fingerprints import morgan_fingerprint

    names = [r["name"] for r in task.regions]
    if task.region_kind == "nearest_reference":
        refs = [morgan_fingerprint(r["smiles"], 2, 2048) for r in task.regions]

        def nearest(smiles: list[str]) -> list[str]:
            out = []
            for s in smiles:
                sims = DataStructs.BulkTanimotoSimilarity(morgan_fingerprint(s, 2, 2048), refs)
                out.append(names[int(np.argmax(sims))])
            return out

        return nearest
    if task.region_kind == "smarts":
        patterns = [Chem.MolFromSmarts(r["smarts"]) for r in task.regions]

        def first_match(smiles: list[str]) -> list[str]:
            out = []
            for s in smiles:
                mol = Chem.MolFromSmiles(s)
                hit = next((n for n, p in zip(names, patterns) if mol is not None and mol.HasSubstructMatch(p)), None)
                out.append(hit or "other")
            return out

        return first_match
    if task.region_kind == "ring_counts":
        table = {(int(r["aromatic"]), int(r["aliphatic"])): r["name"] for r in task.regions}

        def island(smiles: list[str]) -> list[str]:
            out = []
            for s in smiles:
                mol = Chem.MolFromSmiles(s)
                key = (rdMolDescriptors.CalcNumAromaticRings(mol), rdMolDescriptors.CalcNumAliphaticRings(mol)) if mol else None
                out.append(table.get(key, "other"))
            return out

        return island
    return lambda smiles: ["all"] * len(smiles)


# --- strategies -------------------------------------------------------------------------------------------------
PG_RATE = 1e-4
"""Learning rate of GRPO and IPS-GRPO: Adam, like DAP's. Adam divides each step by the running gradient scale, so
the same rate moves the weights about as far per step whatever the loss scale (DAP's squared residuals are ~σ
times larger than a unit-variance GRPO advantage); 1e-4 is REINVENT's rate and is kept for every strategy."""


def _dap(task: Task) -> dict[str, Any]:
    return {"type": "dap", "sigma": 128, "rate": 1e-4}


def _mara(task: Task) -> dict[str, Any]:
    # τ = the task's strict threshold, the headline metric's threshold (fixed before any run)
    return {"type": "mara", "sigma": 128, "rate": 1e-4, "tau": task.strict}


def _grpo(task: Task) -> dict[str, Any]:
    # documented defaults: reverse KL with β = 0.05
    return {"type": "grpo", "rate": PG_RATE}


def _ips_grpo(task: Task) -> dict[str, Any]:
    # documented defaults: no KL, IPS ε = 0.01 (< 1/G for G = 64, so p̂ = n_o / G is never clipped)
    return {"type": "ips_grpo", "rate": PG_RATE}


STRATEGIES: dict[str, Callable[[Task], dict[str, Any]]] = {
    "dap": _dap, "mara": _mara, "grpo": _grpo, "ips_grpo": _ips_grpo,
}
LABELS = {"dap": "DAP (REINVENT)", "mara": "MARA (DAP+MARA)", "grpo": "GRPO", "ips_grpo": "IPS-GRPO"}
COLORS = {"dap": "#4c72b0", "mara": "#dd8452", "grpo": "#55a868", "ips_grpo": "#c44e52"}


@dataclass(frozen=True)
class Job:
    """One run of the grid."""

    task: Task
    strategy: str
    seed: int
    budget: int
    prior: str
    run_dir: Path
    batch_size: int = 64
    max_steps: int = 400

    @property
    def key(self) -> str:
        return f"{self.task.name}/{self.strategy}/seed{self.seed}"


def run_config(job: Job) -> dict[str, Any]:
    """The staged-learning run dict of one job (REINVENT 4 layout; the same harness for every strategy)."""
    task = job.task
    return {
        "run_type": "staged_learning",
        "device": "cpu",
        "seed": job.seed,
        "parameters": {
            "prior_file": job.prior, "agent_file": job.prior,
            "summary_csv_prefix": str(job.run_dir / "summary"),
            "batch_size": job.batch_size, "hit_threshold": task.strict,
            "checkpoint_every": 10,
        },
        "learning_strategy": STRATEGIES[job.strategy](task),
        "diversity_filter": {"type": "IdenticalMurckoScaffold", "bucket_size": 10},
        "inception": {"memory_size": 100, "sample_size": 10},
        # max_score = 1.0 and min_steps = max_steps: the stage ends on the oracle budget (or, for a policy that
        # only repeats itself, on max_steps), never on REINVENT's mean-score rule
        "stage": [{"max_steps": job.max_steps, "min_steps": job.max_steps, "max_score": 1.0,
                   "max_oracle_calls": job.budget, "scoring": task.scoring}],
    }


def make_jobs(tasks: Sequence[Task], strategies: Sequence[str], seeds: Sequence[int], budget: int, prior: str,
              runs_root: Path, batch_size: int = 64, max_steps: int = 400) -> list[Job]:
    """The grid, task-major (so a partial grid holds whole tasks first)."""
    return [Job(t, s, seed, budget, prior, runs_root / t.name / s / f"seed{seed}", batch_size, max_steps)
            for t in tasks for seed in seeds for s in strategies]


def is_finished(job: Job) -> bool:
    """A finished run of the same budget and prior lies in the job's folder."""
    done = job.run_dir / DONE_NAME
    if not done.exists():
        return False
    try:
        info = json.loads(done.read_text())
    except ValueError:
        return False
    return info.get("budget") == job.budget and info.get("prior_sha256") == sha256_of(job.prior)


def _init_worker() -> None:
    import torch

    torch.set_num_threads(1)


def run_job(job: Job) -> dict[str, Any]:
    """Run (or resume) one job in this process and write ``benchmark_run.json``; returns its record."""
    from mara_chem.rl.config import load_run_config
    from mara_chem.rl.loop import RunDirError, StagedLearning

    if is_finished(job):
        return {"key": job.key, "status": "skipped"}
    start = time.perf_counter()
    cfg = load_run_config(run_config(job))
    try:
        try:
            learner = StagedLearning(cfg, overwrite=False, quiet=True)
        except RunDirError:  # a log without checkpoint, or a checkpoint of another prior: start the run again
            learner = StagedLearning(cfg, overwrite=True, quiet=True)
        result = learner.run()
    except Exception as exc:  # one broken run must not take the grid down; it is reported and re-run next time
        import traceback

        return {"key": job.key, "status": "failed", "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()}
    record = {
        "key": job.key, "task": job.task.name, "strategy": job.strategy, "seed": job.seed, "budget": job.budget,
        "prior": job.prior, "prior_sha256": sha256_of(job.prior), "steps": result.steps,
        "oracle_calls": result.oracle_calls, "stop_reason": result.stop_reason,
        "wall_s": round(time.perf_counter() - start, 1), "status": "done",
    }
    (job.run_dir / DONE_NAME).write_text(json.dumps(record, indent=2))
    return record


def run_grid(jobs: Sequence[Job], workers: int) -> list[dict[str, Any]]:
    """Run the unfinished jobs on ``workers`` processes (one thread each); prints one line per finished run."""
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


# --- metrics ----------------------------------------------------------------------------------------------------
METRICS = ("yield", "ob_n", "intdiv1", "n_circles", "n_scaffolds")
METRIC_LABELS = {"yield": "Yield", "ob_n": "OB{n}", "intdiv1": "IntDiv1", "n_circles": "#Circles",
                 "n_scaffolds": "hit scaffolds", "auc_top10": "AUC top-10"}
HIGHER_IS_BETTER = {"yield": True, "ob_n": False, "intdiv1": True, "n_circles": True, "n_scaffolds": True,
                    "auc_top10": True}


def run_metrics(job: Job, ob_n: int) -> dict[str, Any]:
    """One run's metrics at both thresholds, its hit regions and its curves (hits and #Circles vs calls)."""
    from mara_chem.metrics import MetricOptions, compute_metrics, read_oracle_log
    from mara_chem.report import circles_curve, hits_curve

    log = read_oracle_log(job.run_dir)
    m = compute_metrics(job.run_dir, list(job.task.thresholds), job.budget, MetricOptions(n=ob_n), log=log)
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
        ccalls, circles = circles_curve(log, t["threshold"], job.budget, points=20)
        curves[level] = {"calls": calls.tolist(), "hits": counts.tolist(),
                         "circle_calls": ccalls.tolist(), "circles": circles.tolist()}
    scores = [mol.score for mol in molecules if math.isfinite(mol.score)]
    return {"row": row, "curves": curves, "scores": scores}


def welch_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided Welch t-test p-value (scipy.stats.ttest_ind, equal_var=False); NaN when undefined."""
    from scipy.stats import ttest_ind

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if len(a) < 2 or len(b) < 2:
        return math.nan
    if np.std(a) == 0 and np.std(b) == 0:
        return 1.0 if np.mean(a) == np.mean(b) else 0.0
    with np.errstate(all="ignore"):
        return float(ttest_ind(a, b, equal_var=False).pvalue)


def aggregate(rows: list[dict[str, Any]], strategies: Sequence[str]) -> list[dict[str, Any]]:
    """Mean ± std over seeds per task × strategy × metric, with the Welch p-value against DAP.

    OB_N: runs that never reach N hits are left out of the mean and counted in ``reached``.
    """
    out = []
    keys = ["auc_top10"] + [f"{k}@{lvl}" for lvl in ("lenient", "strict") for k in METRICS]
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    for task in tasks:
        by_strategy = {s: [r for r in rows if r["task"] == task and r["strategy"] == s] for s in strategies}
        for s in strategies:
            runs = by_strategy[s]
            if not runs:
                continue
            entry: dict[str, Any] = {"task": task, "strategy": s, "n_seeds": len(runs),
                                     "oracle_calls": float(np.mean([r["oracle_calls"] for r in runs]))}
            for key in keys:
                values = [_num(r[key]) for r in runs]
                finite = [v for v in values if math.isfinite(v)]
                base = [_num(r[key]) for r in by_strategy.get(BASELINE, [])]
                entry[f"{key}.mean"] = float(np.mean(finite)) if finite else math.nan
                entry[f"{key}.std"] = float(np.std(finite, ddof=1)) if len(finite) > 1 else (0.0 if finite else math.nan)
                entry[f"{key}.n"] = len(finite)
                entry[f"{key}.p_vs_dap"] = math.nan if s == BASELINE else welch_p(values, base)
            out.append(entry)
    return out


def _num(value: Any) -> float:
    return math.nan if value is None else float(value)


# --- output -----------------------------------------------------------------------------------------------------
def _cell(entry: dict[str, Any], key: str, digits: int, show_p: bool, total: int) -> str:
    mean, std, n, p = (entry[f"{key}.{x}"] for x in ("mean", "std", "n", "p_vs_dap"))
    if not math.isfinite(mean):
        return "not reached" if key.startswith("ob_n") else "n/a"
    text = f"{mean:.{digits}f} ± {std:.{digits}f}"
    if key.startswith("ob_n") and n < total:
        text += f" ({n}/{total} seeds)"
    if show_p and math.isfinite(p):
        text += f" (p={p:.2g})"
    return text


def markdown_tables(summary: list[dict[str, Any]], tasks: Sequence[Task], ob_n: int) -> str:
    """One Markdown table per task: strategies as rows; metrics at the strict and lenient thresholds."""
    lines = []
    cols = [("yield@strict", 1), ("ob_n@strict", 0), ("intdiv1@strict", 3), ("n_circles@strict", 1),
            ("n_scaffolds@strict", 1), ("yield@lenient", 1), ("ob_n@lenient", 0), ("intdiv1@lenient", 3),
            ("n_circles@lenient", 1), ("n_scaffolds@lenient", 1), ("auc_top10", 3)]
    for task in tasks:
        entries = [e for e in summary if e["task"] == task.name]
        if not entries:
            continue
        lines.append(f"### {task.name} (strict τ = {task.strict}, lenient τ = {task.lenient})\n")
        head = ["strategy", "seeds"] + [_col_label(k, ob_n, task) for k, _ in cols]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for e in entries:
            cells = [LABELS.get(e["strategy"], e["strategy"]), str(e["n_seeds"])]
            cells += [_cell(e, k, d, e["strategy"] != BASELINE, e["n_seeds"]) for k, d in cols]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _col_label(key: str, ob_n: int, task: Task) -> str:
    metric, _, level = key.partition("@")
    label = METRIC_LABELS[metric].format(n=ob_n)
    return f"{label} @{getattr(task, level)}" if level else label


def headline_table(summary: list[dict[str, Any]], tasks: Sequence[Task]) -> str:
    """Strict-threshold Yield, IntDiv1 and #Circles per task × strategy, the differences to DAP and whether the
    issue's aim holds on the seed means: Yield above DAP's with IntDiv1 and #Circles not below DAP's."""
    lines = ["| task | strategy | Yield | IntDiv1 | #Circles | Δ vs DAP (* Welch p < 0.05) | aim met (means) |",
             "|---|---|---|---|---|---|---|"]
    keys = ("yield@strict", "intdiv1@strict", "n_circles@strict")
    for task in tasks:
        entries = {e["strategy"]: e for e in summary if e["task"] == task.name}
        base = entries.get(BASELINE)
        for s, e in entries.items():
            cells = [_cell(e, k, 3 if k.startswith("intdiv") else 1, False, e["n_seeds"]) for k in keys]
            if s == BASELINE or base is None:
                delta, verdict = "(baseline)", ""
            else:
                delta, verdict = _delta(e, base, keys), _verdict(e, base)
            lines.append(f"| {task.name} (τ = {task.strict}) | {LABELS.get(s, s)} | " + " | ".join(cells)
                         + f" | {delta} | {verdict} |")
    return "\n".join(lines) + "\n"


def _delta(entry: dict[str, Any], base: dict[str, Any], keys: Sequence[str]) -> str:
    parts = []
    for key in keys:
        diff = entry[f"{key}.mean"] - base[f"{key}.mean"]
        star = "*" if entry[f"{key}.p_vs_dap"] < 0.05 else ""
        name = METRIC_LABELS[key.partition("@")[0]]
        if key.startswith("intdiv"):
            text = f"{diff:+.3f}" if abs(diff) >= 5e-4 or diff == 0 else f"{diff:+.0e}"
        else:
            text = f"{diff:+.1f}"
        parts.append(f"{name} {text}{star}")
    return ", ".join(parts)


def _verdict(entry: dict[str, Any], base: dict[str, Any]) -> str:
    better = entry["yield@strict.mean"] > base["yield@strict.mean"]
    div_ok = all(not (entry[f"{k}.mean"] < base[f"{k}.mean"]) for k in ("intdiv1@strict", "n_circles@strict"))
    return "yes" if better and div_ok else "no"


def region_table(rows: list[dict[str, Any]], tasks: Sequence[Task], strategies: Sequence[str]) -> str:
    """Mean number of strict-threshold hits per high-scoring region (where each strategy's hits lie)."""
    lines = []
    for task in tasks:
        names = [r["name"] for r in task.regions] + ["other"]
        present = [r for r in rows if r["task"] == task.name]
        if not present:
            continue
        lines.append(f"**{task.name}** (hits ≥ {task.strict}, mean over seeds)\n")
        lines.append("| strategy | " + " | ".join(names) + " |")
        lines.append("|" + "---|" * (len(names) + 1))
        for s in strategies:
            runs = [r for r in present if r["strategy"] == s]
            if not runs:
                continue
            means = [np.mean([r["regions@strict"].get(n, 0) for r in runs]) for n in names]
            lines.append(f"| {LABELS.get(s, s)} | " + " | ".join(f"{m:.1f}" for m in means) + " |")
        lines.append("")
    return "\n".join(lines)


def write_csv(path: Path, records: list[dict[str, Any]]) -> None:
    """Records as CSV (dict values as JSON)."""
    import csv

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


def plot_curves(path: Path, task: Task, curves: dict[str, list[dict[str, Any]]], kind: str) -> None:
    """Mean curve with a ±1 std band over seeds per strategy; left panel lenient τ, right panel strict τ."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for ax, level in zip(axes, ("lenient", "strict")):
        for s, runs in curves.items():
            if not runs:
                continue
            x = np.asarray(runs[0][level]["calls" if kind == "hits" else "circle_calls"])
            ys = np.asarray([r[level][kind] for r in runs], dtype=float)
            mean, std = ys.mean(axis=0), ys.std(axis=0, ddof=1) if len(ys) > 1 else np.zeros(ys.shape[1])
            ax.plot(x, mean, color=COLORS.get(s), label=f"{LABELS.get(s, s)} (n={len(ys)})", lw=1.5)
            ax.fill_between(x, mean - std, mean + std, color=COLORS.get(s), alpha=0.2, lw=0)
        ax.set(title=f"{task.name}: score ≥ {getattr(task, level)}", xlabel="oracle calls",
               ylabel="unique hits" if kind == "hits" else "#Circles of hits (t = 0.75)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def plot_scores(path: Path, task: Task, scores: dict[str, list[float]]) -> None:
    """Distribution of the unique molecules' scores per strategy (all seeds pooled), log-scale counts."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    bins = np.linspace(0, 1, 41)
    for s, values in scores.items():
        if values:
            ax.hist(values, bins=bins, histtype="step", color=COLORS.get(s), lw=1.5, label=LABELS.get(s, s),
                    weights=np.full(len(values), 1.0 / len(values)))
    for t in task.thresholds:
        ax.axvline(t, color="grey", ls="--", lw=1)
    ax.set_yscale("log")
    ax.set(title=f"{task.name}: scores of unique molecules", xlabel="score", ylabel="fraction of molecules")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def prior_info(prior: str) -> dict[str, Any]:
    """Path, sha256 and training metadata (epochs, validation NLL) of the prior file."""
    from mara_chem.models.prior_file import read_metadata

    meta = read_metadata(prior)
    keep = {k: meta.get(k) for k in ("model_type", "hyperparameters", "epochs", "validation_nll", "save_validity", "saved_at",
                                           "training_data_sha256")
            if k in meta}
    return {"path": str(prior), "sha256": sha256_of(prior), **keep}


def _priors_used(jobs: Sequence[Job], out: Path) -> list[dict[str, Any]]:
    """Path, sha256 and metadata of every prior the finished runs used (from their records; the metadata from
    the prior file while it is there, else from a previous results.json of ``out``)."""
    records = [json.loads((j.run_dir / DONE_NAME).read_text()) for j in jobs if (j.run_dir / DONE_NAME).exists()]
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


def summarize(jobs: Sequence[Job], tasks: Sequence[Task], strategies: Sequence[str], out: Path, ob_n: int,
              command: str) -> dict[str, Any]:
    """Metrics of every finished run, then results.md/.csv/.json, runs.csv and the PNGs under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    rows, curves, scores = [], {}, {}
    for job in jobs:
        if not (job.run_dir / DONE_NAME).exists():
            continue
        m = run_metrics(job, ob_n)
        rows.append(m["row"])
        curves.setdefault(job.task.name, {}).setdefault(job.strategy, []).append(m["curves"])
        scores.setdefault(job.task.name, {}).setdefault(job.strategy, []).extend(m["scores"])
    summary = aggregate(rows, strategies)
    write_csv(out / "runs.csv", rows)
    write_csv(out / "results.csv", summary)
    for task in tasks:
        if task.name not in curves:
            continue
        plot_curves(out / f"{task.name}_hits.png", task, curves[task.name], "hits")
        plot_curves(out / f"{task.name}_circles.png", task, curves[task.name], "circles")
        plot_scores(out / f"{task.name}_scores.png", task, scores[task.name])
    priors = _priors_used(jobs, out)
    info = {"command": command, "created": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "ob_n": ob_n,
            "budget": max((job.budget for job in jobs), default=0),
            "priors": priors,
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, torch threads per worker 1",
            "summary": summary, "runs": rows}
    (out / "results.json").write_text(json.dumps(info, indent=2, default=_json_default))
    (out / "results.md").write_text(results_markdown(info, tasks, strategies, rows, summary, ob_n, out))
    return info


def _json_default(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(type(value))


def results_markdown(info: dict[str, Any], tasks: Sequence[Task], strategies: Sequence[str],
                     rows: list[dict[str, Any]], summary: list[dict[str, Any]], ob_n: int, out: Path) -> str:
    """The results page: provenance, one table per task, hits per region, wall times, figures, hypergrid."""
    lines = ["# CPU benchmark suite: DAP, MARA, GRPO, IPS-GRPO", ""]
    lines.append(f"Generated {info['created']} by `{info['command']}`.")
    for p in info["priors"]:
        lines.append(f"Prior: `{p['path']}` (sha256 `{p['sha256'][:16]}…`, epochs {p.get('epochs')}).")
    lines.append(f"Machine: {info['machine']}.")
    lines.append("")
    lines.append("Cells: mean ± sample std over seeds; `p` = two-sided Welch t-test (scipy `ttest_ind`, "
                 "`equal_var=False`) against DAP over the per-seed values. "
                 f"OB{ob_n}: oracle calls to the {ob_n}-th unique hit, averaged over the seeds that reached it "
                 "(count shown when not all did). Hit scaffolds: distinct Bemis-Murcko scaffolds among hits. "
                 "IntDiv1 and #Circles (t = 0.75) on ECFP4 (Morgan r = 2, 2048 bits). AUC top-10: PMO "
                 "convention over the budget. Metrics are recomputed from each run's oracle log (docs/metrics.md).")
    lines.append("")
    lines.append("## Headline: strict threshold\n")
    lines.append("Δ: difference of the seed means to DAP's, * where the Welch t-test gives p < 0.05. Aim met: the "
                 "issue's aim on the seed means (more hits than DAP at the strict threshold with IntDiv1 and #Circles "
                 "no lower), whatever the significance.\n")
    lines.append(headline_table(summary, tasks))
    lines.append("## All metrics per task\n")
    lines.append(markdown_tables(summary, tasks, ob_n))
    lines.append("## Where the strict hits lie (hits per high-scoring region)\n")
    lines.append(region_table(rows, tasks, strategies))
    lines.append("## Runs\n")
    walls = [r["wall_s"] for r in rows if r.get("wall_s")]
    if walls:
        lines.append(f"{len(rows)} runs; wall time per run {np.mean(walls):.0f} ± {np.std(walls):.0f} s "
                     f"(min {min(walls):.0f}, max {max(walls):.0f}); per-run details in `runs.csv`.")
    short = [r for r in rows if r["oracle_calls"] < max(1, int(0.99 * info["budget"]))]
    for r in short:
        lines.append(f"- {r['task']}/{r['strategy']}/seed{r['seed']} used only {r['oracle_calls']} oracle calls "
                     f"(stopped on {r['stop_reason']} after {r['steps']} steps: too few new valid molecules per batch).")
    lines.append("")
    lines.append("## Figures\n")
    for task in tasks:
        for kind, what in (("hits", "unique hits vs oracle calls"), ("circles", "#Circles vs oracle calls"),
                           ("scores", "score distribution")):
            if (out / f"{task.name}_{kind}.png").exists():
                lines.append(f"![{task.name} {what}]({task.name}_{kind}.png)")
        lines.append("")
    lines.append(hypergrid_section(out))
    return "\n".join(lines) + "\n"


def hypergrid_section(out: Path) -> str:
    """The hypergrid table written by ``benchmarks/hypergrid.py`` (read, not recomputed)."""
    for path in (out / "hypergrid.md", HERE / "results" / "hypergrid.md"):
        if path.exists():
            body = path.read_text().strip().splitlines()
            title = body.pop(0)[2:] if body and body[0].startswith("# ") else "Hypergrid"
            body = [("#" + line if line.startswith("#") else line) for line in body]
            return f"## {title} (from `{os.path.relpath(path, out)}`)\n" + "\n".join(body) + "\n"
    return "## Hypergrid\n\nNot found: run `python benchmarks/hypergrid.py --out benchmarks/results` first.\n"


# --- prior hit rates ------------------------------------------------------------------------------------------
def prior_hit_rates(tasks: Sequence[Task], prior: str, n: int, seed: int, out: Path) -> list[dict[str, Any]]:
    """Sample ``n`` SMILES from the prior, score the unique valid ones with each task: fraction ≥ τ per region."""
    import torch

    from mara_chem.chem.smiles import canonicalize
    from mara_chem.models.prior_file import load_prior
    from mara_chem.rl.config import load_run_config
    from mara_chem.scoring.scorer import Scorer

    torch.manual_seed(seed)
    model = load_prior(prior, "cpu")
    smiles: list[str] = []
    while len(smiles) < n:
        smiles += model.sample(min(512, n - len(smiles))).smiles
    canon = [canonicalize(s) for s in smiles]
    unique = list(dict.fromkeys(c for c in canon if c))
    results = []
    for task in tasks:
        job = Job(task, "dap", 0, 1, prior, out / "_probe")
        scorer = Scorer(load_run_config(run_config(job)).stage[0].scoring)
        totals = np.nan_to_num(scorer(unique).total, nan=0.0)
        scorer.close()
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
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=["all"], help="task names, task files, or 'all'")
    p.add_argument("--strategies", nargs="+", default=list(STRATEGIES), choices=list(STRATEGIES))
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--budget", type=int, default=2000, help="oracle calls per run")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--max-steps", type=int, default=400,
                   help="step cap (a run ends on the budget unless its policy stops producing new molecules)")
    p.add_argument("--workers", type=int, default=2, help="parallel processes (one torch thread each)")
    p.add_argument("--prior", default=str(DEFAULT_PRIOR), help="prior file (copy it first if it is being retrained)")
    p.add_argument("--runs", default=str(REPO / "runs" / "benchmark"), help="root folder of the run folders")
    p.add_argument("--out", default=str(HERE / "results" / "cpu_suite"), help="folder for tables and figures")
    p.add_argument("--ob-n", type=int, default=100, help="N of the OB_N column")
    p.add_argument("--summarize-only", action="store_true", help="rebuild tables and plots from existing runs")
    p.add_argument("--prior-hit-rates", type=int, metavar="N", default=0,
                   help="only sample N SMILES from the prior and report each task's hit rates")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    tasks = resolve_tasks(args.tasks)
    out = Path(args.out)
    if args.prior_hit_rates:
        prior_hit_rates(tasks, args.prior, args.prior_hit_rates, 0, out)
        return 0
    if not args.summarize_only and not Path(args.prior).exists():
        raise SystemExit(f"prior file {args.prior} does not exist")
    jobs = make_jobs(tasks, args.strategies, args.seeds, args.budget, str(args.prior), Path(args.runs),
                     args.batch_size, args.max_steps)
    command = "python benchmarks/run_benchmark.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if not args.summarize_only:
        start = time.perf_counter()
        failed = [r["key"] for r in run_grid(jobs, args.workers) if r["status"] == "failed"]
        print(f"grid finished in {time.perf_counter() - start:.0f} s; {len(failed)} failed run(s) "
              f"{' '.join(failed)} (left out of the tables, re-run by repeating the command)", flush=True)
    info = summarize(jobs, tasks, args.strategies, out, args.ob_n, command)
    print(f"{len(info['runs'])} runs summarised; tables and figures in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
