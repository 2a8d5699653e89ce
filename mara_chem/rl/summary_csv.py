"""The summary CSV of a stage (``<summary_csv_prefix>_<N>.csv``): one row per sampled SMILES, as REINVENT 4.8
writes it, and the CSV appender the scoring run mode shares."""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING

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
