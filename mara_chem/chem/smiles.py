"""Small functional API over RDKit for the SMILES the models read and write."""

from __future__ import annotations

import random
from collections import OrderedDict
from enum import IntEnum

from rdkit import Chem, rdBase
from rdkit.Chem.Scaffolds import MurckoScaffold


class SmilesState(IntEnum):
    """A sampled SMILES within its batch, as REINVENT's summary column ``SMILES_state`` writes it."""

    INVALID = 0
    VALID = 1
    DUPLICATE = 2  # valid, but the same canonical molecule came earlier in the batch


#: RDKit's canonical writer recurses per atom and crashes the process (SIGSEGV) on a chain of ~20,000
#: atoms (10,000 still works with RDKit 2026.09); drug-like SMILES are under 200 characters
MAX_SMILES_LENGTH = 2_000
MAX_ATOMS = 1_000


def to_mol(smiles: str) -> Chem.Mol | None:
    """Parse a SMILES; None when RDKit rejects it or it exceeds the size guard (never raises, never crashes).

    RDKit's parse errors are silenced for this call only (a sampled batch holds many invalid SMILES);
    the process's RDKit log settings are left as the caller set them.
    """
    if not smiles or len(smiles) > MAX_SMILES_LENGTH:
        return None
    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(smiles)
    if mol is not None and mol.GetNumAtoms() > MAX_ATOMS:
        return None
    return mol


def canonicalize(smiles: str, isomeric: bool = True) -> str | None:
    """RDKit canonical SMILES, or None for an invalid or empty molecule.

    A molecule whose canonical SMILES RDKit cannot read back (a few sampled fused aromatic systems kekulise
    on input but not from their own canonical form) is invalid too: every oracle, fingerprint and scaffold
    downstream parses the canonical form, and would otherwise pay a call for a molecule it cannot read."""
    mol = to_mol(smiles)
    if mol is None or mol.GetNumAtoms() == 0:
        return None
    canonical = Chem.MolToSmiles(mol, isomericSmiles=isomeric)
    return canonical if canonical == smiles or to_mol(canonical) is not None else None


def randomize(smiles: str, seed: int | None = None) -> str | None:
    """A random (non-canonical) SMILES of the same molecule, for augmentation and marginal estimates."""
    mol = to_mol(smiles)
    if mol is None:
        return None
    order = list(range(mol.GetNumAtoms()))
    random.Random(seed).shuffle(order)
    return Chem.MolToSmiles(Chem.RenumberAtoms(mol, order), canonical=False)


def copy_mol(mol: Chem.Mol | None) -> Chem.Mol | None:
    """A copy of a parsed molecule (None stays None): about a fifth of the time of parsing the SMILES again,
    and whatever the copy's user changes (properties, kekulisation) leaves the original as parsed."""
    return None if mol is None else Chem.Mol(mol)


class ParsedMolecules(dict):
    """SMILES -> molecule (``to_mol``; None when invalid), parsed on first access.

    One RL step parses each new canonical SMILES once here and shares it: the scorer's components score copies
    of it and the Murcko scaffold is taken from it, where each used to parse the SMILES again. ``get`` does
    not parse (a SMILES nobody parsed yet gives None)."""

    def __missing__(self, smiles: str) -> Chem.Mol | None:
        mol = self[smiles] = to_mol(smiles)
        return mol


#: Murcko scaffolds by (SMILES, generic), least recently used dropped first
_SCAFFOLDS: OrderedDict[tuple[str, bool], str | None] = OrderedDict()
SCAFFOLD_CACHE_SIZE = 1 << 16


def murcko_scaffold(smiles: str, generic: bool = False, mol: Chem.Mol | None = None) -> str | None:
    """Bemis-Murcko scaffold SMILES ('' for acyclic molecules), None if the SMILES is invalid.

    Cached (a pure function of the string): a step asks for the same molecule's scaffold in the loop, the
    diversity filter and the IPS outcomes. ``mol``: ``smiles`` already parsed (:class:`ParsedMolecules`),
    used instead of parsing again when the scaffold is not cached yet; it is not changed."""
    key = (smiles, generic)
    if key in _SCAFFOLDS:
        _SCAFFOLDS.move_to_end(key)
        return _SCAFFOLDS[key]
    scaffold = _scaffold_of(mol if mol is not None else to_mol(smiles), generic)
    _SCAFFOLDS[key] = scaffold
    if len(_SCAFFOLDS) > SCAFFOLD_CACHE_SIZE:
        _SCAFFOLDS.popitem(last=False)
    return scaffold


def _scaffold_of(mol: Chem.Mol | None, generic: bool) -> str | None:
    if mol is None:
        return None
    try:
        core = MurckoScaffold.GetScaffoldForMol(mol)  # a new molecule (MurckoDecompose); ``mol`` is left as it is
        if generic:
            core = MurckoScaffold.MakeScaffoldGeneric(core)
        return Chem.MolToSmiles(core)
    except (ValueError, RuntimeError):
        return None
