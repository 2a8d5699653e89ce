"""The oracle log (``RUN_DIR/oracle_log.csv``): its format, writer, readers and repair, in one place.

One row per oracle call, appended by the run loop (:class:`OracleLog`) and read back by the loop on resume
and by every metric (:func:`read_oracle_log`):
``call,step,stage,smiles,score,<endpoint>...,<endpoint>_raw...,reason``
(docs/metrics.md, "The oracle log"). ``call`` is the 1-based global call
number (contiguous across stages), ``score`` the aggregated score (empty = NaN = failed, the call is spent).
A run with genetic exploration writes a ``source`` column after ``stage`` (``agent``: sampled by the agent;
``genetic``: an offspring of the genetic harness); a log without it reads as all ``agent``.

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
import re
import signal
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from mara_chem.atomic import naming, write_text_atomic
from mara_chem.chem.smiles import canonicalize
from mara_chem.text import format_number

LOG_NAME = "oracle_log.csv"
FIXED_COLUMNS = ("call", "step", "smiles", "score")
META_COLUMNS = (*FIXED_COLUMNS, "stage", "source", "reason")  # ``stage``, ``source``, ``reason``: optional for the reader
LEADING_COLUMNS = ("call", "step", "stage", "smiles", "score")  # the writer's first columns, in order
#: where a molecule of the log came from (the ``source`` column); a log without the column is all AGENT
AGENT, GENETIC = "agent", "genetic"
SOURCES = (AGENT, GENETIC)


class OracleLogError(ValueError):
    """The oracle log cannot be used as it is: another run's columns, a torn line in the way of an append, or
    a row no run can have written (score outside [0, 1], call number below 1); the message names file and line."""


def log_columns(endpoints: Sequence[str], sources: bool = False) -> list[str]:
    """The writer's header for these endpoint names (``sources``: with the ``source`` column after ``stage``)."""
    leading = [*LEADING_COLUMNS[:3], "source", *LEADING_COLUMNS[3:]] if sources else list(LEADING_COLUMNS)
    return [*leading, *endpoints, *(f"{e}_raw" for e in endpoints), "reason"]


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

    def __init__(self, path: Path, endpoints: Sequence[str], sources: bool = False):
        self.path = Path(path)
        self.endpoints = list(endpoints)
        self.sources = sources  # the ``source`` column is written (runs with genetic exploration)
        self.columns = log_columns(self.endpoints, sources)

    def header(self) -> list[str] | None:
        """The file's header (None without a file or a complete first line); read-only."""
        if not self.path.exists():
            return None
        with open(self.path, newline="") as handle:
            first = handle.readline()
        return next(csv.reader([first])) if first.endswith("\n") else None

    def check_columns(self) -> None:
        """Refuse a log written for other scoring endpoints (checked before anything is written). A log whose
        endpoints are the first of this run's (stages added on resume bring new endpoints) is accepted and
        gets the new columns from :meth:`extend_columns`."""
        header = self.header()
        if header is not None and header != self.columns and self._missing_endpoints(header) is None:
            raise OracleLogError(f"{self.path} was written by a run with other scoring endpoints "
                                 f"(its columns: {', '.join(header)})")

    def _missing_endpoints(self, header: list[str]) -> list[str] | None:
        """Endpoints this run adds to a log written for the first k of them; None when the header is another's."""
        for k in range(len(self.endpoints)):
            if header == log_columns(self.endpoints[:k], self.sources):
                return self.endpoints[k:]
        return None

    def extend_columns(self) -> list[str]:
        """Rewrite the log (atomically) with columns for endpoints added by new stages, empty in the old rows; a
        torn last line is kept as it is, for :meth:`cut_torn_line`. Returns the endpoints added."""
        header = self.header()
        added = self._missing_endpoints(header) if header is not None and header != self.columns else None
        if not added:
            return []
        text = self._text()
        complete = text[: text.rfind("\n") + 1]
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=self.columns, restval="")
        writer.writeheader()
        writer.writerows(csv.DictReader(io.StringIO(complete)))
        write_text_atomic(self.path, buffer.getvalue() + text[len(complete):])
        return added

    def check_rows(self) -> None:
        """Refuse (OracleLogError naming the line) a log holding rows no run can have written; read-only."""
        if self.header() is not None:  # a header torn by a kill holds no call: cut_torn_line's to handle
            _checked_records(self.path)

    def read(self) -> list[dict[str, str]]:
        """Complete rows on disk, oldest first; a torn last line is ignored (see :meth:`cut_torn_line`)."""
        if not self.path.exists():
            return []
        self.check_columns()
        text = self._text()
        return list(csv.DictReader(io.StringIO(text[: text.rfind("\n") + 1])))

    def calls_on_disk(self) -> int:
        """Calls the file records: its complete rows plus a torn last line (a call that was made)."""
        if not self.path.exists():
            return 0
        text = self._text()
        torn = int(bool(text) and not text.endswith("\n") and "\n" in text)
        return len(self.read()) + torn

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
        with _stop_signals_held():  # a second Ctrl-C lands after the write, never between two halves of it
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                written = os.write(fd, data)
                while written < len(data):  # regular files write everything at once; be safe anyway
                    written += os.write(fd, data[written:])
            except OSError as exc:  # a full disk: the rows written so far are a torn line a resume repairs
                raise naming(exc, self.path) from None
            finally:
                os.close(fd)

    def _text(self) -> str:
        with open(self.path, newline="") as handle:  # no newline translation: offsets are the file's own
            return handle.read()

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"


