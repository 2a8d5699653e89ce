"""The oracle log (``RUN_DIR/oracle_log.csv``): its format, writer, readers and repair, in one place.

One row per oracle call, appended by the run loop (:class:`OracleLog`) and read back by the loop on resume
and by every metric (:func:`read_oracle_log`):
``call,step,stage,smiles,score,<endpoint>...,<endpoint>_raw...,reason``
(docs/metrics.md, "The oracle log"). ``call`` is the 1-based global call
number (contiguous across stages), ``score`` the aggregated score (empty = NaN = failed, the call is spent).

A batch of rows is appended with one ``write`` on an ``O_APPEND`` descriptor, so a killed process leaves
whole rows; a torn last line (power loss, full disk) is found by :meth:`OracleLog.cut_torn_line`, which the
loop re-records under the same call number. The metrics reader is read-only and robust to what a live (or
killed) run's file can contain: a final partial line (dropped), duplicate SMILES (a molecule counts once, at
its first call), invalid SMILES (skipped and counted) and failed scores (NaN: the call is spent, never a hit).
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from mara_chem.chem.smiles import canonicalize
from mara_chem.text import format_number

LOG_NAME = "oracle_log.csv"
FIXED_COLUMNS = ("call", "step", "smiles", "score")
META_COLUMNS = (*FIXED_COLUMNS, "stage", "reason")  # ``stage`` and ``reason`` are optional for the reader
LEADING_COLUMNS = ("call", "step", "stage", "smiles", "score")  # the writer's first columns, in order


class OracleLogError(ValueError):
    """The oracle log cannot be used as it is: another run's columns, a torn line in the way of an append, or
    a row no run can have written (score outside [0, 1], call number below 1); the message names file and line."""


def log_columns(endpoints: Sequence[str]) -> list[str]:
    """The writer's header for these endpoint names."""
    return [*LEADING_COLUMNS, *endpoints, *(f"{e}_raw" for e in endpoints), "reason"]


def format_value(value: float | None) -> str:
    """A score cell: the exact float (``repr``), empty for NaN/None."""
    return format_number(value)


def parse_value(text: str | None) -> float:
    """Inverse of :func:`format_value`; anything unreadable is NaN."""
    try:
        return float(text) if text else math.nan
    except ValueError:
        return math.nan


@dataclass(frozen=True)
class TornLine:
    """A last line without its newline, cut off the file: its text and the call number it held."""

    text: str
    fields: list[str]
    call: int
    previous: dict[str, str] | None  # the last complete row before it (its step and stage are the best guess)


class OracleLog:
    """The log file of one run: append rows, read complete rows back, cut a torn last line."""

    def __init__(self, path: Path, endpoints: Sequence[str]):
        self.path = Path(path)
        self.endpoints = list(endpoints)
        self.columns = log_columns(self.endpoints)

    def header(self) -> list[str] | None:
        """The file's header (None without a file or a complete first line); read-only."""
        if not self.path.exists():
            return None
        with open(self.path, newline="") as handle:
            first = handle.readline()
        return next(csv.reader([first])) if first.endswith("\n") else None

    def check_columns(self) -> None:
        """Refuse a log written for other scoring endpoints (checked before anything is written)."""
        header = self.header()
        if header is not None and header != self.columns:
            raise OracleLogError(f"{self.path} was written by a run with other scoring endpoints "
                                 f"(its columns: {', '.join(header)})")

    def read(self) -> list[dict[str, str]]:
        """Complete rows on disk, oldest first; a torn last line is ignored (see :meth:`cut_torn_line`)."""
        if not self.path.exists():
            return []
        self.check_columns()
        text = self._text()
        return list(csv.DictReader(io.StringIO(text[: text.rfind("\n") + 1])))

    def cut_torn_line(self) -> TornLine | None:
        """Remove a last line that lacks its newline and return it; None when the file ends cleanly.

        Calls are written in order, so the torn line held the call after the last complete row's.
        """
        if not self.path.exists():
            return None
        text = self._text()
        if not text or text.endswith("\n"):
            return None
        keep = text[: text.rfind("\n") + 1]
        rows = list(csv.DictReader(io.StringIO(keep))) if keep else []
        torn = text[len(keep):]
        with open(self.path, "r+") as handle:
            handle.truncate(len(keep.encode()))
        if not keep:  # the header itself was torn: no call was recorded yet
            return None
        previous = rows[-1] if rows else None
        call = int(previous["call"]) + 1 if previous else 1
        return TornLine(text=torn, fields=next(csv.reader([torn]), []), call=call, previous=previous)

    def append(self, rows: Sequence[dict[str, object]]) -> None:
        """Append rows (the header first into a new or empty file) with a single write."""
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=self.columns)
        if not self.path.exists() or self.path.stat().st_size == 0:
            writer.writeheader()
        writer.writerows(rows)
        data = buffer.getvalue().encode()
        if self.path.exists() and self.path.stat().st_size and not self._ends_with_newline():
            raise OracleLogError(f"{self.path} ends in a torn line; cut it (cut_torn_line) before appending")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(fd, data)
            while written < len(data):  # regular files write everything at once; be safe anyway
                written += os.write(fd, data[written:])
        finally:
            os.close(fd)

    def _text(self) -> str:
        with open(self.path, newline="") as handle:  # no newline translation: offsets are the file's own
            return handle.read()

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"


