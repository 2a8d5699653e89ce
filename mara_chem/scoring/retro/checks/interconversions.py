"""Functional-group interconversions that name their reagent or group: **C-H halogenations** an electrophilic
halogen (not a halide ion); **nitrile** templates a nitrile (a cyanate ester, O-C#N, is none); **aromatic
nitrations** the positions the ring's groups direct to; **non-aromatic nitrations** an active methylene or an enol
or enamine C-H; **methyl ether cleavages** one methyl ether in the molecule, or the one a carbonyl beside it
chelates."""

from __future__ import annotations

from mara_chem.scoring.retro.checks.chem import CYANATE_ESTER, matches_at, pattern
from mara_chem.scoring.retro.checks.proposal import Proposal


def halogenation_problem(proposal: Proposal) -> str | None:
    """A C-halogen bond made at a carbon that loses nothing (a C-H halogenation) needs X2, an N-X or S-X
    reagent: hydrogen halides and halide ions only displace leaving groups."""
    for a, b in proposal.formed_bonds:
        for c, x in ((a, b), (b, a)):
            if proposal.atom(c).GetSymbol() != "C" or proposal.atom(x).GetSymbol() not in ("F", "Cl", "Br", "I"):
                continue
            if not proposal.leaving(c) and proposal.atom(x).GetDegree() == 0:
                return "a C-H halogenation from a hydrogen halide or halide ion (needs X2, NXS or SO2X2)"
    return None


def cyanate_problem(proposal: Proposal) -> str | None:
    """A nitrile template on a cyanate ester, which carries no nitrile."""
    if any(m.HasSubstructMatch(pattern(CYANATE_ESTER)) for m in (proposal.product, *proposal.reactants)):
        return "a nitrile template applied to a cyanate ester (O-C#N is no nitrile)"
    return None


def nitrite_hydrazine_problem(proposal: Proposal) -> str | None:
    """A hydrazine from an amine and nitrite goes through the N-nitroso compound, which only a secondary amine
    forms: a primary amine gives the diazonium ion and loses nitrogen (phenelzine 'from' phenethylamine)."""
    for a, b in proposal.formed_bonds:
        for n in (a, b):
            atom = proposal.atom(n)
            if atom.GetSymbol() == "N" and atom.GetTotalNumHs() >= 2 and sum(
                    1 for nb in atom.GetNeighbors() if nb.GetSymbol() == "C") == 1:
                return "a hydrazine from a primary amine and nitrite (its diazonium ion loses N2)"
    return None


#: what nitrating conditions destroy or redirect: a free aryl amine or phenol (oxidised; its ring is nitrated
#: first) or an alcohol (esterified to the nitrate)
_NITRATION_SENSITIVE = "[$([NX3;H1,H2]c),$([OX2H1]c),$([OX2H1][CX4])]"
#: a meta-directing group ortho or para to the nitrated carbon, or a ring nitrogen of an azine in its ring
_NITRATION_MISDIRECTED = ("[c;$(c:c-[$(S(=O)=O),$(C=O),$(C#N),$([N+](=O)[O-]),$(C(F)(F)F)]),"
                          "$(c:c:c:c-[$(S(=O)=O),$(C=O),$(C#N),$([N+](=O)[O-]),$(C(F)(F)F)]),"
                          "$(c1:n:a:a:a:a1),$(c1:a:n:a:a:a1),$(c1:a:a:n:a:a1)]")


