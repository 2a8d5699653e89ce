"""Persistent docking cache: sqlite, keyed by (settings fingerprint, canonical SMILES).

A resumed or repeated run with the same receptor, box and docking settings never docks a molecule twice.
Scores and molecule-determined failures (no conformer, Meeko or Vina rejecting the ligand) are stored;
machine-dependent failures (timeouts, dead workers) are not, so they are retried next time.
Only the parent process writes, so plain sqlite with WAL is enough.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from mara_chem.scoring.docking.vina_runner import DockingSettings, DockOutcome

_SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (fingerprint TEXT PRIMARY KEY, description TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS docking (
    fingerprint TEXT NOT NULL,
    smiles TEXT NOT NULL,
    score REAL,
    reason TEXT,
    pose TEXT,
    seconds REAL,
    created REAL NOT NULL,
    PRIMARY KEY (fingerprint, smiles)
);
"""


class DockingCache:
    """Outcomes for one settings fingerprint; ``get`` returns the cached ones, ``put`` stores new ones."""

    def __init__(self, path: str | Path, settings: DockingSettings):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fingerprint = settings.fingerprint()
        self._db = sqlite3.connect(self.path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        description = {k: v for k, v in settings.__dict__.items() if k != "receptor_pdbqt"}
        with self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO settings VALUES (?, ?, ?)",
                (self.fingerprint, json.dumps(description, default=str), time.time()),
            )

    def get(self, smiles: Sequence[str]) -> dict[str, DockOutcome]:
        found: dict[str, DockOutcome] = {}
        unique = list(dict.fromkeys(smiles))
        for start in range(0, len(unique), 500):  # stay under sqlite's bound-parameter limit
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT smiles, score, reason, pose, seconds FROM docking WHERE fingerprint = ? AND smiles IN ({marks})",
                (self.fingerprint, *chunk),
            )
            for smi, score, reason, pose, seconds in rows:
                found[smi] = DockOutcome(smi, score=score, reason=reason, pose_molblock=pose, seconds=seconds or 0.0)
        return found

    def put(self, outcomes: Iterable[DockOutcome]) -> int:
        """Store the cacheable outcomes; returns how many were written."""
        rows = [
            (self.fingerprint, o.smiles, o.score, o.reason, o.pose_molblock, o.seconds, time.time())
            for o in outcomes
            if o.cacheable
        ]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO docking VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        return len(rows)

    def __len__(self) -> int:
        (count,) = self._db.execute("SELECT COUNT(*) FROM docking WHERE fingerprint = ?", (self.fingerprint,)).fetchone()
        return int(count)

    def close(self) -> None:
        self._db.close()
