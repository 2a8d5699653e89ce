"""Organometal reagents and metalations: **organometals** (Zn, Mg, Li) no acidic O-H or N-H; **Grignard and
organolithium** reagents no carbonyl, nitrile or nitro group of their own; **ortho metalations** no acidic
O-H/N-H on the arene."""

from __future__ import annotations

from mara_chem.scoring.retro.checks.chem import ALIPHATIC_AMINE_NH, pattern
from mara_chem.scoring.retro.checks.proposal import Proposal, halide_or_sulfonate

#: an acidic O-H or N-H that a lithium base takes before any ortho C-H
_ACIDIC_H = "[$([OX2H1]),$([NX3;!H0;$(N[a]),$(NC=O),$(NS(=O)=O)]),$([nH])]"
#: what a Grignard or organolithium reagent adds to or is oxidised by (pentoxifylline's 'Grignard' of a
#: xanthine carrying its own imide carbonyls; chloramphenicol's 4-nitrophenylmagnesium bromide)
_CARBONYL_NITRILE_OR_NITRO = "[$([#6X3]=O),$(C#N),$([NX3](=O)=O),$([NX3+](=O)[O-])]"  # aromatic c=O too


def organometal_problem(proposal: Proposal, lowered: str) -> str | None:
    """An organometal (Zn, Mg, Li) reagent cannot carry an O-H or N-H: it would protonate itself. Grignard and
    organolithium templates write the halide the reagent is made from, so that halide is asked too (also the
    ketone-from-dimethylamide template's: tolcapone's bromonitrocatechol, mebendazole's bromobenzimidazole), and
    so are the halides Wittig templates make their phosphonium ylide from (coniine's 2-(bromomethyl)piperidine)."""
    acidic = (pattern(_ACIDIC_H), pattern(ALIPHATIC_AMINE_NH))
    metal_made = any(word in lowered for word in ("grignard", "organolithium", "organometallic", "barbier",
                                                  "asymmetric ketones from"))
    for i, mol in enumerate(proposal.reactants):
        metal = any(a.GetSymbol() in ("Zn", "Mg", "Li") for a in mol.GetAtoms())
        halide = metal_made and any(end[0] == i and halide_or_sulfonate(proposal, end)
                                    for bond in proposal.formed_bonds for end in bond)
        if (metal or halide) and any(mol.HasSubstructMatch(p) for p in acidic):
            return "an organozinc, -magnesium or -lithium reagent that carries an O-H or N-H"
        if "wittig" in lowered and any(end[0] == i and halide_or_sulfonate(proposal, end)
                                       for bond in proposal.formed_bonds for end in bond) \
                and any(mol.HasSubstructMatch(p) for p in acidic):
            return ("a Wittig reagent's halide that carries an O-H or N-H (its amine alkylates itself, the "
                    "ylide's base takes the X-H)")
        magnesium = any(a.GetSymbol() in ("Mg", "Li") for a in mol.GetAtoms()) or (
            halide and ("grignard" in lowered or "organolithium" in lowered))
        if magnesium and mol.HasSubstructMatch(pattern(_CARBONYL_NITRILE_OR_NITRO)):
            return ("a Grignard or organolithium reagent that carries a carbonyl, nitrile or nitro group (it "
                    "attacks itself)")
    return None


def ortho_metalation_problem(proposal: Proposal) -> str | None:
    """The lithium base takes an acidic O-H or N-H before any ortho C-H."""
    if any(m.HasSubstructMatch(pattern(_ACIDIC_H)) for m in proposal.reactants):
        return "an ortho metalation of an arene that carries an acidic O-H or N-H (the base takes that first)"
    return None
