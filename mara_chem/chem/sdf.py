"""Rows of a results table as a 2D SDF: one record per molecule, every column an SD property.

The one writer for the SD files mara-chem makes from tables (sampling, scoring, the report's ``hits.sdf``),
so they agree: the title is the compound id where there is one (else the SMILES), empty and NaN values are
left out, and a float is written as Python's shortest text for it (``-8.786``, not RDKit's 17-digit
``-8.7859999999999996``). The file is written to a temporary name and renamed, so it is whole or absent.
"""

from __future__ import annotations

import io
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


def row_mol(row: Mapping[str, object], smiles_key: str = "SMILES", id_key: str = "id") -> Chem.Mol | None:
    """The row's molecule with its title and every non-empty column as an SD property (None: no molecule)."""
    mol = to_mol(str(row.get(smiles_key) or ""))
    if mol is None:
        return None
    mol.SetProp("_Name", prop_text(row.get(id_key)) or str(row[smiles_key]))
    for key, value in row.items():
        text = prop_text(value)
        if text is not None:
            mol.SetProp(str(key), text)
    return mol


def sdf_record(row: Mapping[str, object], smiles_key: str = "SMILES", id_key: str = "id") -> str:
    """One row as the text of its SDF record, ``$$$$`` line included ('' when its SMILES does not parse):
    what ``write_rows_sdf`` writes for it (the report's page exports a selection from these)."""
    mol = row_mol(row, smiles_key, id_key)
    if mol is None:
        return ""
    buffer = io.StringIO()
    with Chem.SDWriter(buffer) as writer:
        writer.write(mol)
    return buffer.getvalue()


def write_rows_sdf(rows: Iterable[Mapping[str, object]], path: Path, smiles_key: str = "SMILES",
                   id_key: str = "id") -> int:
    """Write one record per row whose SMILES parses; returns the number of records."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    written = 0
    with Chem.SDWriter(str(tmp)) as writer:
        for row in rows:
            mol = row_mol(row, smiles_key, id_key)
            if mol is not None:
                writer.write(mol)
                written += 1
    os.replace(tmp, path)
    return written
