"""Acylations at the bond they form: **amide couplings** need an acyl donor carbon (carboxylic acid, acyl halide,
anhydride or ester: not a carbonic half-ester or chloroformate) and an amine N-H at the new C-N bond, and no
N-acylation takes a donor that carries a free aliphatic amine (an unprotected amino acid couples with itself), and
no acylation a donor that closes its own five- or six-membered lactam or lactone;
**esterifications** the acyl donor's carbon, or a carboxylic acid's O-H (Mitsunobu), at the new C-O bond;
**Friedel-Crafts acylations** a carboxylic acyl donor and an arene ring that is neither deactivated nor carries a free
phenol or aryl amine; no acylation at an acyl halide or haloformate whose
molecule carries a second one (the nucleophile takes both)."""

from __future__ import annotations

from rdkit import Chem

from mara_chem.scoring.retro.checks.chem import (ACYL_DONOR, ALIPHATIC_AMINE_NH, AMINE_NH, CARBOXYLIC_OH,
                                                  DEACTIVATING_GROUP, carbonyl, carries, closes_own_ring, matches_at,
                                                  pattern, pyridine_type_n)
from mara_chem.scoring.retro.checks.proposal import Proposal, halide_or_sulfonate

#: ester-forming templates whose acyl partner is a carboxylic acid or its derivative (lower-case names)
CARBOXYLIC_ESTERIFICATIONS = frozenset({
    "esterification of carboxylic acids", "mitsunobu esterification", "schotten-baumann to ester",
    "transesterification", "intramolecular transesterification/lactone formation",
    "acetic anhydride and alcohol to ester"})


def amide_problem(proposal: Proposal) -> str | None:
    """An amide coupling at its new C-N bond: an acyl donor carbon and an amine N-H nitrogen, the donor
    without a free aliphatic amine of its own (an unprotected amino acid couples with itself)."""
    donor_seen = False
    for a, b in proposal.formed_bonds:
        for c, n in ((a, b), (b, a)):
            if proposal.atom(c).GetSymbol() != "C" or proposal.atom(n).GetSymbol() != "N":
                continue
            if not matches_at(proposal.reactants[c[0]], ACYL_DONOR, c[1]):
                continue
            donor_seen = True
            if matches_at(proposal.reactants[n[0]], AMINE_NH, n[1]):
                return None
    if not donor_seen:
        return "amide coupling without an acyl donor (acid, acyl halide, anhydride or ester) at the new C-N bond"
    return "amide coupling without an N-H amine at the new C-N bond"


def ester_problem(proposal: Proposal) -> str | None:
    """An esterification at its new C-O bond: the acyl donor's carbon meets an alcohol O-H, or a carboxylic
    acid's O-H meets the alcohol's carbon (Mitsunobu)."""
    for a, b in proposal.formed_bonds:
        for c, o in ((a, b), (b, a)):
            if proposal.atom(c).GetSymbol() != "C" or proposal.atom(o).GetSymbol() != "O":
                continue
            if matches_at(proposal.reactants[c[0]], ACYL_DONOR, c[1]) and proposal.atom(o).GetTotalNumHs() > 0:
                return None
            if matches_at(proposal.reactants[o[0]], CARBOXYLIC_OH, o[1]):
                return None
    return "esterification without a carboxylic acyl donor (acid, acyl halide, anhydride or ester) at the new C-O bond"


