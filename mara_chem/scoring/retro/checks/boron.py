"""Boronic acids that protodeboronate before they couple: no Suzuki or Chan-Lam coupling of a boronic acid or
ester on a carbon beside a pyridine-type ring N (2-pyridyl) or between that N and a second heteroatom of an azole
(2-imidazolyl, 2-benzimidazolyl, 2-thiazolyl, 2-oxazolyl); a MIDA ester or trifluoroborate passes."""

from __future__ import annotations

from rdkit import Chem

from mara_chem.scoring.retro.checks.chem import pyridine_type_n
from mara_chem.scoring.retro.checks.proposal import Proposal


def _slow_release_boron(boron: Chem.Atom) -> bool:
    """A MIDA boronate (boron bound to the ligand's N) or a trifluoroborate: the boronic acid is set free slowly."""
    return any(nb.GetSymbol() == "N" for nb in boron.GetNeighbors()) or \
        sum(nb.GetSymbol() == "F" for nb in boron.GetNeighbors()) >= 3


def _protodeboronating_site(mol: Chem.Mol, atom: Chem.Atom) -> str | None:
    """Which fast-protodeboronating position a boron-bearing aromatic carbon is, or None: beside a pyridine-type
    N of a six-membered ring (``2-pyridyl``), or between a pyridine-type N and a second ring heteroatom of a
    five-membered ring (``2-azolyl``: imidazol-, benzimidazol-, thiazol-, oxazol-2-yl)."""
    for ring in mol.GetRingInfo().AtomRings():
        if atom.GetIdx() not in ring or not all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in ring):
            continue
        ring_neighbours = [nb for nb in atom.GetNeighbors() if nb.GetIdx() in ring]
        beside_n = any(pyridine_type_n(nb, ring) for nb in ring_neighbours)
        if len(ring) == 6 and beside_n:
            return "2-pyridyl"
        if len(ring) == 5 and beside_n and sum(nb.GetSymbol() in ("N", "O", "S") for nb in ring_neighbours) == 2:
            return "2-azolyl"
    return None


def azinyl_boron_problem(proposal: Proposal) -> str | None:
    """A Suzuki or Chan-Lam coupling whose boron, at the bond formed, sits on a ring carbon beside a pyridine-
    type N of a six-membered aromatic ring (2-pyridyl, 2-pyrimidinyl, lamotrigine's triazinyl) or between the
    pyridine-type N and a second heteroatom of a five-membered one (2-imidazolyl, albendazole's
    2-benzimidazolyl, 2-thiazolyl, 2-oxazolyl): those boronic acids and esters protodeboronate faster than they
    transmetalate (the ring N, protonated or bound to the metal, makes the C-B bond ylide-like). MIDA boronates
    and trifluoroborates (slow release) are accepted; the 4- and 5-positions of azoles are not read."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            borons = [nb for nb in proposal.leaving(c) if nb.GetSymbol() == "B"]
            if not borons or not atom.GetIsAromatic() or any(_slow_release_boron(x) for x in borons):
                continue
            site = _protodeboronating_site(proposal.reactants[c[0]], atom)
            if site == "2-pyridyl":
                return ("a coupling of a 2-pyridyl-type boronic acid or ester (boron beside a ring N: it "
                        "protodeboronates before it couples; use its MIDA ester or trifluoroborate)")
            if site == "2-azolyl":
                return ("a coupling of a 2-azolyl boronic acid or ester (boron between the ring N and a second "
                        "heteroatom of an imidazole, thiazole or oxazole: it protodeboronates before it couples; "
                        "use its MIDA ester or trifluoroborate)")
    return None