class Molecule(NamedTuple):
    """A unique molecule at its first oracle call (1-based ``call``); ``score`` is NaN when scoring failed."""

    call: int
    step: int
    smiles: str
    score: float


@dataclass
class LogTable:
    """The parsed log (for metrics) plus counts of what the reader skipped (reported next to the metrics)."""

    df: pd.DataFrame
    endpoints: list[str] = field(default_factory=list)
    n_dropped_lines: int = 0

    @property
    def n_rows(self) -> int:
        return len(self.df)

    def counts(self, budget: int | None = None) -> dict[str, int]:
        """Calls, invalid SMILES, duplicate rows and failed scores among calls <= budget."""
        df = self.df if budget is None else self.df[self.df["call"] <= budget]
        valid = df["canonical"].notna()
        return {
            "rows": int(len(df)),
            "n_calls": n_calls(df, budget),
            "invalid_smiles": int((~valid).sum()),
            "duplicates": int(df.loc[valid, "canonical"].duplicated().sum()),
            "failed_scores": int(df["score"].isna().sum()),
            "dropped_lines": int(self.n_dropped_lines),
        }

    def molecules(self, budget: int | None = None) -> list[Molecule]:
        """Unique valid molecules at their first call within the budget (see ``unique_molecules``)."""
        df = self.df
        return unique_molecules(df["call"].tolist(), df["smiles"].tolist(), df["score"].tolist(),
                                budget=budget, steps=df["step"].tolist(), canonical=df["canonical"].tolist())


def _complete_records(text: str) -> tuple[list[list[str]], int]:
    """CSV records of the complete lines; a last line without its newline is a partial write and dropped."""
    records = list(csv.reader(io.StringIO(text)))
    dropped = 0
    if text and not text.endswith("\n") and records:
        records.pop()
        dropped = 1
    return records, dropped


def _to_frame(header: list[str], records: list[list[str]], path: Path | None = None) -> tuple[pd.DataFrame, int]:
    """Keep rows with the header's field count and an integer call index; count the rest as dropped.

    Rows that parse but hold impossible values are refused (``OracleLogError``), not skipped: they mean the
    file was edited or belongs to another tool, and every metric would be wrong.
    """
    good = [r for r in records if len(r) == len(header)]
    lines = [i + 2 for i, r in enumerate(records) if len(r) == len(header)]  # line 1 is the header
    df = pd.DataFrame(good, columns=header)
    df["call"] = pd.to_numeric(df["call"], errors="coerce")
    bad = df["call"].isna()
    _refuse_impossible(df[~bad], [n for n, b in zip(lines, bad) if not b], path)
    df = df[~bad].copy()
    df["call"] = df["call"].astype(int)
    for col in ("step", "stage"):
        if col in df:
            df[col] = pd.to_numeric(df[col], errors="coerce").fillna(-1).astype(int)
    for col in header:
        if col not in META_COLUMNS or col == "score":
            df[col] = pd.to_numeric(df[col], errors="coerce")
    return df.sort_values("call", kind="stable").reset_index(drop=True), len(records) - len(good) + int(bad.sum())


