"""SMILES -> docking-ready PDBQT: protonate at pH, ETKDG conformer, force-field clean-up, Meeko typing.

Every step that can reject a molecule raises ``LigandPrepError`` with a short reason for the oracle log.
The conformer is seeded, so the same SMILES and seed always give the same PDBQT (and, with a seeded Vina,
the same score) whichever worker or executor prepares it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rdkit import Chem
from rdkit.Chem import AllChem

from mara_chem.scoring.docking.protonation import ProtonationError, protonate
from mara_chem.text import first_line


class LigandPrepError(ValueError):
    """A molecule that cannot be prepared; ``str(exc)`` is the reason logged with its NaN."""


@dataclass(frozen=True)
class PreparedLigand:
    smiles: str  # the input SMILES
    protonated: str  # the state that was docked
    pdbqt: str


def prepare_ligand(smiles: str, ph: float | None = 7.4, protonation: str = "pka_rules", seed: int = 1) -> PreparedLigand:
    """Prepare one ligand; ``ph=None`` docks the molecule as written (no protonation change)."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None or mol.GetNumAtoms() == 0:
        raise LigandPrepError("invalid SMILES")
    n_frags = len(Chem.GetMolFrags(mol))
    if n_frags != 1:
        raise LigandPrepError(f"{n_frags} fragments; docking needs one molecule")
    if ph is not None:
        try:
            mol = protonate(mol, ph, protonation)
        except ProtonationError as exc:
            raise LigandPrepError(f"protonation: {exc}") from None
        except Exception as exc:  # a tool's own bug on one molecule is that molecule's failure
            raise LigandPrepError(f"protonation ({protonation}): {type(exc).__name__}: {exc}") from None
    mol3d = embed(mol, seed)
    relax(mol3d)
    return PreparedLigand(smiles, Chem.MolToSmiles(mol), meeko_pdbqt(mol3d))


def embed(mol: Chem.Mol, seed: int) -> Chem.Mol:
    """One ETKDGv3 conformer with explicit hydrogens; random starting coordinates as the fallback."""
    mol = Chem.AddHs(mol)
    for random_coords in (False, True):
        params = AllChem.ETKDGv3()
        params.randomSeed = seed
        params.useRandomCoords = random_coords
        if AllChem.EmbedMolecule(mol, params) == 0:
            return mol
    raise LigandPrepError("no conformer (ETKDG embedding failed)")


def relax(mol: Chem.Mol, max_iters: int = 2000) -> None:
    """MMFF94 in place, UFF where MMFF has no parameters; neither is a failure (Vina only needs sane geometry)."""
    if AllChem.MMFFHasAllMoleculeParams(mol):
        AllChem.MMFFOptimizeMolecule(mol, mmffVariant="MMFF94", maxIters=max_iters)
    elif AllChem.UFFHasAllMoleculeParams(mol):
        AllChem.UFFOptimizeMolecule(mol, maxIters=max_iters)


def meeko_pdbqt(mol: Chem.Mol) -> str:
    """Meeko's rigid/torsion tree and AutoDock atom types as a PDBQT string (first setup)."""
    from meeko import MoleculePreparation, PDBQTWriterLegacy

    try:
        setups = MoleculePreparation().prepare(mol)
        text, ok, error = PDBQTWriterLegacy.write_string(setups[0])
    except Exception as exc:
        raise LigandPrepError(f"meeko: {type(exc).__name__}: {first_line(str(exc))}") from None
    if not ok:
        raise LigandPrepError(f"meeko: {first_line(error)}")
    return text