def friedel_crafts_acylation_problem(proposal: Proposal) -> str | None:
    """A Friedel-Crafts acylation at its new C-C bond: a carboxylic acyl donor's carbon (no carbamic acid)."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            if matches_at(proposal.reactants[c[0]], ACYL_DONOR, c[1]):
                return None
    return "friedel-crafts acylation without a carboxylic acyl donor at the new C-C bond"


def acyl_donor_amine_problem(proposal: Proposal) -> str | None:
    """Any N-acylation (whatever the template calls itself): the acyl donor must not carry a free aliphatic
    amine of its own, or it couples with itself (an unprotected amino acid: tocainide from alanine), nor a free
    thiol (captopril's 3-mercapto-2-methylpropanoic acid, coupled as its S-acetyl in the published route)."""
    for a, b in proposal.formed_bonds:
        for c, n in ((a, b), (b, a)):
            if c[0] == n[0] or proposal.atom(c).GetSymbol() != "C" or proposal.atom(n).GetSymbol() != "N":
                continue
            donor = proposal.reactants[c[0]]
            if not matches_at(donor, ACYL_DONOR, c[1]):
                continue
            if donor.HasSubstructMatch(pattern(ALIPHATIC_AMINE_NH)):
                return "amide coupling of an acyl donor that carries a free aliphatic amine (protect it first)"
            if donor.HasSubstructMatch(pattern("[SX2H1]")):
                return ("amide coupling of an acyl donor that carries a free thiol (activated, it forms thioesters: "
                        "the thiol is carried as its S-acetyl)")
    return None


#: a nucleophile an activated acyl donor acylates within its own molecule: an amine N-H (aryl amines too), an
#: alcohol or phenol O-H, a thiol S-H
_OWN_NUCLEOPHILE = f"[$({AMINE_NH}),$([OX2H1][#6;!$([CX3]=O)]),$([SX2H1])]"


def self_acylation_problem(proposal: Proposal) -> str | None:
    """An acylation (amide or ester) whose acyl donor carries an amine N-H, O-H or S-H four or five bonds from
    its carbonyl carbon: activated, it closes the five- or six-membered lactam, lactone or thiolactone on itself
    first (diclofenac's acid, as its chloride or activated ester, gives the oxindole: aceclofenac's ester is made
    from diclofenac's salt and a bromoacetate). A path through three atoms of one ring (a meta substituent) closes
    no ring and passes."""
    for a, b in proposal.formed_bonds:
        for c, x in ((a, b), (b, a)):
            if c[0] == x[0] or proposal.atom(x).GetSymbol() not in ("N", "O", "S") \
                    or not matches_at(proposal.reactants[c[0]], ACYL_DONOR, c[1]):
                continue
            donor = proposal.reactants[c[0]]
            if closes_own_ring(donor, c[1], [m[0] for m in donor.GetSubstructMatches(pattern(_OWN_NUCLEOPHILE))]):
                return ("an acylation whose acyl donor carries an N-H, O-H or S-H four or five bonds from its "
                        "carbonyl (activated, it closes its own lactam or lactone first)")
    return None


def amine_partner_acid_problem(proposal: Proposal) -> str | None:
    """An amide coupling of a carboxylic acid (through a coupling agent) with an amine that carries a free
    carboxylic acid of its own: the agent activates that acid too, and the amine couples with itself (valsartan's
    valine amine 'coupled' with valeric acid). An acyl halide on an amino acid (Schotten-Baumann) passes."""
    for a, b in proposal.formed_bonds:
        for c, n in ((a, b), (b, a)):
            if c[0] == n[0] or proposal.atom(c).GetSymbol() != "C" or proposal.atom(n).GetSymbol() != "N":
                continue
            if matches_at(proposal.reactants[c[0]], "[CX3](=O)[OX2H1]", c[1]) \
                    and proposal.reactants[n[0]].HasSubstructMatch(pattern(CARBOXYLIC_OH)):
                return ("amide coupling of a carboxylic acid with an amine that carries a free acid of its own "
                        "(the coupling agent activates both)")
    return None


#: what a Friedel-Crafts acylation's acyl donor must not carry besides its reacting carbonyl: a second
#: carboxylic acid or acyl halide (no selectivity between them: ketoprofen's and tolmetin's diacids), a phenol
#: (O-acylated, and it binds the Lewis acid: tolcapone's catechol), an N-H azole or amine (acylated or
#: complexed: mebendazole's benzimidazole)
_FC_DONOR_COMPETITOR = ("[$([OX2H1][CX3]=O),$([CX3](=O)[Cl,Br,I]),$([OX2H1]c),$([nH]),"
                        f"$({ALIPHATIC_AMINE_NH})]")


def friedel_crafts_donor_problem(proposal: Proposal) -> str | None:
    """A Friedel-Crafts acylation's donor carries no second acid or acyl halide, phenol, N-H azole or amine
    (``_FC_DONOR_COMPETITOR``) beside the carbonyl that reacts."""
    competitor = pattern(_FC_DONOR_COMPETITOR)
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            donor = proposal.reactants[c[0]]
            if not matches_at(donor, ACYL_DONOR, c[1]):
                continue
            reacting = {c[1]} | {nb.GetIdx() for nb in proposal.leaving(c)}
            if any(match[0] not in reacting and not _anhydride_partner(donor, c[1], match[0])
                   for match in donor.GetSubstructMatches(competitor)):
                return ("a Friedel-Crafts acylation whose acyl donor carries a second acid or acyl halide, a "
                        "phenol, an N-H azole or an amine (no selectivity; the Lewis acid is bound)")
    return None


#: a substituent that deactivates the ring it sits on past a Friedel-Crafts acylation (its first atom bonds to the
#: ring): a nitro, cyano, sulfonyl, acyl (ketone, aldehyde, acid, ester, amide carbonyl) or CF3 group, an
#: ammonium. Halogens are weak deactivators and pass (4-chlorobenzophenone is made from chlorobenzene).
FC_DEACTIVATING = f"[$({DEACTIVATING_GROUP}),$([NX4+])]"
#: a ring substituent that takes the acyl group or the Lewis acid first (its first atom bonds to the ring): a free
#: phenol (O-acylated: aryl hydroxy ketones come from the Fries rearrangement) or a basic aryl amine, primary,
#: secondary or tertiary (complexed or N-acylated). An anilide or sulfonanilide N passes: acetanilide is acylated.
_FC_ACCEPTOR_COMPETITOR = "[$([OX2H1]),$([NX3;+0;!$(N[#6,#16]=[O,S,N]);!$(N[#7,#8,#16])])]"


def _ring_of(mol: Chem.Mol, atom: int) -> set[int]:
    """The smallest aromatic ring that holds the atom (empty when none does)."""
    rings = [set(r) for r in mol.GetRingInfo().AtomRings()
             if atom in r and all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in r)]
    return min(rings, key=len) if rings else set()


