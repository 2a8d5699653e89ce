"""Templates that name their carbonyl or alkene partner: **reductive aminations** an amine and a carbonyl or
carbinol carbon and no claimed stereocentre at the new bond; **reductive methylations** (Eschweiler-Clarke,
formaldehyde and a hydride) an amine nitrogen, not an amide's or a guanidine's; **Wittig olefinations** a
phosphonium salt or phosphonate ester, not a phosphonic acid; **Julia olefinations** an aryl or heteroaryl
sulfone; **aldehyde** templates an aldehyde (not formic acid, an ester or an amide); **aldehyde/ketone** templates no acid-derivative carbonyl; **Michael additions** an
alkene with an acceptor group."""

from __future__ import annotations

from rdkit import Chem

from mara_chem.scoring.retro.checks.chem import (ACIDIC_CH, AMINE_NH, carbonyl, matches_at, pattern,
                                                 second_primary_amine, sp3)
from mara_chem.scoring.retro.checks.proposal import Proposal

#: what makes an alkene a Michael acceptor: a conjugated carbonyl, nitrile, sulfonyl, nitro or azine
_MICHAEL_EWG = "[$([CX3]=[O,S]),$(C#N),$([SX4](=O)=O),$([N+](=O)[O-]),$(c:n),$(P(=O))]"


def reductive_amination_problem(proposal: Proposal) -> str | None:
    """A reductive amination at its new C-N bond: an amine N-H meets an aldehyde/ketone carbon or an sp3
    carbinol carbon (borrowing hydrogen), which becomes an sp3 carbon without a defined stereocentre (the
    step sets none): no phenol carbon, no amide nitrogen, no tertiary carbinol (ketamine's 2-hydroxy-2-aryl
    cyclohexanone "aminated" at its carbinol); and the amine carries no second primary aliphatic amine
    that is not its twin by symmetry (lisinopril's lysyl-proline, whose alpha- and epsilon-NH2 both condense: the
    published route protects the epsilon one; a symmetric diamine, used in excess, passes)."""
    for a, b in proposal.formed_bonds:
        for c, n in ((a, b), (b, a)):
            atom, nitrogen = proposal.atom(c), proposal.atom(n)
            if atom.GetSymbol() != "C" or nitrogen.GetSymbol() != "N":
                continue
            at_carbonyl = carbonyl(atom) and not any(nb.GetSymbol() not in ("C", "O") for nb in atom.GetNeighbors())
            carbinol = (sp3(atom) and any(nb.GetSymbol() == "O" and nb.GetTotalNumHs() for nb in proposal.leaving(c)))
            amine = matches_at(proposal.reactants[n[0]], AMINE_NH, n[1])
            if carbinol and amine and not atom.GetTotalNumHs():
                return ("a reductive amination of a tertiary alcohol (borrowing hydrogen oxidises the carbinol to the "
                        "carbonyl first: a tertiary one has no H to give)")
            if not ((at_carbonyl or carbinol) and amine):
                continue
            made = proposal.product_atom(atom)
            if made.GetChiralTag() != Chem.ChiralType.CHI_UNSPECIFIED:
                return "a reductive amination claiming a defined stereocentre at its new C-N bond"
            if second_primary_amine(proposal.reactants[n[0]], n[1]):
                return ("a reductive amination of an amine that carries a second, different primary amine (the "
                        "carbonyl takes either: protect one)")
            return None
    return "reductive amination without an amine N-H and a carbonyl or alcohol carbon at the new C-N bond"


#: a nitrogen formaldehyde and a hydride do not methylate: an amide, carbamate, urea, imide or sulfonamide N-H
#: (no iminium ion forms from it), or an amidine's, guanidine's or biguanide's (formaldehyde closes their aminals
#: and triazines: metformin's dimethylamino group "from" biguanide)
_ACYLATED_N = "[NX3;$(N[CX3]=[O,S,N]),$(NS(=O)=O)]"


def reductive_methylation_problem(proposal: Proposal) -> str | None:
    """An Eschweiler-Clarke or formaldehyde reductive methylation at its new N-CH3 bond: the nitrogen must be
    an amine's (``_ACYLATED_N``). An amide, imide or sulfonamide N-H forms no iminium ion with formaldehyde
    (tadalafil's diketopiperazine N-H "methylated" this way); such an N is methylated with a base and an
    alkylating agent."""
    for a, b in proposal.formed_bonds:
        for n in (a, b):
            if proposal.atom(n).GetSymbol() == "N" and matches_at(proposal.reactants[n[0]], _ACYLATED_N, n[1]):
                return ("a reductive methylation of an amide, imide, sulfonamide, amidine or guanidine N-H "
                        "(formaldehyde forms no iminium ion with it, or closes an aminal)")
    return None


#: a phosphonic acid (P(=O)(OH)): its P-OH is deprotonated, never the P-CH, so it is no Wittig ylide's or
#: Horner-Wadsworth-Emmons carbanion's source
_PHOSPHONIC_ACID = "[PX4](=O)[OX2H1]"


