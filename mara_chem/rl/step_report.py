"""What one step reports, as one frozen record handed to every reporter (:mod:`mara_chem.rl.reporters`), as
REINVENT's ``RLReportData`` is: the step's figures (:class:`StepRecord`, also the checkpoint's history) and its
samples (the summary CSV's rows)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from mara_chem.rl.step_samples import StepSamples


@dataclass(frozen=True)
class StepRecord:
    """One step's figures: the progress line, TensorBoard and the checkpoint's history."""

    stage: int
    step: int
    calls_used: int
    budget: int | None
    valid_fraction: float
    duplicate_fraction: float
    mean_score: float
    best_score: float
    hits: int
    hit_scaffolds: int
    loss: float
    seconds: float
    non_oracle_seconds: float


@dataclass(frozen=True)
class StepReport:
    """The end of one step: its figures and its samples (read, never changed, by the reporters)."""

    record: StepRecord
    samples: StepSamples
    hit_threshold: float


def mean_scored(samples: StepSamples) -> float:
    """Mean total score over a step's scored valid rows (failed scores count as 0, unscored rows are left out)."""
    mask = np.array([c is not None and c in samples.scored for c in samples.canonical])
    return float(np.nan_to_num(samples.totals[mask], nan=0.0).mean()) if mask.any() else 0.0
