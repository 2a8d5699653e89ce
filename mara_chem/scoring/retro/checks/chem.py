"""Molecule-level helpers every check shares: cached SMARTS, a match at one atom, atom kinds, and the groups
that several reaction families read (an acyl donor, an amine N-H, a carboxylic acid's O-H)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rdkit import Chem

#: a carboxylic acyl donor; a carbonyl with a second heteroatom (a carbonic half-ester, a chloroformate, a
#: carbamic acid) is none: physostigmine's carbamate was "coupled" from an aryl hydrogen carbonate
ACYL_DONOR = "[CX3;!$(C(=O)([!#6;!#1])[!#6;!#1])](=O)[OX2H1,Cl,Br,I,$(O[CX3]=O),$(O[#6])]"
#: an N-H an acyl donor turns into an amide: not an amide's, a thioamide's, a hydrazine's or hydroxylamine's
AMINE_NH = "[NX3;!H0;!$(N[N,O]);!$(NC=[O,S])]"
#: a free aliphatic amine N-H (not on an aryl, a heteroatom or an amide/amidine carbon): the most
#: nucleophilic N-H a molecule can carry
ALIPHATIC_AMINE_NH = "[NX3;!H0;+0;!$(N[a]);!$(N[N,O,S]);!$(N[#6]=[#7,#8,#16])]"
#: an N-H that closes a ring on its own electrophile (an alkyl halide, an ester) without a base: an amine's, an
#: aryl amine's too; not an amide's, amidine's, sulfonamide's or sulfamide's (famotidine's sulfamoyl amidine
#: keeps its 3-chloropropyl chain)
CYCLISING_NH = "[NX3;!H0;+0;!$(N[N,O]);!$(N[CX3]=[O,S,N]);!$(NS(=O)=O)]"
#: a carboxylic acid's O-H (not a carbonic or carbamic acid's): the nucleophile of a Mitsunobu esterification
CARBOXYLIC_OH = "[OX2H1][CX3;!$(C([OX2H1])(=O)[!#6])]=O"
#: a C-H a base removes (the carbanion of an alkylation or Michael addition): alpha to a carbonyl, imine,
#: nitrile, nitro or sulfonyl group
ACIDIC_CH = "[CX4;!H0;$(C[CX3]=[O,N]),$(CC#N),$(C[N+](=O)[O-]),$(CS(=O)=O)]"
#: a ring substituent that deactivates an arene past Friedel-Crafts chemistry (its first atom bonds to the ring):
#: a sulfonyl, carbonyl (ketone, aldehyde, acid, ester, amide), nitrile, nitro or CF3 group
DEACTIVATING_GROUP = "[$(S(=O)=O),$([CX3]=O),$(C#N),$([N+](=O)[O-]),$(C(F)(F)F)]"
#: a cyanate ester (O-C#N): no nitrile, and no shelf-stable building block
CYANATE_ESTER = "[#6]O[CX2]#[NX1]"


@lru_cache(maxsize=None)
def pattern(smarts: str) -> Chem.Mol:
    """The compiled SMARTS, once per process (every check asks the same patterns again and again)."""
    return Chem.MolFromSmarts(smarts)


def matches_at(mol: Chem.Mol, smarts: str, atom: int, position: int = 0) -> bool:
    """Whether ``smarts`` matches ``mol`` with its atom ``position`` on ``atom``."""
    return any(match[position] == atom for match in mol.GetSubstructMatches(pattern(smarts), maxMatches=10_000))


def carries(mol: Chem.Mol, smarts: str, besides: int) -> bool:
    """Whether ``mol`` has a match of ``smarts`` whose first atom is not ``besides``."""
    return any(match[0] != besides for match in mol.GetSubstructMatches(pattern(smarts)))


def without_maps(mol: Chem.Mol) -> Chem.Mol:
    """A copy of ``mol`` without atom maps (a proposal's reactants carry them; the search sees none)."""
    copy = Chem.Mol(mol)
    for atom in copy.GetAtoms():
        atom.SetAtomMapNum(0)
    return copy


def unmapped_smiles(mol: Chem.Mol) -> str:
    """Canonical SMILES without atom maps."""
    return Chem.MolToSmiles(without_maps(mol))


def sp2_carbon(atom: Chem.Atom) -> bool:
    """An aryl or vinyl carbon."""
    return atom.GetSymbol() == "C" and (atom.GetIsAromatic() or any(
        b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(atom).GetSymbol() == "C" for b in atom.GetBonds()))


def sp3(atom: Chem.Atom) -> bool:
    """An sp3 carbon (not aromatic)."""
    return atom.GetSymbol() == "C" and not atom.GetIsAromatic() \
        and atom.GetHybridization() == Chem.HybridizationType.SP3


def carbonyl(atom: Chem.Atom) -> bool:
    """A carbon with a C=O double bond."""
    return atom.GetSymbol() == "C" and any(
        b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(atom).GetSymbol() == "O" for b in atom.GetBonds())


def pyridine_type_n(atom: Chem.Atom, ring: Sequence[int]) -> bool:
    """A ring nitrogen with a lone pair in the ring plane (-N=, no H, two ring bonds): a pyridine's, an azole's N3."""
    return atom.GetIdx() in ring and atom.GetSymbol() == "N" and not atom.GetTotalNumHs() and atom.GetDegree() == 2


def second_primary_amine(mol: Chem.Mol, nitrogen: int) -> bool:
    """Whether ``mol`` has a primary aliphatic amine other than ``nitrogen`` and not its twin by symmetry: a
    reagent at ``nitrogen`` takes either (a symmetric diamine, used in excess, reacts once)."""
    ranks = list(Chem.CanonicalRankAtoms(without_maps(mol), breakTies=False))  # atom maps break the symmetry
    return any(n != nitrogen and ranks[n] != ranks[nitrogen] and mol.GetAtomWithIdx(n).GetTotalNumHs() == 2
               for (n,) in mol.GetSubstructMatches(pattern(ALIPHATIC_AMINE_NH)))


def closes_own_ring(mol: Chem.Mol, carbonyl_atom: int, nucleophile_atoms: Sequence[int]) -> bool:
    """Whether one of ``nucleophile_atoms`` sits four or five bonds from ``carbonyl_atom``, so that its attack
    closes a five- or six-membered ring (a lactam or lactone), along a path through at most two atoms of any
    ring (a meta substituent reaches no such ring)."""
    distances = Chem.GetDistanceMatrix(mol)
    rings = [set(ring) for ring in mol.GetRingInfo().AtomRings()]
    for nucleophile in nucleophile_atoms:
        if distances[carbonyl_atom][nucleophile] in (4, 5):
            path = set(Chem.GetShortestPath(mol, carbonyl_atom, nucleophile))
            if all(len(path & ring) <= 2 for ring in rings):
                return True
    return False