def wittig_reagent_problem(proposal: Proposal) -> str | None:
    """A Wittig olefination's phosphorus reagent is a phosphonium salt (its ylide) or a phosphonate ester with
    an acidifying group (Horner-Wadsworth-Emmons). One rxn-insight template writes it as an alkylphosphonic
    acid, which forms no carbanion at carbon (risperidone's, fingolimod's and propylthiouracil's alkenes)."""
    if any(m.HasSubstructMatch(pattern(_PHOSPHONIC_ACID)) for m in proposal.reactants):
        return "a Wittig olefination with a phosphonic acid (no ylide forms from it: a phosphonium salt is needed)"
    return None


#: a Julia olefination's sulfone: an aryl or heteroaryl sulfone (phenyl for the classic Julia-Lythgoe, a
#: benzothiazolyl or phenyltetrazolyl for Julia-Kocienski); a dialkyl sulfone's anion adds but does not eliminate
_JULIA_SULFONE = "[CX4;!H0][SX4](=O)(=O)[a]"


def julia_sulfone_problem(proposal: Proposal) -> str | None:
    """A Julia olefination needs an aryl or heteroaryl alkyl sulfone: the templates also write a dialkyl sulfone
    (propylthiouracil's ethyl methyl sulfone, fluvoxamine's methoxymethyl methyl sulfone), which forms no
    alkene."""
    for end in proposal.centre:
        mol = proposal.reactants[end[0]]
        if proposal.atom(end).GetSymbol() == "C" and any(nb.GetSymbol() == "S" for nb in proposal.leaving(end)):
            if not matches_at(mol, _JULIA_SULFONE, end[1]):
                return "a Julia olefination with a dialkyl sulfone (it needs an aryl or heteroaryl sulfone)"
    return None


def _makes_acid_derivative(proposal: Proposal) -> bool:
    """Whether a carbonyl carbon at the reaction centre is, in the product, an acid/ester/amide carbon."""
    for end in proposal.centre:
        atom = proposal.atom(end)
        if atom.GetSymbol() != "C":
            continue
        made = proposal.product_atom(atom)
        if carbonyl(made) and any(nb.GetSymbol() in ("O", "N", "S", "Cl", "Br", "I", "F")
                                  and proposal.product.GetBondBetweenAtoms(made.GetIdx(), nb.GetIdx()).GetBondType()
                                  == Chem.BondType.SINGLE for nb in made.GetNeighbors()):
            return True
    return False


def acid_derivative_carbonyl_problem(proposal: Proposal) -> str | None:
    """An aldehyde or ketone template whose carbonyl comes out an acid, ester or amide carbon."""
    if _makes_acid_derivative(proposal):
        return "an aldehyde/ketone template whose carbonyl is an acid, ester or amide carbon"
    return None


def michael_problem(proposal: Proposal) -> str | None:
    """A Michael addition at its new bond: the carbon was a C=C whose other end carries an acceptor group."""
    ewg = pattern(_MICHAEL_EWG)
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            mol = proposal.reactants[c[0]]
            for bond in atom.GetBonds():
                if bond.GetBondType() != Chem.BondType.DOUBLE or bond.GetOtherAtom(atom).GetSymbol() != "C":
                    continue
                alpha = bond.GetOtherAtom(atom)
                hits = {m[0] for m in mol.GetSubstructMatches(ewg)}
                if any(nb.GetIdx() in hits for nb in alpha.GetNeighbors() if nb.GetIdx() != atom.GetIdx()):
                    return None
    return "michael addition to an alkene without an acceptor group (no conjugated C=O, C#N, SO2, NO2)"


def michael_donor_problem(proposal: Proposal) -> str | None:
    """A Michael addition's carbon donor is a carbanion: an sp3 C-H it gives up must be acidic (alpha to a
    carbonyl, nitrile, nitro or sulfonyl group: nitromethane, a malonate), unless a metal or boron leaves it.
    'Michael addition methyl' wrote baclofen's CH2NH2 from methylamine's methyl, pregabalin's isobutyl from
    isobutane."""
    for a, b in proposal.formed_bonds:
        for donor, acceptor in ((a, b), (b, a)):
            atom = proposal.atom(donor)
            if atom.GetSymbol() != "C" or not sp3(atom) or not atom.GetTotalNumHs() or proposal.leaving(donor):
                continue
            if not any(bond.GetBondType() == Chem.BondType.DOUBLE for bond in proposal.atom(acceptor).GetBonds()):
                continue  # the other end is no alkene carbon: this is not the donor's bond
            if not matches_at(proposal.reactants[donor[0]], ACIDIC_CH, donor[1]):
                return ("a Michael addition from a C-H that no base removes (the donor must be alpha to a "
                        "carbonyl, nitrile, nitro or sulfonyl group)")
    return None


def aldehyde_problem(proposal: Proposal) -> str | None:
    """An aldehyde template at its new bond: a carbonyl carbon with no second heteroatom (no formic acid,
    ester or amide in the aldehyde's place)."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            if carbonyl(atom):
                hetero = [nb for nb in atom.GetNeighbors() if nb.GetSymbol() not in ("C", "H")
                          and atom.GetOwningMol().GetBondBetweenAtoms(atom.GetIdx(), nb.GetIdx()).GetBondType()
                          == Chem.BondType.SINGLE]
                if hetero:
                    return "an aldehyde template applied to an acid, ester or amide carbonyl"
    return None
