"""The docking outcome cache: the shared ``OutcomeCache`` keyed by ``DockingSettings.fingerprint``.

A resumed or repeated run with the same receptor, box and docking settings never docks a molecule twice.
Scores and molecule-determined failures (no conformer, Meeko or Vina rejecting the ligand) are stored;
machine-dependent failures (timeouts, dead workers) are not, so they are retried next time. Files in the
earlier format (a ``docking`` table with one column per field) are read: their rows are copied once.
"""

from __future__ import annotations

import json
from pathlib import Path

from mara_chem.scoring.docking.vina_runner import DockingSettings, DockOutcome
from mara_chem.scoring.workers.cache import LegacyTable, OutcomeCache, json_fields

#: the docking cache's own table: the file format until commit 4f60c03 (2026-12-01) gave every expensive oracle
#: the one ``outcomes`` table (the version number, 0.1.0, did not change)
LEGACY_DOCKING_TABLE = LegacyTable(
    "docking",
    "SELECT fingerprint, smiles, json_object('smiles', smiles, 'score', score, 'reason', reason, "
    "'pose_molblock', pose, 'seconds', coalesce(seconds, 0.0)), created FROM docking",
)


def decode_outcome(text: str) -> DockOutcome:
    return DockOutcome(**json.loads(text))


class DockingCache(OutcomeCache[DockOutcome]):
    """Docking outcomes for one settings fingerprint (the settings, less the receptor text, are described)."""

    def __init__(self, path: str | Path, settings: DockingSettings):
        description = {k: v for k, v in settings.__dict__.items() if k != "receptor_pdbqt"}
        super().__init__(path, settings.fingerprint(), json_fields, decode_outcome,
                         description=json.dumps(description, default=str), legacy=[LEGACY_DOCKING_TABLE])