def nitration_problem(proposal: Proposal) -> str | None:
    """An aromatic nitration goes to the positions its substituents direct it to, on a ring that survives it: not
    ortho or para to a sulfonyl, carbonyl, nitrile, nitro or CF3 group (they direct meta: sulfamethoxazole's
    4-nitrobenzenesulfonamide), not on an azine ring (lamotrigine's triazine), and not in a molecule with a free
    aryl amine, phenol or alcohol (dapsone's aniline, metronidazole's alcohol)."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            if not atom.GetIsAromatic():
                continue
            mol = proposal.reactants[c[0]]
            if matches_at(mol, _NITRATION_MISDIRECTED, c[1]):
                return "an aromatic nitration ortho or para to a meta-directing group, or on an azine ring"
            if mol.HasSubstructMatch(pattern(_NITRATION_SENSITIVE)):
                return "an aromatic nitration beside a free aryl amine, phenol or alcohol (oxidised or nitrated first)"
    return None


#: an acceptor group that makes the C-H beside it acidic (first atom bonded to that carbon)
_ACCEPTOR = "$([CX3]=O),$(C#N),$([N+](=O)[O-]),$(S(=O)=O)"
#: a carbon nitric acid nitrates without an arene: an active methylene or methine between two acceptor groups
#: (diethyl malonate to its nitromalonate, barbituric acid to 5-nitrobarbituric acid), or the C-H of an enol or
#: enamine, the carbon its O or N pushes electrons to (a 1,3-dione's enol, an enaminone)
_NITRATABLE_CH = (f"[C;!H0;$([CX4]([{_ACCEPTOR}])[{_ACCEPTOR}]),"
                  "$([CX3]=[CX3]-[$([OX2H1]),$([NX3;!$(N=*);!$([N+])])])]")


def aliphatic_nitration_problem(proposal: Proposal) -> str | None:
    """Nitric acid nitrates a non-aromatic carbon only where the C-H is acidic or the alkene electron-rich
    (``_NITRATABLE_CH``). rxn-insight's "Non-aromatic nitration with HNO3" writes any CH2 or vinyl C-H: on an
    unactivated alkene (camphor's bornene, holdout2/) or a formate C-H (carisoprodol's) nitric acid oxidises,
    adds nitrate and nitro groups across the C=C, or does nothing; a nitroalkene is made by a Henry reaction and
    dehydration, a nitroalkane by nitrite displacement."""
    for a, b in proposal.formed_bonds:
        for c, n in ((a, b), (b, a)):
            atom = proposal.atom(c)
            if atom.GetSymbol() != "C" or atom.GetIsAromatic() or proposal.atom(n).GetSymbol() != "N":
                continue
            if not matches_at(proposal.reactants[c[0]], _NITRATABLE_CH, c[1]):
                return ("a non-aromatic nitration at a carbon that is neither an active methylene nor an enol or "
                        "enamine C-H (nitric acid oxidises an alkene or alkane, or adds across it)")
    return None


#: a methyl ether (first atom: its oxygen), not a methyl ester
_METHYL_ETHER = "[OX2]([CH3])[#6;!$([CX3]=O)]"
#: an aryl methyl ether a carbonyl ortho to it chelates (BCl3 or AlCl3 cleave that one first)
_CHELATED_METHYL_ETHER = "[OX2]([CH3])c:c[CX3]=O"


def methyl_ether_cleavage_problem(proposal: Proposal) -> str | None:
    """A methyl ether cleaved while its molecule keeps another: BBr3, HBr or a thiolate cleave every methyl
    ether alike, so none frees one of two (pantoprazole's benzimidazole methyl ether beside the pyridine's
    two, vandetanib's 7-methoxy beside the 6-methoxy of a 4-chloroquinazoline). A methyl ether ortho to a
    carbonyl, which boron or aluminium trichloride chelates and cleaves first, passes when the other is not."""
    ethers = pattern(_METHYL_ETHER)
    for i, mol in enumerate(proposal.reactants):
        cleaved = [m[0] for m in mol.GetSubstructMatches(ethers)
                   if (i, m[0]) in proposal.centre and not proposal.in_product(i, mol.GetAtomWithIdx(m[1]))]
        if not cleaved:
            continue
        kept = [m[0] for m in mol.GetSubstructMatches(ethers) if m[0] not in cleaved]
        chelated = {m[0] for m in mol.GetSubstructMatches(pattern(_CHELATED_METHYL_ETHER))}
        if kept and not (set(cleaved) <= chelated and not chelated & set(kept)):
            return "a methyl ether cleaved beside another (BBr3 or HBr cleave both: no reagent tells them apart)"
    return None