def _basic_ring_n(mol: Chem.Mol, ring: set[int]) -> bool:
    """A pyridine-type or charged ring nitrogen in the ring or an aromatic ring fused to it (pyridine, quinoline,
    benzimidazole, thiazole): it binds the Lewis acid, and the ring reacts as its salt, deactivated."""
    rings = [set(r) for r in mol.GetRingInfo().AtomRings()
             if all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in r) and (r == ring or len(ring & set(r)) >= 2)]
    atoms = set().union(ring, *rings)
    return any(pyridine_type_n(atom, atoms) or (atom.GetSymbol() == "N" and atom.GetFormalCharge() > 0)
               for atom in map(mol.GetAtomWithIdx, atoms))


def friedel_crafts_acceptor_problem(proposal: Proposal) -> str | None:
    """A Friedel-Crafts acylation needs an arene ring that the acylium ion attacks: not one carrying a nitro,
    cyano, sulfonyl, acyl or CF3 group (``FC_DEACTIVATING``) or a basic ring nitrogen in it or a ring fused to it
    (tolcapone's 3-nitrocatechol, mebendazole's benzimidazole, a benzenesulfonamide: nitrobenzene is a solvent
    for the reaction), and not one carrying a free phenol or aryl amine (``_FC_ACCEPTOR_COMPETITOR``), which takes
    the acyl group or the Lewis acid first, as the donor rule says for the donor. Furans, thiophenes and pyrroles
    are acylated (2-acetylthiophene, tolmetin's N-methylpyrrole) and pass."""
    deactivating, competitor = pattern(FC_DEACTIVATING), pattern(_FC_ACCEPTOR_COMPETITOR)
    for a, b in proposal.formed_bonds:
        for c, d in ((a, b), (b, a)):
            mol = proposal.reactants[c[0]]
            if not proposal.atom(c).GetIsAromatic() or not matches_at(proposal.reactants[d[0]], ACYL_DONOR, d[1]):
                continue
            ring = _ring_of(mol, c[1])
            substituents = {nb.GetIdx() for i in ring for nb in mol.GetAtomWithIdx(i).GetNeighbors()
                            if nb.GetIdx() not in ring}
            if _basic_ring_n(mol, ring) or any(m[0] in substituents for m in mol.GetSubstructMatches(deactivating)):
                return ("a Friedel-Crafts acylation of a ring carrying a nitro, cyano, sulfonyl, acyl or CF3 group or "
                        "a basic ring nitrogen (deactivated: the acylium ion does not attack it)")
            if any(m[0] in substituents for m in mol.GetSubstructMatches(competitor)):
                return ("a Friedel-Crafts acylation of a ring carrying a free phenol or aryl amine (acylated at O or N "
                        "first, and it binds the Lewis acid)")
    return None