def _refuse_impossible(df: pd.DataFrame, lines: list[int], path: Path | None) -> None:
    where = str(path) if path is not None else "oracle log"
    calls = df["call"].to_numpy()
    fractional = calls != calls.round()
    score = pd.to_numeric(df["score"], errors="coerce").to_numpy()
    written = df["score"].astype(str).str.strip().str.lower().isin(["", "nan"]).to_numpy()  # a failed score
    checks = (
        (calls < 1, "call number {v} is below 1 (calls are numbered from 1)", calls),
        (fractional, "call number {v} is not an integer", calls),
        (~written & ~np.isfinite(score), "score {v!r} is not a finite number (a failed score is left empty)",
         df["score"].to_numpy()),
        (np.isfinite(score) & ((score < 0) | (score > 1)), "score {v} lies outside [0, 1]", score),
    )
    for mask, message, values in checks:
        hit = np.flatnonzero(mask)
        if len(hit):
            i = int(hit[0])
            more = f" ({len(hit) - 1} more such rows)" if len(hit) > 1 else ""
            raise OracleLogError(f"{where} line {lines[i]}: " + message.format(v=values[i]) + more)


def read_oracle_log(path: str | Path) -> LogTable:
    """Parse ``oracle_log.csv`` (or a run folder containing it); adds a ``canonical`` column (None if invalid)."""
    path = Path(path)
    if path.is_dir() or not path.suffix:
        path = path / LOG_NAME
    if not path.is_file():
        raise FileNotFoundError(f"no oracle log at {path}")
    records, dropped = _complete_records(path.read_text())
    if not records:
        raise ValueError(f"{path}: empty oracle log (no header)")
    header = [h.strip() for h in records[0]]
    missing = [c for c in FIXED_COLUMNS if c not in header]
    if missing:
        raise ValueError(f"{path}: oracle log lacks columns {missing}; header is {header}")
    df, bad = _to_frame(header, records[1:], path)
    df["canonical"] = _canonical_column(df["smiles"].tolist())
    endpoints = [c for c in header if c not in META_COLUMNS and not c.endswith("_raw")]
    return LogTable(df=df, endpoints=endpoints, n_dropped_lines=dropped + bad)


def _canonical_column(smiles: list[str]) -> list[str | None]:
    """Re-canonicalise (the writer's canonical form may differ by RDKit version); None marks invalid."""
    cache: dict[str, str | None] = {}
    for s in smiles:
        if s not in cache:
            cache[s] = canonicalize(s) if isinstance(s, str) and s else None
    return [cache[s] for s in smiles]


def n_calls(df: pd.DataFrame, budget: int | None = None) -> int:
    """Oracle calls spent within the budget: the largest call index <= budget (0 for an empty log)."""
    calls = df["call"] if budget is None else df.loc[df["call"] <= budget, "call"]
    return int(calls.max()) if len(calls) else 0


def _as_float(x: object) -> float:
    try:
        value = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
    return value


def unique_molecules(calls: Sequence[int], smiles: Sequence[str], scores: Sequence[float],
                     budget: int | None = None, steps: Sequence[int] | None = None,
                     canonical: Sequence[str | None] | None = None) -> list[Molecule]:
    """Unique molecules in call order, each at its FIRST call <= budget, with that call's score.

    Invalid SMILES are skipped; later repeats of a canonical SMILES are ignored (PMO's cache semantics:
    a molecule is charged and scored once). ``canonical`` may pass precomputed canonical forms.
    """
    canon = list(canonical) if canonical is not None else [canonicalize(s) if isinstance(s, str) else None
                                                           for s in smiles]
    steps = list(steps) if steps is not None else [-1] * len(calls)
    order = sorted(range(len(calls)), key=lambda i: int(calls[i]))
    seen: set[str] = set()
    out: list[Molecule] = []
    for i in order:
        c, smi = int(calls[i]), canon[i]
        if (budget is not None and c > budget) or not isinstance(smi, str) or smi in seen:
            continue
        seen.add(smi)
        out.append(Molecule(c, int(steps[i]), smi, _as_float(scores[i])))
    return out
