"""Radical steps: a **Minisci** C-H alkylation only at a heteroarene's one open C2/C4-type site
(symmetry-equivalent sites counted once; more give a mixture)."""

from __future__ import annotations

from rdkit import Chem

from mara_chem.scoring.retro.checks.chem import pyridine_type_n, without_maps
from mara_chem.scoring.retro.checks.proposal import Proposal


def _azine_open_sites(mol: Chem.Mol) -> set[int]:
    """Aromatic C-H carbons alpha or gamma to a pyridine-type N of a six-membered aromatic ring: the sites a
    nucleophilic radical attacks on the protonated azine (Minisci)."""
    sites = set()
    for ring in mol.GetRingInfo().AtomRings():
        if len(ring) != 6 or not all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in ring):
            continue
        for k, idx in enumerate(ring):
            if not pyridine_type_n(mol.GetAtomWithIdx(idx), ring):
                continue
            for offset in (1, 3, 5):
                carbon = mol.GetAtomWithIdx(ring[(k + offset) % 6])
                if carbon.GetSymbol() == "C" and carbon.GetTotalNumHs():
                    sites.add(carbon.GetIdx())
    return sites


def minisci_problem(proposal: Proposal) -> str | None:
    """A Minisci C-H alkylation at its new bond: the heteroarene's C-H there must be its only open C2/C4-type
    site (alpha or gamma to a ring N), counting symmetry-equivalent sites once; with two or more the radical
    takes each and the product is a mixture (pioglitazone's 3-ethylpyridine, C2/C4/C6; nevirapine's two
    pyridines). A site fixed by a leaving group (a halide substitution) is not read."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            if atom.GetSymbol() != "C" or not atom.GetIsAromatic() or proposal.leaving(c):
                continue
            mol = without_maps(proposal.reactants[c[0]])
            sites = _azine_open_sites(mol)
            if c[1] not in sites:
                continue
            ranks = Chem.CanonicalRankAtoms(mol, breakTies=False)
            if len({ranks[i] for i in sites}) > 1:
                return ("a Minisci alkylation of a heteroarene with more than one open C2/C4 site (alpha or gamma "
                        "to a ring N: the radical attacks each, a mixture of regioisomers)")
    return None