@dataclass(frozen=True)
class RecordedCall:
    """One paid oracle call as another tool recorded it (a peer's summary file): what its log row holds.

    ``score`` is the aggregated score (NaN: the call failed and is spent); ``scores`` and ``raw`` are per
    endpoint, an endpoint left out is empty in the row."""

    smiles: str
    score: float
    step: int
    scores: Mapping[str, float] = field(default_factory=dict)
    raw: Mapping[str, float] = field(default_factory=dict)
    stage: int = 1
    reason: str | None = None


def write_oracle_log(run_dir: str | Path, endpoints: Sequence[str], calls: Iterable[RecordedCall]) -> int:
    """Write a new oracle log into ``run_dir`` from another tool's calls, numbered 1, 2, ... in their order,
    so that ``mara-chem metrics`` measures that tool's run as it measures mara-chem's; returns the calls
    written. A folder that already holds a log is refused: appending would number the calls twice."""
    log = OracleLog(Path(run_dir) / LOG_NAME, endpoints)
    if log.path.exists():
        raise OracleLogError(f"{log.path} exists; an oracle log is written once, into a folder without one")
    rows = []
    for call, entry in enumerate(calls, start=1):
        row: dict[str, object] = {"call": call, "step": entry.step, "stage": entry.stage, "smiles": entry.smiles,
                                  "score": format_value(entry.score), "reason": entry.reason or ""}
        for e in log.endpoints:
            row[e] = format_value(entry.scores.get(e, math.nan))
            row[f"{e}_raw"] = format_value(entry.raw.get(e, math.nan))
        rows.append(row)
    log.append(rows)
    return len(rows)


