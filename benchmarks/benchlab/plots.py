"""PNG figures: hits and #Circles vs oracle calls (mean ± std band over seeds), score distributions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from benchlab.tasks import Task
from benchlab.variants import Variant


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_curves(path: Path, task: Task, curves: dict[str, list[dict[str, Any]]], kind: str,
                variants: dict[str, Variant], circle_order: str) -> None:
    """Mean curve with a ±1 std band over seeds per variant; left panel lenient τ, right panel strict τ."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for ax, level in zip(axes, ("lenient", "strict")):
        for s, runs in curves.items():
            if not runs:
                continue
            x = np.asarray(runs[0][level]["calls" if kind == "hits" else "circle_calls"])
            ys = np.asarray([r[level][kind] for r in runs], dtype=float)
            mean, std = ys.mean(axis=0), ys.std(axis=0, ddof=1) if len(ys) > 1 else np.zeros(ys.shape[1])
            color = variants[s].color
            ax.plot(x, mean, color=color, label=f"{variants[s].label} (n={len(ys)})", lw=1.5)
            if len(ys) > 1:
                ax.fill_between(x, mean - std, mean + std, color=color, alpha=0.2, lw=0)
        ylabel = "unique hits" if kind == "hits" else f"#Circles of hits (t = 0.75, {circle_order} order)"
        ax.set(title=f"{task.name}: score ≥ {getattr(task, level)}", xlabel="oracle calls", ylabel=ylabel)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def plot_scores(path: Path, task: Task, scores: dict[str, list[float]], variants: dict[str, Variant]) -> None:
    """Distribution of the unique molecules' scores per variant (all seeds pooled), log-scale counts."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    bins = np.linspace(0, 1, 41)
    for s, values in scores.items():
        if values:
            ax.hist(values, bins=bins, histtype="step", color=variants[s].color, lw=1.5, label=variants[s].label,
                    weights=np.full(len(values), 1.0 / len(values)))
    for t in task.thresholds:
        ax.axvline(t, color="grey", ls="--", lw=1)
    ax.set_yscale("log")
    ax.set(title=f"{task.name}: scores of unique molecules", xlabel="score", ylabel="fraction of molecules")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
