"""Curves over oracle calls, on a common grid so a multi-seed runner can average them across runs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mara_chem.metrics.diversity import CIRCLE_DISTANCE, FingerprintSpec, circle_centres, fingerprints, n_circles_fps
from mara_chem.run_folder.oracle_log import LogTable, LoggedMolecule, unique_molecules
from mara_chem.metrics.yield_ob import hits

LogLike = LogTable | pd.DataFrame


def log_frame(log: LogLike) -> pd.DataFrame:
    """The log DataFrame (``LogTable.df`` or a frame with call, smiles, score and optionally step/canonical)."""
    return log.df if isinstance(log, LogTable) else log


def molecules_of(log: LogLike, budget: int | None = None) -> list[LoggedMolecule]:
    """Unique molecules at their first call <= budget (same rule as the metrics)."""
    df = log_frame(log)
    steps = df["step"].tolist() if "step" in df else None
    canonical = df["canonical"].tolist() if "canonical" in df else None
    return unique_molecules(df["call"].tolist(), df["smiles"].tolist(), df["score"].tolist(),
                            budget=budget, steps=steps, canonical=canonical)


def call_grid(budget: int, points: int) -> np.ndarray:
    """``points`` + 1 evenly spaced integer call counts from 0 to the budget (both included)."""
    return np.unique(np.linspace(0, budget, max(1, points) + 1).round().astype(int))


def hits_curve(log: LogLike, threshold: float, budget: int, points: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """(calls, hits): unique hits (score >= τ) found within the first ``calls`` oracle calls."""
    calls = call_grid(budget, points)
    hit_calls = np.array([m.call for m in hits(molecules_of(log, budget), threshold)], dtype=int)
    return calls, np.searchsorted(hit_calls, calls, side="right")


def circles_curve(log: LogLike, threshold: float, budget: int, points: int = 20, t: float = CIRCLE_DISTANCE,
                  seed: int | None = None, spec: FingerprintSpec = FingerprintSpec()) -> tuple[np.ndarray, np.ndarray]:
    """(calls, #Circles of the hits within the first ``calls`` calls), same packing rule and seed as the metric."""
    calls = call_grid(budget, points)
    found = hits(molecules_of(log, budget), threshold)
    fps = fingerprints([m.smiles for m in found], spec)
    hit_calls = np.array([m.call for m in found], dtype=int)
    ends = np.searchsorted(hit_calls, calls, side="right")
    if seed is None:  # discovery order: one packing pass, counted over each prefix
        centres = np.concatenate([[0], np.cumsum(circle_centres(fps, t))])
        return calls, centres[ends].astype(int)
    counts = [n_circles_fps(fps[: int(end)], t, seed) for end in ends]  # a random order repacks every prefix
    return calls, np.asarray(counts, dtype=int)


def score_per_step(log: LogLike, budget: int | None = None) -> pd.DataFrame:
    """Best and mean finite score per RL step over that step's oracle calls (new molecules only)."""
    df = log_frame(log)
    if budget is not None:
        df = df[df["call"] <= budget]
    df = df[np.isfinite(df["score"].astype(float))]
    grouped = df.groupby("step")["score"]
    return pd.DataFrame({"best": grouped.max(), "mean": grouped.mean(), "calls": grouped.size()}).reset_index()
