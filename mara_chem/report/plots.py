"""Matplotlib figures for the report, returned as base64 PNG so the page is self-contained.

Figures are built as ``matplotlib.figure.Figure`` objects and rendered by their own Agg canvas, without
pyplot, so importing this module or making a report neither selects nor changes the process's backend.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def new_axes(figsize: tuple[float, float] = (5.5, 3.5)) -> tuple[Figure, Axes]:
    """A figure with its own Agg canvas (not registered with pyplot, so nothing to close)."""
    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def figure_png(fig: Figure) -> str:
    """Encode a figure as base64 PNG."""
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=100)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def curve_png(x: np.ndarray, y: np.ndarray, title: str, ylabel: str, budget: int | None = None,
              sampled: bool = False) -> str:
    """A curve over oracle calls: a step for dense counts (hits), points joined by lines if ``sampled`` (#Circles)."""
    fig, ax = new_axes()
    if sampled:
        ax.plot(x, y, marker="o", markersize=3)
    else:
        ax.step(x, y, where="post")
    ax.set(title=title, xlabel="oracle calls", ylabel=ylabel)
    if budget is not None:
        ax.set_xlim(0, budget)
    ax.grid(alpha=0.3)
    return figure_png(fig)


def score_per_step_png(per_step: pd.DataFrame, threshold: float) -> str:
    """Best and mean score of each step's oracle calls, with the threshold line."""
    fig, ax = new_axes()
    ax.plot(per_step["step"], per_step["best"], label="best")
    ax.plot(per_step["step"], per_step["mean"], label="mean")
    ax.axhline(threshold, color="grey", linestyle="--", label=f"τ = {threshold}")
    ax.set(title="Score per step (oracle calls of the step)", xlabel="step", ylabel="score")
    ax.legend()
    ax.grid(alpha=0.3)
    return figure_png(fig)


def histogram_png(scores: Sequence[float], threshold: float) -> str:
    """Histogram of the unique molecules' finite scores, with the threshold line."""
    fig, ax = new_axes()
    values = np.asarray([s for s in scores if np.isfinite(s)], dtype=float)
    ax.hist(values, bins=50, range=(0.0, 1.0))
    ax.axvline(threshold, color="grey", linestyle="--", label=f"τ = {threshold}")
    ax.set(title="Score histogram (unique molecules)", xlabel="score", ylabel="molecules")
    ax.legend()
    return figure_png(fig)
