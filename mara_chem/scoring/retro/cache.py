"""Persistent route cache: sqlite keyed by (settings fingerprint, canonical SMILES).

The fingerprint (``RetroSettings.fingerprint``) covers the search settings, the template-set hash, the
purchasable list and the library versions, so a changed template file or stock never reuses old answers.
Outcomes that depend on the machine (time limit hit, worker died) are not stored.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from mara_chem.scoring.retro.search import RouteOutcome

_SCHEMA = """
CREATE TABLE IF NOT EXISTS routes (
    fingerprint TEXT NOT NULL,
    smiles TEXT NOT NULL,
    outcome TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (fingerprint, smiles)
);
"""


class RouteCache:
    """``get`` returns the stored outcomes of some SMILES; ``put`` stores the cacheable ones."""

    def __init__(self, path: str | Path, fingerprint: str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fingerprint = fingerprint
        self._db = sqlite3.connect(self.path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def get(self, smiles: Sequence[str]) -> dict[str, RouteOutcome]:
        found: dict[str, RouteOutcome] = {}
        unique = list(dict.fromkeys(smiles))
        for start in range(0, len(unique), 500):  # stay under sqlite's bound-parameter limit
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT smiles, outcome FROM routes WHERE fingerprint = ? AND smiles IN ({marks})",
                (self.fingerprint, *chunk),
            )
            found.update((smi, RouteOutcome.from_json(text)) for smi, text in rows)
        return found

    def put(self, outcomes: Iterable[RouteOutcome]) -> int:
        rows = [(self.fingerprint, o.smiles, o.to_json(), time.time()) for o in outcomes if o.cacheable]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO routes VALUES (?, ?, ?, ?)", rows)
        return len(rows)

    def __len__(self) -> int:
        (count,) = self._db.execute("SELECT COUNT(*) FROM routes WHERE fingerprint = ?", (self.fingerprint,)).fetchone()
        return int(count)

    def close(self) -> None:
        self._db.close()
