"""The persistent outcome cache of every expensive oracle: sqlite, keyed by (settings fingerprint, SMILES).

One table, ``outcomes(fingerprint, smiles, outcome, created)``; an oracle brings its fingerprint (a hash of
everything that changes an outcome: settings, input files, library versions) and how its outcome becomes
text and back. Only cacheable outcomes are stored: machine-dependent failures (timeouts, dead workers) are
retried next time. Only the parent process writes, so plain sqlite with WAL is enough.

Files in the format each oracle had until commit 4f60c03 (2026-12-01; version 0.1.0 on both sides) hold a
``docking`` table (one column per field) or a ``routes`` table (JSON rows); they are read through
``LegacyTable``: their rows are copied into ``outcomes`` once, when the file is first opened, and the old
table is left as it was.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from mara_chem.scoring.workers.worker import Outcome

O = TypeVar("O", bound=Outcome)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outcomes (
    fingerprint TEXT NOT NULL,
    smiles TEXT NOT NULL,
    outcome TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (fingerprint, smiles)
);
CREATE TABLE IF NOT EXISTS settings (fingerprint TEXT PRIMARY KEY, description TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS migrated (legacy_table TEXT PRIMARY KEY, rows INTEGER NOT NULL, created REAL NOT NULL);
"""
_CHUNK = 500  # stay under sqlite's bound-parameter limit


@dataclass(frozen=True)
class LegacyTable:
    """A table of an earlier file format (dated by the commit that replaced it: the version number did not
    change); ``select`` returns (fingerprint, smiles, outcome text, created)."""

    name: str
    select: str


class OutcomeCache(Generic[O]):
    """Outcomes for one fingerprint: ``get`` returns the stored ones, ``put`` stores the cacheable ones.

    ``encode``/``decode`` turn one outcome into text and back (JSON of its fields, usually);
    ``description`` (e.g. the settings as JSON) is kept next to the fingerprint for whoever opens the file.
    """

    def __init__(self, path: str | Path, fingerprint: str, encode: Callable[[O], str], decode: Callable[[str], O],
                 *, description: str | None = None, legacy: Sequence[LegacyTable] = ()):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fingerprint = fingerprint
        self._encode, self._decode = encode, decode
        try:
            self._db = sqlite3.connect(self.path)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"cache file {self.path} is not a usable sqlite database: {exc}") from None
        for table in legacy:
            self._migrate(table)
        if description is not None:
            with self._db:
                self._db.execute("INSERT OR IGNORE INTO settings VALUES (?, ?, ?)",
                                 (fingerprint, description, time.time()))

    def _migrate(self, table: LegacyTable) -> None:
        """Copy an earlier version's rows into ``outcomes`` once (rows already there win)."""
        exists = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table.name,))
        done = self._db.execute("SELECT 1 FROM migrated WHERE legacy_table = ?", (table.name,))
        if exists.fetchone() is None or done.fetchone() is not None:
            return
        with self._db:
            cursor = self._db.execute(f"INSERT OR IGNORE INTO outcomes {table.select}")
            self._db.execute("INSERT INTO migrated VALUES (?, ?, ?)", (table.name, cursor.rowcount, time.time()))

    def get(self, smiles: Sequence[str]) -> dict[str, O]:
        found: dict[str, O] = {}
        unique = list(dict.fromkeys(smiles))
        for start in range(0, len(unique), _CHUNK):
            chunk = unique[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT smiles, outcome FROM outcomes WHERE fingerprint = ? AND smiles IN ({marks})",
                (self.fingerprint, *chunk),
            )
            found.update((smi, self._decode(text)) for smi, text in rows)
        return found

    def put(self, outcomes: Iterable[O]) -> int:
        """Store the cacheable outcomes; returns how many were written."""
        rows = [(self.fingerprint, o.smiles, self._encode(o), time.time()) for o in outcomes if o.cacheable]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO outcomes VALUES (?, ?, ?, ?)", rows)
        return len(rows)

    def __len__(self) -> int:
        (count,) = self._db.execute("SELECT COUNT(*) FROM outcomes WHERE fingerprint = ?", (self.fingerprint,)).fetchone()
        return int(count)

    def close(self) -> None:
        self._db.close()


def json_fields(outcome: object, *, drop: Iterable[str] = ("cacheable",)) -> str:
    """An outcome dataclass's fields as JSON, less those that are never stored (``cacheable``: only True is)."""
    from dataclasses import asdict

    fields = asdict(outcome)  # type: ignore[call-overload]
    for name in drop:
        fields.pop(name, None)
    return json.dumps(fields, sort_keys=True)