@contextmanager
def _stop_signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM (delivered when the block ends) so that a Python handler raising RunInterrupted
    cannot run in the middle of an append: the rows of a batch are written whole or not at all."""
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class LoggedMolecule(NamedTuple):
    """A unique molecule as the oracle log records it at its first call (1-based ``call``, its step, canonical
    SMILES and score); ``score`` is NaN when scoring failed."""

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

    def calls_by_source(self, budget: int | None = None) -> dict[str, int]:
        """Rows among calls <= budget by where the molecule came from (``source``; all ``agent`` in a log
        without the column), every source named."""
        df = self.df if budget is None else self.df[self.df["call"] <= budget]
        counts = df["source"].value_counts()
        return {source: int(counts.get(source, 0)) for source in SOURCES}

    def molecules(self, budget: int | None = None) -> list[LoggedMolecule]:
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


_INTEGER = re.compile(r"-?[0-9]+")


def _to_frame(header: list[str], records: list[list[str]], path: Path | None = None) -> tuple[pd.DataFrame, int]:
    """The complete rows (checked by :func:`_refuse_impossible`) as a frame; (frame, 0): no complete row is skipped."""
    df = pd.DataFrame(records, columns=header)
    if "source" not in df:
        df["source"] = AGENT
    df["call"] = df["call"].astype(int)
    for col in ("step", "stage"):
        if col in df:
            df[col] = df[col].astype(int)
    for col in header:
        if col not in META_COLUMNS or col == "score":
            df[col] = pd.to_numeric(df[col], errors="coerce")
    return df.reset_index(drop=True), 0


def _refuse_impossible(header: list[str], records: list[list[str]], path: Path | None) -> None:
    """Refuse, naming the line, any complete row no run can have written: a wrong field count, a call, step or
    stage that is not a whole number, calls not numbered 1, 2, 3, ... in order (a gap, a repeat), a score or
    endpoint value outside [0, 1] or not finite (a failed value is left empty). Such a file was edited or belongs
    to another tool, and every metric computed from it would be wrong."""
    where = str(path) if path is not None else "oracle log"
    width = len(header)
    value_columns = [i for i, c in enumerate(header)
                     if c == "score" or (c not in META_COLUMNS and not c.endswith("_raw"))]
    whole = [header.index(c) for c in ("call", "step", "stage") if c in header]
    source_at = header.index("source") if "source" in header else None
    call_at = header.index("call")
    for n, record in enumerate(records):
        line = n + 2  # line 1 is the header

        def refuse(message: str) -> None:
            raise OracleLogError(f"{where} line {line}: {message}")

        if len(record) != width:
            refuse(f"{len(record)} fields where the header has {width}")
        for i in whole:
            if not _INTEGER.fullmatch(record[i]):
                refuse(f"{header[i]} {record[i]!r} is not a whole number")
        for i in whole[1:]:  # step and stage
            if int(record[i]) < (1 if header[i] == "stage" else 0):
                refuse(f"{header[i]} {record[i]} is below {1 if header[i] == 'stage' else 0}")
        if source_at is not None and record[source_at] not in SOURCES:
            refuse(f"source {record[source_at]!r} is not one of {', '.join(SOURCES)}")
        call = int(record[call_at])
        if call < 1:
            refuse(f"call number {call} is below 1 (calls are numbered from 1)")
        if call != n + 1:
            seen = "repeats an earlier call number" if call <= n else f"skips call numbers {n + 1}..{call - 1}"
            refuse(f"call number {call} {seen}: a run numbers its calls 1, 2, 3, ... without gap or repeat")
        for i in value_columns:
            text = record[i].strip()
            if text.lower() in ("", "nan"):  # a failed score: the call is spent
                continue
            try:
                value = float(text)
            except ValueError:
                refuse(f"{header[i]} {record[i]!r} is not a number")
            if not math.isfinite(value):
                refuse(f"{header[i]} {record[i]!r} is not a finite number (a failed score is left empty)")
            if not 0.0 <= value <= 1.0:
                refuse(f"{header[i]} {value} lies outside [0, 1]")


def read_oracle_log(path: str | Path) -> LogTable:
    """Parse ``oracle_log.csv`` (or a run folder containing it); adds a ``canonical`` column (None if invalid)."""
    path = Path(path)
    if path.is_dir() or not path.suffix:
        path = path / LOG_NAME
    if not path.is_file():
        raise FileNotFoundError(f"no oracle log at {path}")
    header, records, dropped = _checked_records(path)
    df, bad = _to_frame(header, records, path)
    df["canonical"] = _canonical_column(df["smiles"].tolist())
    endpoints = [c for c in header if c not in META_COLUMNS and not c.endswith("_raw")]
    return LogTable(df=df, endpoints=endpoints, n_dropped_lines=dropped + bad)


def _checked_records(path: Path) -> tuple[list[str], list[list[str]], int]:
    """(header, complete records, 1 if a torn last line was dropped); refuses, naming the file and line, a file
    that is not a text oracle log (binary, NUL bytes, duplicated or missing columns) or holds an impossible row."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise OracleLogError(f"{path}: not a text file (an oracle log is UTF-8 CSV)") from None
    if "\0" in text:
        line = text.count("\n", 0, text.index("\0")) + 1
        raise OracleLogError(f"{path} line {line}: NUL bytes (the file is damaged or not an oracle log)")
    try:
        records, dropped = _complete_records(text)
    except csv.Error as exc:
        raise OracleLogError(f"{path}: not a readable CSV file ({exc})") from None
    if not records:
        raise OracleLogError(f"{path}: empty oracle log (no header)")
    header = [h.strip() for h in records[0]]
    missing = [c for c in FIXED_COLUMNS if c not in header]
    if missing:
        raise OracleLogError(f"{path} line 1: oracle log lacks columns {missing}; header is {header}")
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        raise OracleLogError(f"{path} line 1: column(s) {', '.join(repeated)} appear more than once in the header")
    _refuse_impossible(header, records[1:], path)
    return header, records[1:], dropped


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
                     canonical: Sequence[str | None] | None = None) -> list[LoggedMolecule]:
    """Unique molecules in call order, each at its FIRST call <= budget, with that call's score.

    Invalid SMILES are skipped; later repeats of a canonical SMILES are ignored (PMO's cache semantics:
    a molecule is charged and scored once). ``canonical`` may pass precomputed canonical forms.
    """
    canon = list(canonical) if canonical is not None else [canonicalize(s) if isinstance(s, str) else None
                                                           for s in smiles]
    steps = list(steps) if steps is not None else [-1] * len(calls)
    order = sorted(range(len(calls)), key=lambda i: int(calls[i]))
    seen: set[str] = set()
    out: list[LoggedMolecule] = []
    for i in order:
        c, smi = int(calls[i]), canon[i]
        if (budget is not None and c > budget) or not isinstance(smi, str) or smi in seen:
            continue
        seen.add(smi)
        out.append(LoggedMolecule(c, int(steps[i]), smi, _as_float(scores[i])))
    return out
