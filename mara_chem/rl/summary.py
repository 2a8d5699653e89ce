"""REINVENT-style per-step summary CSV (every sampled SMILES) and the live progress line."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

SMILES_INVALID, SMILES_VALID, SMILES_DUPLICATE = 0, 1, 2


class SummaryCsv:
    """Columns and number formats as REINVENT 4.8 writes them (``RL/reports/csv_summmary.py``): NLLs and
    Target with 4 decimals, Score and each endpoint's transformed score with 7, raw values with 4; the
    Scaffold column only with a diversity filter; each endpoint as ``name, name (raw)``; then ``step``."""

    def __init__(self, path: Path, endpoints: list[str], scaffold: bool = True):
        self.path = path
        self.endpoints = list(endpoints)
        self.columns = ["Agent", "Prior", "Target", "Score", "SMILES", "SMILES_state",
                        *(["Scaffold"] if scaffold else []),
                        *(column for e in endpoints for column in (e, f"{e} (raw)")), "step"]

    def truncate_after(self, step: int) -> None:
        """Drop rows of steps after ``step`` (they are redone after a resume)."""
        if not self.path.exists():
            return
        with open(self.path, newline="") as handle:
            rows = [r for r in csv.DictReader(handle) if r.get("step", "").isdigit() and int(r["step"]) <= step]
        with open(self.path, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=self.columns)
            writer.writeheader()
            writer.writerows(rows)

    def append(self, rows: list[dict[str, object]]) -> None:
        append_csv_rows(self.path, self.columns, rows)


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
