"""Rows of a results table as a 2D SDF: one record per molecule, every column an SD property.

The one writer for the SD files mara-chem makes from tables (sampling, scoring, the report's ``hits.sdf``),
so they agree: the title is the compound id where there is one (else the SMILES), empty and NaN values are
left out, and a float is written as Python's shortest text for it (``-8.786``, not RDKit's 17-digit
``-8.7859999999999996``). The file is written to a temporary name and renamed, so it is whole or absent.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from rdkit import Chem

from mara_chem.chem.smiles import to_mol


def prop_text(value: object) -> str | None:
    """SD property text of a table value; None for values that are not there (empty, NaN, None)."""
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()  # type: ignore[union-attr]
    if value is None:
        return None
    if isinstance(value, float):
        return None if math.isnan(value) else repr(value)
    text = str(value)
    return None if text in ("", "nan") else text


def write_rows_sdf(rows: Iterable[Mapping[str, object]], path: Path, smiles_key: str = "SMILES",
                   id_key: str = "id") -> int:
    """Write one record per row whose SMILES parses; returns the number of records."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    written = 0
    with Chem.SDWriter(str(tmp)) as writer:
        for row in rows:
            mol = to_mol(str(row.get(smiles_key) or ""))
            if mol is None:
                continue
            mol.SetProp("_Name", prop_text(row.get(id_key)) or str(row[smiles_key]))
            for key, value in row.items():
                text = prop_text(value)
                if text is not None:
                    mol.SetProp(str(key), text)
            writer.write(mol)
            written += 1
    os.replace(tmp, path)
    return written
