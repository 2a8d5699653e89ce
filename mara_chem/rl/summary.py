"""What a step reports: REINVENT-style summary CSV rows (every sampled SMILES), the step's record, the
progress line and the running hit count."""

from __future__ import annotations

import csv
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mara_chem.chem.smiles import SmilesState

if TYPE_CHECKING:
    from mara_chem.rl.config import RunConfig, Stage
    from mara_chem.rl.step_samples import StepSamples

LEADING_COLUMNS = ("Agent", "Prior", "Target", "Score", "SMILES", "SMILES_state")  # then Scaffold, with a filter


def raw_column(endpoint: str) -> str:
    """The summary column of an endpoint's raw (untransformed) value."""
    return f"{endpoint} (raw)"


class SummaryCsv:
    """Columns and number formats as REINVENT 4.8 writes them (``RL/reports/csv_summmary.py``): NLLs and
    Target with 4 decimals, Score and each endpoint's transformed score with 7, raw values with 4; the
    Scaffold column only with a diversity filter; each endpoint as ``name, name (raw)``; then ``step``."""

    def __init__(self, path: Path, endpoints: list[str], scaffold: bool = True):
        self.path = path
        self.endpoints = list(endpoints)
        self.columns = [*LEADING_COLUMNS, *(["Scaffold"] if scaffold else []),
                        *(column for e in endpoints for column in (e, raw_column(e))), "step"]

    def truncate_after(self, step: int) -> None:
        """Drop rows of steps after ``step`` (they are redone after a resume); the file is replaced atomically."""
        if not self.path.exists():
            return
        with open(self.path, newline="") as handle:
            text = handle.read()
        rows = list(csv.DictReader(text.splitlines()))
        kept = [r for r in rows if (r.get("step") or "").isdigit() and int(r["step"]) <= step]
        if len(kept) == len(rows) and text.endswith("\n"):
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=self.columns)
            writer.writeheader()
            writer.writerows(kept)
        os.replace(tmp, self.path)

    def append(self, rows: list[dict[str, object]]) -> None:
        append_csv_rows(self.path, self.columns, rows)

    def append_step(self, samples: StepSamples, step: int) -> None:
        """One row per sampled SMILES of a step, as REINVENT writes them."""
        self.append(self.rows(samples, step))

    def rows(self, samples: StepSamples, step: int) -> list[dict[str, object]]:
        rows = []
        for i, smi in enumerate(samples.raw):
            c, state, has_score = samples.canonical[i], samples.states[i], samples.has_score[i]
            entry = samples.scored.get(c) if c else None
            score = samples.filtered[i] if has_score else None
            row: dict[str, object] = {
                **{name: reinvent_number(samples.columns[name][i] if has_score else None, 4)
                   for name in ("Agent", "Prior", "Target")},
                "Score": reinvent_number(0.0 if state == SmilesState.INVALID else score, 7),
                "SMILES": c or smi, "SMILES_state": int(state), "step": step,
            }
            if "Scaffold" in self.columns:
                row["Scaffold"] = (samples.scaffolds[c] or "") if c else ""
            for name in self.endpoints:
                # REINVENT: invalid rows 0 and 0; duplicates' transformed scores 0 (raw kept); unscored rows empty
                if state == SmilesState.INVALID:
                    value, raw = 0.0, 0.0
                elif entry is None:
                    value = raw = None
                else:
                    value = 0.0 if state == SmilesState.DUPLICATE else entry.scores.get(name, math.nan)
                    raw = entry.raw.get(name, math.nan)
                row[name], row[raw_column(name)] = reinvent_number(value, 7), reinvent_number(raw, 4)
            rows.append(row)
        return rows


def endpoint_union(stages: list[Stage]) -> list[str]:
    """Every endpoint name of these stages' scoring, in first-seen order (the oracle log's columns)."""
    names: list[str] = []
    for stage in stages:
        for entry in stage.scoring.component:
            for spec in entry.values():
                names.extend(ep.name for ep in spec.endpoint if ep.name not in names)
    return names


