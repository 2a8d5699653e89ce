"""Small functional API over RDKit for the SMILES the models read and write."""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import lru_cache

from rdkit import Chem, rdBase
from rdkit.Chem.Scaffolds import MurckoScaffold


def to_mol(smiles: str) -> Chem.Mol | None:
    """Parse a SMILES; None when RDKit rejects it (never raises on bad input).

    RDKit's parse errors are silenced for this call only (a sampled batch holds many invalid SMILES);
    the process's RDKit log settings are left as the caller set them.
    """
    if not smiles:
        return None
    with rdBase.BlockLogs():
        return Chem.MolFromSmiles(smiles)


def canonicalize(smiles: str, isomeric: bool = True) -> str | None:
    """RDKit canonical SMILES, or None for an invalid or empty molecule."""
    mol = to_mol(smiles)
    if mol is None or mol.GetNumAtoms() == 0:
        return None
    return Chem.MolToSmiles(mol, isomericSmiles=isomeric)


def canonicalize_many(smiles: Iterable[str], isomeric: bool = True) -> list[str | None]:
    return [canonicalize(s, isomeric) for s in smiles]


def randomize(smiles: str, seed: int | None = None) -> str | None:
    """A random (non-canonical) SMILES of the same molecule, for augmentation and marginal estimates."""
    mol = to_mol(smiles)
    if mol is None:
        return None
    order = list(range(mol.GetNumAtoms()))
    random.Random(seed).shuffle(order)
    return Chem.MolToSmiles(Chem.RenumberAtoms(mol, order), canonical=False)


@lru_cache(maxsize=1 << 16)
def murcko_scaffold(smiles: str, generic: bool = False) -> str | None:
    """Bemis-Murcko scaffold SMILES ('' for acyclic molecules), None if the SMILES is invalid.

    Cached (a pure function of the string): a step asks for the same molecule's scaffold in the loop, the
    diversity filter and the IPS outcomes."""
    mol = to_mol(smiles)
    if mol is None:
        return None
    try:
        core = MurckoScaffold.GetScaffoldForMol(mol)
        if generic:
            core = MurckoScaffold.MakeScaffoldGeneric(core)
        return Chem.MolToSmiles(core)
    except (ValueError, RuntimeError):
        return None
