"""Metal-catalysed couplings at the bond they form. **Suzuki, Stille, Hiyama** need an aryl/vinyl organometal
(B, Sn, Si) and an aryl/vinyl halide or triflate at the two ends of the new bond (no "Suzuki onto a carbinol
or a phenol carbon"); Negishi and Kumada the organometal and the halide; Heck, Sonogashira, Buchwald-Hartwig,
Ullmann an aryl/vinyl halide or triflate at the bond; Chan-Lam an aryl boron. Pd couplings no allylic or benzylic
leaving group elsewhere; N-arylations no competing free aliphatic amine, and a diamine's less hindered
CH2-NH2 free only when it is the one arylated. **Goldberg** templates an aryl or
vinyl carbon at the new C-N bond, or at an acyl carbon a sound acylation (a carboxylic acyl halide on any N-H, a
haloformate or carbamoyl halide on an amine N-H only), never an sp3 carbon. Which boronic acids survive to
couple is ``boron``'s."""

from __future__ import annotations

from rdkit import Chem

from mara_chem.scoring.retro.checks.chem import (ACYL_DONOR, ALIPHATIC_AMINE_NH, AMINE_NH, carbonyl, matches_at,
                                                  pattern, sp2_carbon, without_maps)
from mara_chem.scoring.retro.checks.proposal import Proposal, halide_or_sulfonate, loses_metal

#: couplings run on palladium (the Pd(0) step)
PD_COUPLINGS = ("suzuki", "stille", "hiyama", "negishi", "heck", "sonogashira", "buchwald")
#: named couplings (words of the lowered name) whose two partners ``coupling_problem`` reads at the bond
ARYL_COUPLING_WORDS = ("suzuki", "stille", "hiyama", "negishi", "kumada", "heck", "sonogashira", "buchwald",
                       "ullmann", "chan-lam", "chan lam")
#: the organometal each named cross-coupling transfers
_COUPLING_METALS = {"suzuki": ("B",), "stille": ("Sn",), "hiyama": ("Si",), "negishi": ("Zn",), "kumada": ("Mg",)}
#: couplings whose two partners are both aryl/vinyl carbons (the organometal and the halide or triflate)
_SP2_BOTH = ("suzuki", "stille", "hiyama")
#: an allylic or benzylic halide or sulfonate (first atom: the carbon)
_ALLYLIC_LEAVING = "[CX4;$(C-[CX3]=[CX3]),$(C-c)][Cl,Br,I,$(OS(=O)(=O)[#6])]"
#: a haloformate or carbamoyl halide: a carbonic acid's halide (first atom: the carbonyl carbon)
_CARBONIC_HALIDE = "[CX3](=O)([OX2,NX3])[Cl,Br,I]"


def coupling_problem(proposal: Proposal, lowered: str) -> str | None:
    """An aryl coupling at the bond it forms: the named partners on aryl/vinyl carbons at its two ends."""
    word = next((w for w in _COUPLING_METALS if w in lowered), None)
    named = _COUPLING_METALS[word] if word else None
    both = word in _SP2_BOTH
    for a, b in proposal.formed_bonds:
        for x, y in ((a, b), (b, a)):
            ax, ay = proposal.atom(x), proposal.atom(y)
            if named is not None and both:
                if (sp2_carbon(ax) and loses_metal(proposal, x, named) and sp2_carbon(ay)
                        and halide_or_sulfonate(proposal, y)):
                    return None
            elif named is not None:  # Negishi, Kumada: an organometal and a halide at the two ends
                if loses_metal(proposal, x, named) and halide_or_sulfonate(proposal, y):
                    return None
            elif "chan" in lowered:  # Chan-Lam: aryl boron + N-H/O-H
                if sp2_carbon(ax) and loses_metal(proposal, x, ("B",)) and ay.GetTotalNumHs() > 0:
                    return None
            elif sp2_carbon(ax) and halide_or_sulfonate(proposal, x):  # Heck, Sonogashira, Buchwald, Ullmann
                return None
    if named is not None and both:
        return (f"{word} coupling without an aryl/vinyl {'/'.join(named)} partner and an aryl/vinyl "
                "halide or triflate at the bond it forms")
    return "aryl coupling without an aryl/vinyl halide, triflate or organometal partner at the bond it forms"


def pd_leaving_problem(proposal: Proposal) -> str | None:
    """A palladium coupling beside an allylic or benzylic halide/sulfonate away from its bond: Pd(0) takes
    that one first (a pi-allyl or benzyl complex)."""
    centre = proposal.centre
    leaving = pattern(_ALLYLIC_LEAVING)
    for i, mol in enumerate(proposal.reactants):
        for match in mol.GetSubstructMatches(leaving):
            if (i, match[0]) not in centre:
                return "a Pd coupling with an allylic or benzylic leaving group elsewhere in a partner"
    return None


def competing_amine_problem(proposal: Proposal) -> str | None:
    """An N-arylation of an amide, carbamate or aryl N-H while a partner carries a free aliphatic amine:
    the more nucleophilic amine is arylated instead (tocainide's unprotected alaninamide)."""
    aliphatic = pattern(ALIPHATIC_AMINE_NH)
    for a, b in proposal.formed_bonds:
        for n in (a, b):
            if proposal.atom(n).GetSymbol() != "N" or matches_at(proposal.reactants[n[0]], ALIPHATIC_AMINE_NH, n[1]):
                continue
            for i, mol in enumerate(proposal.reactants):
                if any((i, m[0]) != n for m in mol.GetSubstructMatches(aliphatic)):
                    return "an N-arylation beside a free aliphatic amine (it is arylated instead: protect it)"
    return None


