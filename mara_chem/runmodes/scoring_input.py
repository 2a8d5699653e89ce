"""The molecules a ``scoring`` run reads: SMILES, the compound id and every other input column, kept as read.

The format checks and one-line refusals (binary files, gzip by its bytes, the atom guard) are
``scoring.read_molecules``'s, which a run calls first; this reader adds what it keeps. A chemist's file carries ids, assay values, batch numbers; the scored output must hold them beside the new
columns, or the result cannot be joined back. One reader per format:

- ``.csv``: ``smiles_column``; the id is ``id_column`` (default ``id``; without such a column, the row
  number); every other column is carried through as text.
- ``.sdf``: the record title (else the row number) is the id; every SD property is carried through.
- ``.smi``/``.txt``: ``SMILES [id]`` per line; a header line ``SMILES ...`` is skipped.

An input column whose name the output already uses (``score``, an endpoint, ``reason``, ...) is written as
``input_<name>`` (``input_<name>_2``, ... if that is taken too) so neither value is lost; except when the
input holds every result column of this scoring (a library sampled or scored with the same objective):
those are scored again and written once (``scoring.carried_columns``).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from rdkit import Chem

from mara_chem.chem.smiles import MAX_ATOMS
from mara_chem.chem.smiles_file import open_text
from mara_chem.runmodes.errors import RunModeError


@dataclass(frozen=True)
class InputMolecule:
    """One input row: its id, SMILES as written, and the other columns (name -> text)."""

    ident: str
    smiles: str
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoringInput:
    molecules: list[InputMolecule]
    extra_columns: list[str]  # in input order


def read_scoring_input(path: Path, smiles_column: str, id_column: str | None) -> ScoringInput:
    """Read ``path`` by its suffix; ``id_column`` None means 'id' when the CSV has it, else row numbers."""
    if not path.is_file():
        raise RunModeError(f"[parameters.smiles_file] file {path} does not exist")
    suffix = path.suffix.lower()
    if suffix == ".sdf":
        return _read_sdf(path)
    if suffix == ".csv":
        return _read_csv(path, smiles_column, id_column)
    if id_column is not None:
        raise RunModeError(f"[parameters.id_column] only applies to .csv input; {path} is read as SMILES lines")
    return _read_smi(path)


def _read_csv(path: Path, smiles_column: str, id_column: str | None) -> ScoringInput:
    with open_text(path) as handle:  # plain or gzip by its bytes, as scoring.read_molecules (which runs first)
        reader = csv.DictReader(handle)
        names = list(reader.fieldnames or [])
        if smiles_column not in names:
            raise RunModeError(f"[parameters.smiles_column] {path} has no column {smiles_column!r} "
                               f"(columns: {', '.join(names)})")
        if id_column is not None and id_column not in names:
            raise RunModeError(f"[parameters.id_column] {path} has no column {id_column!r} (columns: {', '.join(names)})")
        ident = id_column if id_column is not None else ("id" if "id" in names and smiles_column != "id" else None)
        extra = [c for c in names if c not in (smiles_column, ident)]
        molecules = [
            InputMolecule(str(row[ident] or n) if ident else str(n), row[smiles_column] or "",
                          {c: row.get(c) or "" for c in extra})
            for n, row in enumerate(reader, start=1)
        ]
    return ScoringInput(molecules, extra)


def _read_sdf(path: Path) -> ScoringInput:
    molecules, extra = [], {}
    for n, mol in enumerate(Chem.SDMolSupplier(str(path)), start=1):
        if mol is None or mol.GetNumAtoms() > MAX_ATOMS:  # RDKit's writer crashes on huge records
            molecules.append(InputMolecule(str(n), ""))
            continue
        props = {k: str(v) for k, v in mol.GetPropsAsDict(includePrivate=False, includeComputed=False).items()}
        extra.update(dict.fromkeys(props))
        name = mol.GetProp("_Name") if mol.HasProp("_Name") else ""
        molecules.append(InputMolecule(name or str(n), Chem.MolToSmiles(mol), props))
    return ScoringInput(molecules, list(extra))


def _read_smi(path: Path) -> ScoringInput:
    molecules: list[InputMolecule] = []
    with open_text(path) as handle:
        lines = handle.read().splitlines()
    for n, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields or (n == 1 and fields[0].lower() in ("smiles", "smile")):
            continue
        molecules.append(InputMolecule(fields[1] if len(fields) > 1 else str(len(molecules) + 1), fields[0]))
    return ScoringInput(molecules, [])


def output_names(extra: list[str], taken: list[str]) -> dict[str, str]:
    """Input column -> output column: ``input_<name>`` (then ``input_<name>_2``, ...) where a name is taken."""
    used = set(taken)
    out: dict[str, str] = {}
    for name in extra:
        new, k = name, 1
        while new in used:
            k += 1
            new = f"input_{name}" if k == 2 else f"input_{name}_{k - 1}"
        used.add(new)
        out[name] = new
    return out
