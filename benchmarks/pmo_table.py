"""The PMO table: per task and method, AUC top-10, top-10/top-100 means, top-100 diversity, Yield, #Circles.

Every number comes from each run's oracle log through mara-chem's metric functions, whoever made the run
(mara-chem's runner, the Mol GA peer, the REINVENT 4.8 peer), so the methods are counted by one implementation.
A method is ``LABEL=ROOT:VARIANT``: its runs are ``ROOT/<task>/<VARIANT>/seed<k>/oracle_log.csv``. Sums are over
the tasks of each seed (PMO's "sum" row), so a seed enters only where it ran on every task; p values are
two-sided Welch t-tests over those per-seed sums (and per-seed AUCs per task).

Run folders stay out of git; the per-run numbers are committed as ``OUT/pmo_runs.json``. A run recorded there whose
folder is not on this machine keeps its recorded numbers (the table says how many), so a table rebuilt on another
machine, or after new runs, still holds the runs made elsewhere; ``--only-present`` drops them. ``--recorded
FILE`` reads rows that another table measured (by their label there) from that table's ``pmo_runs.json``, so a
table can set new runs beside rows whose folders are on another machine.

    python benchmarks/pmo_table.py --tasks pmo_zinc --budget 10000 --out benchmarks/results/pmo \\
        --method "mara-chem=runs/pmo:pmo_ips_dap_scaffold_window" --method "REINVENT 4.8=runs/peers:reinvent_pmo" ...
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchlab.jobs import DONE_NAME
from benchlab.peers.peer_run import RECORD_NAME as PEER_RECORD_NAME
from benchlab.stats import welch_p
from benchlab.tasks import Task, resolve_tasks

from mara_chem.metrics.auc import top_k_auc, top_k_mean
from mara_chem.metrics.diversity import fingerprints, mean_pairwise_distance_fps, n_circles_fps
from mara_chem.metrics.yield_ob import hits
from mara_chem.run_folder.oracle_log import read_oracle_log

#: published sums of the mean AUC top-10 over the 20 PMO objectives that run offline (the anchors the table is read against)
PUBLISHED = [
    ("REINVENT (PMO paper)", 11.59, "Gao et al. 2022, as reprinted in f-RAG's Table 1"),
    ("Graph GA (PMO paper)", 11.44, "same"),
    ("REINVENT, PyTDC 0.4.0 re-run", 12.56, "Genetic GFN, Table 1"),
    ("Mol GA, tuned", 13.01, "Genetic GFN, Table 1"),
    ("Genetic GFN", 13.59, "Genetic GFN, Table 1"),
]
METRICS = ("auc_top10", "top10", "top100", "diversity_top100", "yield", "circles", "s_per_1000_calls")
LABELS = {"auc_top10": "AUC top-10", "top10": "top-10 mean", "top100": "top-100 mean",
          "diversity_top100": "top-100 diversity", "yield": "Yield (strict)", "circles": "#Circles (strict)",
          "s_per_1000_calls": "wall seconds per 1,000 oracle calls (2-core machine, shared)"}


@dataclass(frozen=True)
class Method:
    label: str
    root: Path
    variant: str

    @classmethod
    def parse(cls, text: str) -> "Method":
        label, sep, rest = text.partition("=")
        root, sep2, variant = rest.rpartition(":")
        if not (sep and sep2 and label and root and variant):
            raise SystemExit(f"--method {text!r}: expected LABEL=ROOT:VARIANT")
        return cls(label, Path(root), variant)


#: the run records that carry a run's wall time: mara-chem's runner's, the peers'
RECORD_NAMES = (DONE_NAME, PEER_RECORD_NAME)


def wall_seconds(run_dir: Path) -> float:
    """The run's wall time from its record (NaN when it has none)."""
    for name in RECORD_NAMES:
        if (run_dir / name).exists():
            return float(json.loads((run_dir / name).read_text()).get("wall_s", math.nan))
    return math.nan


def run_metrics(log_path: Path, task: Task, budget: int) -> dict[str, float]:
    """The table's numbers for one run (docs/metrics.md conventions), and its cost (s per 1,000 calls)."""
    log = read_oracle_log(log_path)
    molecules = log.molecules(budget)
    calls = log.counts(budget)["n_calls"]
    ranked = sorted(molecules, key=lambda m: (-(m.score if not math.isnan(m.score) else -math.inf), m.call))
    top100 = [m for m in ranked[:100] if not math.isnan(m.score)]
    found = hits(molecules, task.strict, budget)
    hit_fps = fingerprints([m.smiles for m in found])
    diversity = mean_pairwise_distance_fps(fingerprints([m.smiles for m in top100]))
    return {
        "auc_top10": top_k_auc(molecules, budget, calls),
        "top10": top_k_mean([m.score for m in molecules], 10),
        "top100": top_k_mean([m.score for m in molecules], 100),
        "diversity_top100": math.nan if diversity is None else diversity,
        "yield": float(len(found)),
        "circles": float(n_circles_fps(hit_fps)),
        "calls": float(calls),
        "s_per_1000_calls": 1000 * wall_seconds(log_path.parent) / max(calls, 1),
    }


