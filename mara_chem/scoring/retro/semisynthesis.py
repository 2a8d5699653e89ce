"""Whether a building block is the target's own natural-product core, so that a route from it is a semisynthesis.

A Bloom or catalogue hit that already holds the target's polycyclic, stereo-rich core (salvinorin B for
salvinorin A, digoxigenin for digoxin, 10-deacetylbaccatin III for paclitaxel) makes the "route" a
semisynthesis from the natural product or a close relative: a real way to make the compound, but not a
synthesis from building blocks, and the search reports it as such. The core is each ring system of the
target (rings sharing an atom) with at least ``MIN_RINGS`` rings and ``MIN_STEREOCENTRES`` stereocentres on
its atoms; a precursor holds it when the ring system's atoms and bonds (elements, aromaticity, bond orders;
stereo ignored) are a substructure of the precursor. Flat polycycles (tricyclic antidepressants, acridines)
and small stereo rings (piperidines, tropanes) are no core.
"""

from __future__ import annotations

from functools import lru_cache

from rdkit import Chem

MIN_RINGS = 3
MIN_STEREOCENTRES = 2


def _ring_systems(mol: Chem.Mol) -> list[tuple[set[int], int]]:
    """Atom sets of the ring systems (rings sharing at least one atom) with their ring counts."""
    systems: list[tuple[set[int], int]] = []
    for ring in mol.GetRingInfo().AtomRings():
        atoms, count = set(ring), 1
        rest = []
        for other, n in systems:
            if other & atoms:
                atoms |= other
                count += n
            else:
                rest.append((other, n))
        systems = [*rest, (atoms, count)]
    return systems


@lru_cache(maxsize=4096)
def core_patterns(target_smiles: str) -> tuple[str, ...]:
    """SMARTS of the target's natural-product cores (empty for most drugs)."""
    mol = Chem.MolFromSmiles(target_smiles)
    if mol is None:
        return ()
    centres = {i for i, _ in Chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=False)}
    mol = Chem.Mol(mol)
    Chem.RemoveStereochemistry(mol)  # a stereo atom's SMARTS ([C@H]) would also fix its H count
    out = []
    for atoms, rings in _ring_systems(mol):
        if rings < MIN_RINGS or len(centres & atoms) < MIN_STEREOCENTRES:
            continue
        bonds = [b.GetIdx() for b in mol.GetBonds() if b.IsInRing()
                 and b.GetBeginAtomIdx() in atoms and b.GetEndAtomIdx() in atoms]
        out.append(Chem.MolFragmentToSmarts(mol, atomsToUse=sorted(atoms), bondsToUse=bonds))
    return tuple(out)


def holds_core(target_smiles: str, precursor: Chem.Mol) -> bool:
    """Whether ``precursor`` already holds one of the target's natural-product cores."""
    return any(precursor.HasSubstructMatch(_query(smarts)) for smarts in core_patterns(target_smiles))


@lru_cache(maxsize=4096)
def _query(smarts: str) -> Chem.Mol:
    return Chem.MolFromSmarts(smarts)