#: a primary amine on a CH2: the least hindered amine N-H a diamine can carry
_UNHINDERED_PRIMARY_AMINE = "[NX3H2;+0][CH2;!$(C=*)]"


def diamine_arylation_problem(proposal: Proposal) -> str | None:
    """An N-arylation (palladium, copper or SNAr) of a diamine at a hindered amine while its other amine is a
    free primary one on a CH2: the aryl halide takes the less hindered amine first (primaquine's
    pentane-1,4-diamine arylated at its secondary-carbon NH2, alfuzosin's N-methylpropane-1,3-diamine at its
    NHMe). A primary amine on a ring CH (alogliptin's 3-aminopiperidine, arylated at its ring N-H, the
    published step), a tertiary amine (chloroquine's diamine) or the diamine's own twin by symmetry passes."""
    unhindered = pattern(_UNHINDERED_PRIMARY_AMINE)
    for a, b in proposal.formed_bonds:
        for n in (a, b):
            mol = proposal.reactants[n[0]]
            if proposal.atom(n).GetSymbol() != "N" or not matches_at(mol, ALIPHATIC_AMINE_NH, n[1]) \
                    or matches_at(mol, _UNHINDERED_PRIMARY_AMINE, n[1]):
                continue
            ranks = list(Chem.CanonicalRankAtoms(without_maps(mol), breakTies=False))
            if any(m[0] != n[1] and ranks[m[0]] != ranks[n[1]] for m in mol.GetSubstructMatches(unhindered)):
                return ("an N-arylation of a diamine at its more hindered amine beside a free CH2-NH2 (that one "
                        "is arylated first: protect it)")
    return None


#: an N-H more acidic than an amine's: an imide's (thiazolidinedione, hydantoin, glutarimide) or a tetrazole's
_ACIDIC_NH = "[$([NX3;H1]([#6]=[O,S])[#6]=O),$([nH]1nnnc1),$([nH]1nncn1)]"


def acidic_nh_competitor_problem(proposal: Proposal) -> str | None:
    """A copper or palladium N-arylation takes the most acidic N-H its partners carry: an imide or tetrazole
    N-H beside the amine is arylated or holds the base (rosiglitazone's thiazolidinedione beside the
    N-methylamine that a 2-bromopyridine was to arylate)."""
    acidic = pattern(_ACIDIC_NH)
    for a, b in proposal.formed_bonds:
        for n in (a, b):
            if proposal.atom(n).GetSymbol() != "N":
                continue
            for i, mol in enumerate(proposal.reactants):
                if any((i, m[0]) != n for m in mol.GetSubstructMatches(acidic)):
                    return ("an N-arylation beside an imide or tetrazole N-H (more acidic: it is arylated or holds "
                            "the base)")
    return None


def goldberg_centre_problem(proposal: Proposal) -> str | None:
    """A Goldberg template at its new C-N bond, read on the halide partner's carbon. The generic template writes
    any carbon (``[#6]-[Cl,Br,I]``), so it also fires at an acyl carbon, where the step is an acylation under a
    coupling's name, and at an sp3 carbon. An aryl or vinyl carbon is the copper coupling itself. At an acyl
    carbon the acylation must be a sound one: a carboxylic acyl halide acylates an amine, an amide or a carbamate
    N-H (an Evans oxazolidinone, indapamide's Boc hydrazide), a haloformate or carbamoyl halide only an amine.
    A haloformate is a weaker acylating agent (its alkoxy group donates into the carbonyl), and an amide or
    carbamate N-H takes it only as the preformed N-anion; rivastigmine's N-methylacetamide and carisoprodol's
    Boc-isopropylamine "coupled" with a bromoformate are refused (carisoprodol's carries a chloroformate too).
    An sp3 carbon is an N-alkylation the template does not check."""
    for a, b in proposal.formed_bonds:
        for c, n in ((a, b), (b, a)):
            carbon = proposal.atom(c)
            if carbon.GetSymbol() != "C" or proposal.atom(n).GetSymbol() != "N" \
                    or not halide_or_sulfonate(proposal, c):
                continue
            if carbonyl(carbon):
                donor = proposal.reactants[c[0]]
                if matches_at(donor, ACYL_DONOR, c[1]):
                    return None
                amine = matches_at(proposal.reactants[n[0]], AMINE_NH, n[1])
                if amine and matches_at(donor, _CARBONIC_HALIDE, c[1]):
                    return None
                return ("a Goldberg coupling at an acyl carbon that is no sound acylation: a haloformate or "
                        "carbamoyl halide at an amide or carbamate N-H (a weak acylating agent on a weak "
                        "nucleophile; only the preformed N-anion takes it)")
            if sp2_carbon(carbon):
                return None
            return "a Goldberg coupling at an sp3 carbon (an N-alkylation under a coupling's name, not a Cu coupling)"
    return None