#: a run's numbers, kept beside its log (#Circles over thousands of hits costs seconds a run); bump to recompute
CACHE_NAME, CACHE_VERSION = "pmo_table_metrics.json", 1


def cached_run_metrics(log_path: Path, task: Task, budget: int) -> dict[str, float]:
    """:func:`run_metrics`, read back from the run folder when the log, the task, the budget and this code's
    cache version are those it was computed for (a log that grew or was rewritten is measured again)."""
    stat = log_path.stat()
    key = {"log_bytes": stat.st_size, "log_mtime_ns": stat.st_mtime_ns, "task_sha256": task.sha256,
           "budget": budget, "version": CACHE_VERSION}
    cache = log_path.parent / CACHE_NAME
    try:
        stored = json.loads(cache.read_text())
        if stored.get("key") == key:
            return stored["metrics"]
    except (OSError, ValueError):
        pass
    metrics = run_metrics(log_path, task, budget)
    cache.write_text(json.dumps({"key": key, "metrics": metrics}, default=float))
    return metrics


def collect(methods: list[Method], tasks: list[Task], budget: int) -> dict[str, dict[str, dict[int, dict]]]:
    """method label -> task name -> seed -> metrics, for every finished run (an oracle log and the record its
    runner writes at the end: a run still going, or one killed, is left out rather than read as stopped early)."""
    out: dict[str, dict[str, dict[int, dict]]] = {}
    for m in methods:
        for t in tasks:
            for log in sorted((m.root / t.name / m.variant).glob("seed*/oracle_log.csv")):
                if not any((log.parent / name).exists() for name in RECORD_NAMES):
                    continue
                seed = int(re.sub(r"\D", "", log.parent.name))
                out.setdefault(m.label, {}).setdefault(t.name, {})[seed] = cached_run_metrics(log, t, budget)
    return out


def recorded_runs(path: Path) -> dict[str, dict[str, dict[int, dict]]]:
    """The per-run numbers an earlier build of the table wrote (``pmo_runs.json``; empty when there is none)."""
    if not path.exists():
        return {}
    return {label: {task: {int(seed): metrics for seed, metrics in seeds.items()} for task, seeds in by_task.items()}
            for label, by_task in json.loads(path.read_text()).items()}


def keep_recorded(data: dict, recorded: dict, methods: list[Method], tasks: list[Task]) -> int:
    """Adds to ``data`` the recorded runs of these methods and tasks that ``data`` lacks (their folders are gone);
    returns how many."""
    kept = 0
    for m in methods:
        for t in tasks:
            for seed, metrics in recorded.get(m.label, {}).get(t.name, {}).items():
                runs = data.setdefault(m.label, {}).setdefault(t.name, {})
                if seed not in runs:
                    runs[seed] = metrics
                    kept += 1
    return kept


def _cell(values: list[float], digits: int) -> str:
    vals = [v for v in values if not math.isnan(v)]
    if not vals:
        return "–"
    mean = float(np.mean(vals))
    if len(vals) == 1:
        return f"{mean:.{digits}f} (1 seed)"
    return f"{mean:.{digits}f} ± {float(np.std(vals, ddof=1)):.{digits}f}"


def seed_sums(runs: dict[str, dict[int, dict]], tasks: list[Task], key: str) -> dict[int, float]:
    """Per seed, the sum over the tasks of ``key`` (only seeds run on every task)."""
    seeds = set.intersection(*(set(runs.get(t.name, {})) for t in tasks)) if tasks else set()
    return {s: sum(runs[t.name][s][key] for t in tasks) for s in sorted(seeds)}


#: the summary row's reduction over tasks: a sum (PMO's sum row) or a mean per task
SUMMED = ("auc_top10", "top10", "top100", "yield", "circles")


def summary_lines(data: dict, labels: list[str], tasks: list[Task]) -> list[str]:
    """One row per method over the tasks: sums of AUC, top-k means, Yield and #Circles, means of top-100 diversity
    and of the cost, each the mean over the seeds run on every task (n seeds given)."""
    lines = ["Over all tasks, per method (mean over the seeds run on every task): sums of AUC top-10, top-10 and "
             "top-100 means, strict Yield and #Circles; per-task means of top-100 diversity and of the cost.", "",
             "| method | seeds | " + " | ".join(LABELS[k] for k in METRICS) + " |", "|---|---|" + "---|" * len(METRICS)]
    for label in labels:
        cells = []
        for key in METRICS:
            sums = list(seed_sums(data[label], tasks, key).values())
            value = float(np.mean(sums)) if sums else math.nan
            value = value if key in SUMMED else value / len(tasks)
            digits = 0 if key in ("yield", "circles", "s_per_1000_calls") else (2 if key in SUMMED else 3)
            cells.append("–" if math.isnan(value) else f"{value:,.{digits}f}")
        n = len(seed_sums(data[label], tasks, "auc_top10"))
        lines.append(f"| {label} | {n} | " + " | ".join(cells) + " |")
    return lines + [""]