def _anhydride_partner(donor: Chem.Mol, carbonyl_carbon: int, atom: int) -> bool:
    """The competing group is the second acid of a diacid that closes a five- or six-membered cyclic anhydride
    with the reacting one (succinic, glutaric, phthalic acid): it acylates through the anhydride, once
    (fenbufen from succinic anhydride and biphenyl)."""
    group = donor.GetAtomWithIdx(atom)
    carbons = [atom] if group.GetSymbol() == "C" else [nb.GetIdx() for nb in group.GetNeighbors()
                                                       if nb.GetSymbol() == "C"]
    distances = Chem.GetDistanceMatrix(donor)
    return any(carbonyl(donor.GetAtomWithIdx(x)) and distances[carbonyl_carbon][x] in (3, 4) for x in carbons)


#: an acyl halide, haloformate or carbamoyl halide (first atom: the carbonyl carbon)
_ACYL_HALIDE = "[CX3](=O)[Cl,Br,I]"


def second_acyl_halide_problem(proposal: Proposal) -> str | None:
    """Any acylation (whatever the template calls itself) at an acyl halide or haloformate carbon whose molecule
    carries a second acyl halide or haloformate: the nucleophile acylates at both, the two halides cannot be told
    apart well enough to leave one for a later step (a diol carrying a chloroformate and a bromoformate, one of
    them "coupled" with Boc-isopropylamine for carisoprodol; a diacid dichloride mono-amidated). Phosgene's two
    chlorides sit on one carbon and pass."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            if atom.GetSymbol() != "C" or not halide_or_sulfonate(proposal, c):
                continue
            mol = proposal.reactants[c[0]]
            if matches_at(mol, _ACYL_HALIDE, c[1]) and carries(mol, _ACYL_HALIDE, c[1]):
                return ("an acylation at one of two acyl halides or haloformates in one molecule (the nucleophile "
                        "takes both: a mixture)")
    return None


def acyl_substituent_problem(proposal: Proposal, lowered: str) -> str | None:
    """Templates that make a ketone or ester from an acyl group they write as ``[*]`` (an N,N-dimethylamide and an
    aryl halide to the aryl ketone; an alcohol oxidised onto another alcohol's O) need that acyl group to be a
    carbon acyl: from a urea, carbamate or hydrazide they write an amide or carbamate by a reaction that makes none
    (enzalutamide's and sorafenib's N-methylamides, isoniazid's hydrazide, loratadine's carbamate)."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            if atom.GetSymbol() != "C" or not proposal.in_product(c[0], atom):
                continue
            made = proposal.product_atom(atom)
            if not carbonyl(made):
                continue
            others = [nb for nb in made.GetNeighbors()
                      if proposal.product.GetBondBetweenAtoms(made.GetIdx(), nb.GetIdx()).GetBondType()
                      != Chem.BondType.DOUBLE]
            if sum(1 for nb in others if nb.GetSymbol() != "C") > (1 if "esterification" in lowered else 0):
                return (f"{lowered} writing an amide, carbamate or urea carbon (its acyl partner must carry a carbon "
                        "substituent)")
    return None
