"""REINVENT-style per-step summary CSV (every sampled SMILES) and the running hit count for the progress line."""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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

    def state_dict(self) -> dict[str, Any]:
        """Plain data for the checkpoint."""
        return {"threshold": self.threshold, "hits": sorted(self.hits), "scaffolds": sorted(self.scaffolds),
                "best": self.best}

    @classmethod
    def from_state_dict(cls, state: dict[str, Any]) -> HitTracker:
        return cls(state["threshold"], set(state["hits"]), set(state["scaffolds"]), state["best"])
