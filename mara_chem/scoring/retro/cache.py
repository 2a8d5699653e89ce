"""The route cache: the shared ``OutcomeCache`` keyed by ``RetroSettings.fingerprint``.

The fingerprint covers the search settings, the template-set hash, the purchasable list and the library
versions, so a changed template file or stock never reuses old answers. Outcomes that depend on the
machine (time limit hit, worker died) are not stored. Files in the earlier format (a ``routes``
table) are read: their rows are copied once.
"""

from __future__ import annotations

from pathlib import Path

from mara_chem.scoring.retro.search import RouteOutcome
from mara_chem.scoring.workers.cache import LegacyTable, OutcomeCache

#: the route cache's own table: the file format until commit 4f60c03 (2026-12-01) gave every expensive oracle
#: the one ``outcomes`` table (the version number, 0.1.0, did not change)
LEGACY_ROUTES_TABLE = LegacyTable("routes", "SELECT fingerprint, smiles, outcome, created FROM routes")


class RouteCache(OutcomeCache[RouteOutcome]):
    """Route outcomes for one settings fingerprint."""

    def __init__(self, path: str | Path, fingerprint: str):
        super().__init__(path, fingerprint, RouteOutcome.to_json, RouteOutcome.from_json,
                         legacy=[LEGACY_ROUTES_TABLE])
