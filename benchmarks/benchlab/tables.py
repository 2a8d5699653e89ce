"""The Markdown results page: provenance, the strict-threshold headline per task and overall against DAP, every
metric per task, hits per region, diagnostics, runs and figures."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchlab.diagnostics import DIAGNOSTICS
from benchlab.paths import REPO
from benchlab.run_metrics import METRIC_LABELS
from benchlab.stats import welch_p
from benchlab.tasks import Task
from benchlab.variants import BASELINE, Variant

AIM_YIELD, AIM_CIRCLES = 2.0, 1.2
"""The aim of a diversity strategy: strict Yield ≥ 2× DAP's and #Circles ≥ 1.2× DAP's with IntDiv1 no lower."""
PMO_GROUP = "pmo"
PMO_PRIOR_NOTE = ("PMO tasks: the prior here is trained on MOSES, unlike the ZINC 250k prior of PMO's REINVENT, so "
                  "these figures are not comparable one to one with published REINVENT/PMO figures.")


def _cell(entry: dict[str, Any], key: str, digits: int, show_p: bool, total: int) -> str:
    mean, std, n, p = (entry[f"{key}.{x}"] for x in ("mean", "std", "n", "p_vs_dap"))
    if not math.isfinite(mean):
        return "not reached" if key.startswith("ob_n") else "n/a"
    text = f"{mean:.{digits}f}" + (f" ± {std:.{digits}f}" if n > 1 else "")
    if key.startswith("ob_n") and n < total:
        text += f" ({n}/{total} seeds)"
    if show_p and math.isfinite(p):
        text += f" (p={p:.2g})"
    return text


def _ratio(entry: dict[str, Any], base: dict[str, Any] | None, key: str) -> str:
    if base is None or entry is base:
        return ""
    a, b = entry[f"{key}.mean"], base[f"{key}.mean"]
    if not (math.isfinite(a) and math.isfinite(b)) or b == 0:
        return ""
    p = entry[f"{key}.p_vs_dap"]
    return f" ({a / b:.2f}×{', p=' + format(p, '.2g') if math.isfinite(p) else ''})"


def _col_label(key: str, ob_n: int, task: Task) -> str:
    metric, _, level = key.partition("@")
    label = METRIC_LABELS[metric].format(n=ob_n)
    return f"{label} @{getattr(task, level)}" if level else label


def headline_table(summary: list[dict[str, Any]], tasks: Sequence[Task], labels: dict[str, str], ob_n: int) -> str:
    """Strict-threshold Yield, OB_N, IntDiv1, #Circles and AUC top-10 per task × variant, each with its ratio to
    DAP's seed mean and the Welch p (no ratios when DAP was not run on the task)."""
    keys = (("yield@strict", 1), ("ob_n@strict", 0), ("intdiv1@strict", 3), ("n_circles@strict", 1),
            ("auc_top10", 3))
    labels_row = " | ".join(METRIC_LABELS[key.partition("@")[0]].format(n=ob_n) for key, _ in keys)
    lines = [f"| task | variant | seeds | {labels_row} |", "|---|---|---|" + "---|" * len(keys)]
    for task in tasks:
        entries = {e["strategy"]: e for e in summary if e["task"] == task.name}
        base = entries.get(BASELINE)
        for s, e in entries.items():
            cells = [_cell(e, k, d, False, e["n_seeds"]) + _ratio(e, base, k) for k, d in keys]
            lines.append(f"| {task.name} (τ = {task.strict}) | {labels[s]} | {e['n_seeds']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


OVERALL_KEYS = ("yield@strict", "n_circles@strict", "intdiv1@strict", "auc_top10")


def _per_seed_means(rows: list[dict[str, Any]], variant: str, task_names: Sequence[str]) -> dict[str, list[float]]:
    """Per seed run on every task, the mean over the tasks of each overall metric."""
    out: dict[str, list[float]] = {k: [] for k in OVERALL_KEYS}
    for seed in sorted({r["seed"] for r in rows if r["strategy"] == variant}):
        runs = [r for r in rows if r["strategy"] == variant and r["seed"] == seed]
        if sorted(r["task"] for r in runs) != sorted(task_names):
            continue
        for k in OVERALL_KEYS:
            out[k].append(float(np.mean([math.nan if r[k] is None else r[k] for r in runs])))
    return out


def overall_table(rows: list[dict[str, Any]], tasks: Sequence[Task], variants: Sequence[Variant]) -> str:
    """Per variant, the per-seed mean over the tasks (only seeds run on every task), its ratio to DAP's and the
    Welch p over seeds, and whether the aim holds on the means."""
    names = [t.name for t in tasks]
    base = _per_seed_means(rows, BASELINE, names)
    if not base["yield@strict"]:
        return "DAP has no seed run on every task yet: no overall comparison.\n"
    lines = ["| variant | seeds | Yield (× DAP, p) | #Circles (× DAP, p) | IntDiv1 (Δ DAP, p) | AUC top-10 (× DAP, p) "
             "| aim met |", "|---|---|---|---|---|---|---|"]
    with warnings.catch_warnings():  # NaN metrics (no hits) are shown as n/a
        warnings.simplefilter("ignore", RuntimeWarning)
        for v in variants:
            vals = _per_seed_means(rows, v.name, names)
            if vals["yield@strict"]:
                lines.append(f"| {v.label} | {len(vals['yield@strict'])} | {_overall_cells(v.name, vals, base)} |")
    return "\n".join(lines) + "\n"


def group_overall_tables(rows: list[dict[str, Any]], tasks: Sequence[Task], variants: Sequence[Variant]) -> str:
    """The overall table of each task group on its own (project tasks, PMO tasks), when the grid spans several:
    the groups' scores differ in scale, so the mean over all tasks is dominated by the larger group."""
    groups = {t.group: [u for u in tasks if u.group == t.group] for t in tasks}
    if len(groups) < 2:
        return ""
    lines = []
    for group, members in groups.items():
        names = {t.name for t in members}
        lines.append(f"### {group} tasks only ({len(members)})\n")
        lines.append(overall_table([r for r in rows if r["task"] in names], members, variants))
    return "\n".join(lines)


def _num_text(value: float, digits: int) -> str:
    return f"{value:.{digits}f}" if math.isfinite(value) else "n/a"


def _overall_cells(name: str, vals: dict[str, list[float]], base: dict[str, list[float]]) -> str:
    mean = {k: float(np.nanmean(vals[k])) for k in OVERALL_KEYS}
    ref = {k: float(np.nanmean(base[k])) for k in OVERALL_KEYS}
    digits = {"yield@strict": 1, "n_circles@strict": 1, "intdiv1@strict": 3, "auc_top10": 3}
    if name == BASELINE:
        return " | ".join(_num_text(mean[k], digits[k]) for k in OVERALL_KEYS) + " | (reference)"
    cells = []
    for k in OVERALL_KEYS:
        p = welch_p(vals[k], base[k])
        extra = [f"p={p:.2g}"] if math.isfinite(p) else []
        if k == "intdiv1@strict" and math.isfinite(mean[k] - ref[k]):
            extra.insert(0, f"{mean[k] - ref[k]:+.3f}")
        elif k != "intdiv1@strict" and ref[k] > 0 and math.isfinite(mean[k]):
            extra.insert(0, f"{mean[k] / ref[k]:.2f}×")
        cells.append(_num_text(mean[k], digits[k]) + (f" ({', '.join(extra)})" if extra else ""))
    aim = (mean["yield@strict"] >= AIM_YIELD * ref["yield@strict"] > 0
           and mean["n_circles@strict"] >= AIM_CIRCLES * ref["n_circles@strict"]
           and mean["intdiv1@strict"] >= ref["intdiv1@strict"])
    return " | ".join(cells) + (" | yes" if aim else " | no")


def markdown_tables(summary: list[dict[str, Any]], tasks: Sequence[Task], ob_n: int, labels: dict[str, str]) -> str:
    """One Markdown table per task: variants as rows; metrics at the strict and lenient thresholds."""
    lines = []
    cols = [("yield@strict", 1), ("ob_n@strict", 0), ("intdiv1@strict", 3), ("n_circles@strict", 1),
            ("n_scaffolds@strict", 1), ("yield@lenient", 1), ("ob_n@lenient", 0), ("intdiv1@lenient", 3),
            ("n_circles@lenient", 1), ("n_scaffolds@lenient", 1), ("auc_top10", 3)]
    for task in tasks:
        entries = [e for e in summary if e["task"] == task.name]
        if not entries:
            continue
        has_base = any(e["strategy"] == BASELINE for e in entries)
        lines.append(f"### {task.name} (strict τ = {task.strict}, lenient τ = {task.lenient})\n")
        head = ["variant", "seeds"] + [_col_label(k, ob_n, task) for k, _ in cols]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for e in entries:
            cells = [labels[e["strategy"]], str(e["n_seeds"])]
            cells += [_cell(e, k, d, has_base and e["strategy"] != BASELINE, e["n_seeds"]) for k, d in cols]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def region_table(rows: list[dict[str, Any]], tasks: Sequence[Task], variants: Sequence[Variant]) -> str:
    """Mean number of strict-threshold hits per high-scoring region (where each variant's hits lie)."""
    lines = []
    without = [t.name for t in tasks if not t.regions and any(r["task"] == t.name for r in rows)]
    if without:
        lines.append(f"No regions defined for: {', '.join(without)}.\n")
    for task in tasks:
        names = [r["name"] for r in task.regions] + ["other"]
        present = [r for r in rows if r["task"] == task.name]
        if not present or not task.regions:
            continue
        lines.append(f"**{task.name}** (hits ≥ {task.strict}, mean over seeds)\n")
        lines.append("| variant | " + " | ".join(names) + " |")
        lines.append("|" + "---|" * (len(names) + 1))
        for v in variants:
            runs = [r for r in present if r["strategy"] == v.name]
            if not runs:
                continue
            means = [np.mean([r["regions@strict"].get(n, 0) for r in runs]) for n in names]
            lines.append(f"| {v.label} | " + " | ".join(f"{m:.1f}" for m in means) + " |")
        lines.append("")
    return "\n".join(lines)


def diagnostics_table(rows: list[dict[str, Any]], tasks: Sequence[Task], variants: Sequence[Variant]) -> str:
    """Seed means of the per-run diagnostics (``benchlab.diagnostics``)."""
    head = ["task", "variant", "dup rate", "strict hits / batch", "batches with ≥ 2", "anchor score",
            "n_o/G molecule", "n_o/G scaffold"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for task in tasks:
        for v in variants:
            runs = [r for r in rows if r["task"] == task.name and r["strategy"] == v.name]
            if not runs:
                continue
            cells = []
            for k in DIAGNOSTICS:
                vals = [r.get(k) for r in runs if r.get(k) is not None]
                cells.append(f"{np.mean(vals):.3g}" if vals else "n/a")
            lines.append(f"| {task.name} | {v.label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def repo_relative(path: str) -> str:
    """``path`` relative to the repository that holds this runner when it lies inside it (a worktree's or a
    clone's absolute path says nothing to a reader), else unchanged."""
    try:
        return str(Path(path).absolute().relative_to(REPO))
    except ValueError:
        return str(path)


def provenance(info: dict[str, Any], tasks: Sequence[Task], variants: Sequence[Variant]) -> list[str]:
    """Command, prior, machine, budget and the harness settings that follow each task's thresholds."""
    lines = [f"Generated {info['created']} by `{info['command']}`."]
    for p in info["priors"]:
        lines.append(f"Prior: `{repo_relative(p['path'])}` (sha256 `{p['sha256'][:16]}…`, epochs {p.get('epochs')}).")
    lines.append(f"Machine: {info['machine']}. Budget {info['budget']} oracle calls, batch {info['batch_size']}.")
    if any(t.group == PMO_GROUP for t in tasks):
        lines.append(PMO_PRIOR_NOTE)
    lines.append("")
    lines.append("| task | lenient τ | strict τ | diversity filter | strict-τ options of the variants |")
    lines.append("|---|---|---|---|---|")
    for t in tasks:
        f = info["filters"][t.name]
        opts = "; ".join(f"{v.name}: τ = {v.options(t)['tau']}" for v in variants if "tau" in v.learning_strategy)
        lines.append(f"| {t.name} | {t.lenient} | {t.strict} | {f['type']}, bucket {f['bucket_size']}, "
                     f"minscore {f['minscore']} | {opts or '–'} |")
    lines.append("")
    own = [v for v in variants if not v.harness.is_default]
    if own:
        lines.append("Variants with their own harness (the filter above, replay memory 100 / sample 10 otherwise):")
        lines.append("")
        lines += [f"- {v.name}: {harness_text(v)}" for v in own]
        lines.append("")
    return lines


def harness_text(variant: Variant) -> str:
    """One line describing a variant's harness."""
    h = variant.harness
    flt = "no diversity filter" if h.diversity_filter == "none" else f"scaffold filter, bucket {h.bucket_size}"
    aug = f", augmented memory {h.augmentation_rounds} rounds" if h.augmentation_rounds else ""
    replay = f"Re:Max replay ({h.replay_mode}s, min score {h.replay_min_score})" if h.replay == "remax" else "replay memory"
    return f"{flt}, {replay} {h.memory_size} / sample {h.sample_size}{aug}"


def results_markdown(info: dict[str, Any], tasks: Sequence[Task], variants: Sequence[Variant],
                     rows: list[dict[str, Any]], summary: list[dict[str, Any]], ob_n: int, out: Path) -> str:
    """The results page."""
    labels = {v.name: v.label for v in variants}
    ran = [v for v in variants if any(r["strategy"] == v.name for r in rows)]
    lines = [f"# Benchmark: {', '.join(v.label for v in ran)}", ""]
    lines += provenance(info, tasks, ran)
    lines.append("Cells: mean ± sample std over seeds (no ± for one seed); in parentheses the ratio to DAP's mean "
                 "and the two-sided Welch t-test p (scipy `ttest_ind`, `equal_var=False`) over the per-seed values. "
                 f"OB{ob_n}: oracle calls to the {ob_n}-th unique hit, averaged over the seeds that reached it. "
                 "IntDiv1 and #Circles (t = 0.75) on ECFP4 (Morgan r = 2, 2048 bits); #Circles visits the hits in "
                 f"{info['circle_order']} order. AUC top-10: PMO convention over the budget. Metrics are "
                 "recomputed from each run's oracle log (docs/metrics.md).")
    lines.append("")
    lines.append("## Headline: strict threshold, per task\n")
    lines.append(headline_table(summary, tasks, labels, ob_n))
    lines.append("## Overall (mean over the tasks per seed)\n")
    lines.append(f"Aim: strict Yield ≥ {AIM_YIELD:g}× DAP's and #Circles ≥ {AIM_CIRCLES:g}× DAP's with IntDiv1 no "
                 "lower, on the seed means. Only seeds run on every task enter.\n")
    lines.append(overall_table(rows, tasks, ran))
    lines.append(group_overall_tables(rows, tasks, ran))
    lines.append("## All metrics per task\n")
    lines.append(markdown_tables(summary, tasks, ob_n, labels))
    lines.append("## Where the strict hits lie (hits per high-scoring region)\n")
    lines.append(region_table(rows, tasks, ran))
    lines.append("## Diagnostics (from the summary CSVs, seed means)\n")
    lines.append("Strict hits / batch: rows whose filtered score is ≥ the strict τ (MARA's high set); batches with "
                 "≥ 2: the fraction of steps where MARA can change a reward; anchor score: the filtered score of "
                 "the most prior-likely strict hit in such batches; n_o/G: mean in-batch frequency of a row's "
                 "outcome (1/G = 0.016 when nothing repeats), for exact molecules and for Murcko scaffolds.\n")
    lines.append(diagnostics_table(rows, tasks, ran))
    lines.append("## Runs\n")
    walls = [r["wall_s"] for r in rows if r.get("wall_s")]
    if walls:
        lines.append(f"{len(rows)} of {len(info['planned'])} planned runs finished; wall time per run "
                     f"{np.mean(walls):.0f} ± {np.std(walls):.0f} s (min {min(walls):.0f}, max {max(walls):.0f}); "
                     "per-run details in `runs.csv`.")
    done = {f"{r['task']}/{r['strategy']}/seed{r['seed']}" for r in rows}
    missing = [k for k in info["planned"] if k not in done]
    if missing:
        lines.append(f"Not finished yet (repeat the command to run them): {', '.join(missing)}.")
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
    return "\n".join(lines) + "\n"
