"""Oracle budget, cache and the append-only oracle log.

One oracle call is the first scoring of a new valid canonical SMILES within a stage; repeats come from the
cache for free. The log on disk is the source of truth: on resume the cache and the call counters are
rebuilt from it, so calls paid for before a kill are neither lost nor charged twice.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mara_chem.rl.summary import append_csv_rows
from mara_chem.scoring.scorer import Scorer

LOG_NAME = "oracle_log.csv"


@dataclass
class Scored:
    total: float  # NaN when scoring failed
    scores: dict[str, float]
    raw: dict[str, float]
    reason: str | None
    call: int


def _fmt(value: float) -> str:
    return "" if value is None or not math.isfinite(value) else repr(float(value))


def _parse(value: str) -> float:
    try:
        return float(value) if value != "" else math.nan
    except ValueError:
        return math.nan


class OracleLog:
    """CSV with columns call, step, stage, smiles, score, one per endpoint, one ``<endpoint>_raw`` each, reason."""

    def __init__(self, path: Path, endpoints: list[str]):
        self.path = path
        self.endpoints = endpoints
        self.columns = ["call", "step", "stage", "smiles", "score", *endpoints, *(f"{e}_raw" for e in endpoints), "reason"]

    def read(self) -> list[dict[str, str]]:
        """Complete rows already on disk; a torn last line (killed mid-write) is cut off the file."""
        if not self.path.exists():
            return []
        text = self.path.read_text()
        if text and not text.endswith("\n"):
            text = text[: text.rfind("\n") + 1]
            self.path.write_text(text)
        rows = list(csv.DictReader(text.splitlines()))
        if rows and list(rows[0].keys()) != self.columns:
            raise RuntimeError(f"{self.path} was written by a run with other scoring endpoints")
        return rows

    def append(self, rows: list[dict[str, object]]) -> None:
        append_csv_rows(self.path, self.columns, rows)


class Oracle:
    """Scores canonical SMILES for one stage, charging each new molecule once against the budget."""

    def __init__(self, scorer: Scorer, log: OracleLog, stage: int, budget: int | None, call_offset: int = 0):
        self.scorer = scorer
        self.log = log
        self.stage = stage
        self.budget = budget
        self.cache: dict[str, Scored] = {}
        self.calls = 0  # charged in this stage
        self.next_call = call_offset + 1  # global 1-based call index

    @property
    def remaining(self) -> int | None:
        return None if self.budget is None else self.budget - self.calls

    @property
    def exhausted(self) -> bool:
        return self.budget is not None and self.calls >= self.budget

    def restore(self, rows: list[dict[str, str]]) -> None:
        """Rebuild cache and counters from log rows (all stages; only this stage's rows fill the cache)."""
        for row in rows:
            call = int(row["call"])
            self.next_call = max(self.next_call, call + 1)
            if int(row["stage"]) != self.stage:
                continue
            self.calls += 1
            self.cache[row["smiles"]] = Scored(
                total=_parse(row["score"]),
                scores={e: _parse(row.get(e, "")) for e in self.scorer.endpoint_names},
                raw={e: _parse(row.get(f"{e}_raw", "")) for e in self.scorer.endpoint_names},
                reason=row.get("reason") or None,
                call=call,
            )

    def score(self, smiles: list[str], step: int) -> dict[str, Scored]:
        """Scores for the given unique canonical SMILES that are cached or fit in the budget."""
        new = [s for s in dict.fromkeys(smiles) if s not in self.cache]
        if self.remaining is not None:
            new = new[: max(0, self.remaining)]
        if new:
            result = self.scorer(new)
            rows = []
            for i, smi in enumerate(new):
                entry = Scored(
                    total=float(result.total[i]),
                    scores={e: float(result.scores[e][i]) for e in self.scorer.endpoint_names},
                    raw={e: float(result.raw[e][i]) for e in self.scorer.endpoint_names},
                    reason=result.reasons[i],
                    call=self.next_call,
                )
                self.cache[smi] = entry
                rows.append(self._row(smi, entry, step))
                self.next_call += 1
                self.calls += 1
            self.log.append(rows)
        return {s: self.cache[s] for s in smiles if s in self.cache}

    def _row(self, smiles: str, entry: Scored, step: int) -> dict[str, object]:
        row: dict[str, object] = {"call": entry.call, "step": step, "stage": self.stage, "smiles": smiles,
                                  "score": _fmt(entry.total), "reason": entry.reason or ""}
        for e in self.log.endpoints:
            row[e] = _fmt(entry.scores.get(e, math.nan))
            row[f"{e}_raw"] = _fmt(entry.raw.get(e, math.nan))
        return row


def scores_array(smiles: list[str | None], scored: dict[str, Scored]) -> np.ndarray:
    """Per-sample total score; NaN for invalid, unscored or failed molecules."""
    return np.array([scored[s].total if s is not None and s in scored else math.nan for s in smiles], dtype=float)