def stage_summary(config: RunConfig, stage_index: int) -> SummaryCsv:
    """``summary_<N>.csv`` of a stage: its own endpoints; a Scaffold column when it has a diversity filter."""
    stage = config.stage[stage_index]
    return SummaryCsv(Path(f"{config.parameters.summary_csv_prefix}_{stage_index + 1}.csv"),
                      endpoint_union([stage]), scaffold=config.filter_for(stage) is not None)


def reinvent_number(value: float | None, decimals: int) -> str:
    """REINVENT's fixed-decimal format (a failed score is ``nan``, as REINVENT writes it); empty for a value
    that does not exist (a row the oracle budget left unscored)."""
    return "" if value is None else f"{float(value):.{decimals}f}"


def append_csv_rows(path: Path, columns: list[str], rows: list[dict[str, object]]) -> None:
    """Append rows (header first if the file is new or empty) and flush, so a kill loses at most a torn line."""
    new = not path.exists() or path.stat().st_size == 0
    with open(path, "a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        if new:
            writer.writeheader()
        writer.writerows(rows)
        handle.flush()


@dataclass
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


#: the StepRecord fields written to TensorBoard each step
TENSORBOARD_SCALARS = ("calls_used", "valid_fraction", "duplicate_fraction", "mean_score", "best_score", "hits",
                       "hit_scaffolds", "loss", "seconds")


class TensorBoardScalars:
    """Each step's figures as TensorBoard scalars under ``tb_logdir`` (nothing without one; the writer, and so
    tensorboard, only on the first step)."""

    def __init__(self, logdir: str | None) -> None:
        self.logdir = logdir
        self._writer: Any = None

    def add(self, record: StepRecord) -> None:
        if not self.logdir:
            return
        if self._writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(self.logdir)
        values = asdict(record)
        for key in TENSORBOARD_SCALARS:
            self._writer.add_scalar(key, values[key], record.step)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()


def mean_scored(samples: StepSamples) -> float:
    """Mean total score over a step's scored valid rows (failed scores count as 0, unscored rows are left out)."""
    mask = np.array([c is not None and c in samples.scored for c in samples.canonical])
    return float(np.nan_to_num(samples.totals[mask], nan=0.0).mean()) if mask.any() else 0.0


def progress_line(r: StepRecord, hit_threshold: float) -> str:
    budget = f"/{r.budget}" if r.budget else ""
    return (f"stage {r.stage} step {r.step:4d} | oracle {r.calls_used}{budget} | valid {r.valid_fraction:4.0%} "
            f"dup {r.duplicate_fraction:4.0%} | mean {r.mean_score:.3f} best {r.best_score:.3f} | "
            f"hits>={hit_threshold:g} {r.hits} ({r.hit_scaffolds} scaffolds) | {r.seconds:.2f} s")


@dataclass
class HitTracker:
    """Running hits (unique molecules with score >= threshold) and their scaffolds, for the progress line."""

    threshold: float
    hits: set[str] = field(default_factory=set)
    scaffolds: set[str] = field(default_factory=set)
    best: float = 0.0

    def update(self, smiles: str, score: float, scaffold: str | None) -> None:
        if math.isfinite(score):
            self.best = max(self.best, score)
            if score >= self.threshold and smiles not in self.hits:
                self.hits.add(smiles)
                self.scaffolds.add(scaffold or "")

    def state_dict(self) -> dict[str, Any]:
        """Plain data for the checkpoint."""
        return {"threshold": self.threshold, "hits": sorted(self.hits), "scaffolds": sorted(self.scaffolds),
                "best": self.best}

    @classmethod
    def from_state_dict(cls, state: dict[str, Any]) -> HitTracker:
        return cls(state["threshold"], set(state["hits"]), set(state["scaffolds"]), state["best"])