def markdown(data: dict, methods: list[Method], tasks: list[Task], budget: int, command: str, kept: int = 0) -> str:
    labels = [m.label for m in methods if m.label in data]
    lines = ["# PMO table", "", f"Generated by `{command}`. Budget {budget} oracle calls (unique valid molecules). "
             "Cells: mean ± sample std over seeds; every number from the run's oracle log through mara-chem's "
             "metric functions (docs/metrics.md). Yield and #Circles at each task's strict threshold."
             + (f" {kept} runs are read from this folder's pmo_runs.json, as measured on the machine that made them "
                "(their run folders are not here)." if kept else ""), ""]
    lines += ["## AUC top-10", "", "| task | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
    for t in tasks:
        lines.append(f"| {t.name} | " + " | ".join(
            _cell([r["auc_top10"] for r in data[l].get(t.name, {}).values()], 3) for l in labels) + " |")
    sums = {l: seed_sums(data[l], tasks, "auc_top10") for l in labels}
    lines.append("| **sum** (per-seed sums) | " + " | ".join(
        f"**{_cell(list(sums[l].values()), 2)}**" if sums[l] else "incomplete" for l in labels) + " |")
    lines.append("")
    if len(labels) > 1:
        lines += ["Welch p of the per-seed AUC sums (row against column):", "",
                  "| | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
        for a in labels:
            cells = []
            for b in labels:
                p = welch_p(list(sums[a].values()), list(sums[b].values())) if a != b else math.nan
                cells.append("–" if math.isnan(p) else f"{p:.3g}")
            lines.append(f"| {a} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += summary_lines(data, labels, tasks)
    shared = [t for t in tasks if all(seed_sums(data[l], [t], "auc_top10") for l in labels)]
    if 0 < len(shared) < len(tasks):  # a method is incomplete: the same figures over the tasks all have run
        lines += [f"The same over the {len(shared)} tasks every method has run ({', '.join(t.name for t in shared)}):",
                  ""] + summary_lines(data, labels, shared)[2:]
    lines += ["Published sums over the 20 offline objectives (other prior, oracle package versions PyTDC vs "
              "guacamol 0.5.5; a guide, not a like-for-like comparison):", "",
              "| method | sum | source |", "|---|---|---|"]
    lines += [f"| {name} | {value:.2f} | {src} |" for name, value, src in PUBLISHED]
    lines.append("")
    for key in METRICS[1:]:
        digits = 0 if key in ("yield", "circles", "s_per_1000_calls") else 3
        lines += [f"## {LABELS[key]}", "", "| task | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
        for t in tasks:
            lines.append(f"| {t.name} | " + " | ".join(
                _cell([r[key] for r in data[l].get(t.name, {}).values()], digits) for l in labels) + " |")
        lines.append("")
    short = [f"{l}: {t.name} seed {seed} ({r['calls']:,.0f} calls)" for l in labels for t in tasks
             for seed, r in sorted(data[l].get(t.name, {}).items()) if r["calls"] < budget]
    if short:
        counts = []
        for label in labels:
            runs = [r for t in tasks for r in data[label].get(t.name, {}).values()]
            stopped = sum(1 for r in runs if r["calls"] < budget)
            if stopped:
                counts.append(f"{label} {stopped} of {len(runs)}")
        lines += ["## Stopped early", "", "These finished runs paid fewer calls than the budget (the reason is in "
                  "each run's record); their AUC holds the last top-10 flat to the budget, as PMO's does. Per method: "
                  + "; ".join(counts) + ". The runs: " + "; ".join(short) + ".", ""]
    missing = [f"{l}: {t.name}" for l in labels for t in tasks if not data[l].get(t.name)]
    if missing:
        lines += ["## Missing", "", "No run yet for: " + "; ".join(missing) + ".", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=["pmo_zinc"])
    p.add_argument("--method", action="append", required=True, help="LABEL=ROOT:VARIANT (repeat)")
    p.add_argument("--budget", type=int, default=10_000)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--only-present", action="store_true",
                   help="leave out the runs OUT/pmo_runs.json records whose folders are not here")
    p.add_argument("--recorded", type=Path, action="append", default=[], metavar="FILE",
                   help="another table's pmo_runs.json: its runs of these labels fill the runs missing here (repeat)")
    args = p.parse_args(argv)
    methods = [Method.parse(m) for m in args.method]
    tasks = resolve_tasks(args.tasks)
    data = collect(methods, tasks, args.budget)
    for path in args.recorded:
        if not path.is_file():
            raise SystemExit(f"--recorded {path}: no such file")
    kept = 0
    if not args.only_present:  # this table's own record first, then the others in the order given
        for path in [args.out / "pmo_runs.json", *args.recorded]:
            kept += keep_recorded(data, recorded_runs(path), methods, tasks)
    command = "python benchmarks/pmo_table.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pmo_table.md").write_text(markdown(data, methods, tasks, args.budget, command, kept))
    (args.out / "pmo_runs.json").write_text(json.dumps(data, indent=1, default=float))
    print(f"wrote {args.out / 'pmo_table.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
