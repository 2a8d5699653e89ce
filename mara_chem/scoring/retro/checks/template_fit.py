"""Checks of a proposal against its template as a whole, whatever the reaction: the template's own reactant side
read back onto the proposal (a reversed template keeps only its product side, so ``{Schotten-Baumann_amide}``'s
``[C;$(C=O)][OH1]`` was lost and it cut any C-N bond), the reactants supplying at least half of the product's
atoms (a template with an atom-map number 0 does not), no carbon gained where the class keeps the skeleton
(reductions, oxidations, deprotections), ring closures only by a template that forms a ring
itself, and no side reaction (protodeboronation, dehalogenation, deselenization) taken for a planned step."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import product

from rdkit import Chem
from rdkit.Chem import rdMolDescriptors

from mara_chem.scoring.retro.checks.proposal import Proposal

#: templates that are side reactions, not steps a chemist plans: a route 'made' a commodity (cinnamyl chloride)
#: by protodeboronating its boronic acid
NO_SYNTHESIS_STEP = frozenset({"deboronation of boronic acids", "deboronation of boronic esters", "deselenization",
                               "dehalogenation", "aromatic dehalogenation"})
#: reaction classes that change functional groups on the precursor's own skeleton: they add no carbon
SKELETON_KEEPING_CLASSES = ("Reduction", "Oxidation", "Deprotection")
#: reaction classes whose templates close rings by definition (a heterocycle formation)
RING_FORMING_CLASSES = ("Aromatic Heterocycle Formation",)


def _rings(mols: Sequence[Chem.Mol]) -> int:
    return sum(rdMolDescriptors.CalcNumRings(m) for m in mols)


@lru_cache(maxsize=4096)
def template_forms_ring(forward_smirks: str) -> bool:
    """Whether the template's own product pattern has more rings than its reactant patterns."""
    from rdkit.Chem import AllChem

    rxn = AllChem.ReactionFromSmarts(forward_smirks)

    def rings(template: Chem.Mol) -> int:
        t = Chem.Mol(template)
        t.UpdatePropertyCache(strict=False)
        Chem.FastFindRings(t)
        return t.GetRingInfo().NumRings()

    made = sum(rings(rxn.GetProductTemplate(i)) for i in range(rxn.GetNumProductTemplates()))
    used = sum(rings(rxn.GetReactantTemplate(i)) for i in range(rxn.GetNumReactantTemplates()))
    return made > used


@lru_cache(maxsize=4096)
def _mapped_reactant_templates(forward_smirks: str) -> tuple[Chem.Mol, ...]:
    """The forward template's reactant patterns that carry mapped atoms (reagents without any are left out)."""
    from rdkit.Chem import AllChem

    rxn = AllChem.ReactionFromSmarts(forward_smirks)
    out = []
    for i in range(rxn.GetNumReactantTemplates()):
        template = Chem.Mol(rxn.GetReactantTemplate(i))
        if any(a.GetAtomMapNum() for a in template.GetAtoms()):
            template.UpdatePropertyCache(strict=False)
            Chem.FastFindRings(template)
            out.append(template)
    return tuple(out)


def reactant_side_problem(forward_smirks: str, proposal: Proposal) -> str | None:
    """The forward template's reactant side, read back onto the proposal: each of its mapped patterns must
    match a reactant of its own at the reaction centre. A backward template carries only its product side,
    so what the reactant side demands (``[C;$(C=O)][OH1]`` of an amide coupling, the aldehyde of a Petasis
    reaction) is checked here."""
    templates = _mapped_reactant_templates(forward_smirks)
    fits: list[set[int]] = []
    for template in templates:
        fit = set()
        for i, mol in enumerate(proposal.reactants):
            if any((i, a) in proposal.centre for match in mol.GetSubstructMatches(template, maxMatches=10_000)
                   for a in match):
                fit.add(i)
        if not fit:
            return "a reactant does not meet the template's reactant side at the reaction centre"
        fits.append(fit)
    if len(proposal.reactants) >= len(templates) and not _distinct(fits):
        return "a reactant does not meet the template's reactant side at the reaction centre"
    return None


def _distinct(fits: list[set[int]]) -> bool:
    """Whether each pattern can take a reactant of its own (at most three patterns: brute force)."""
    return any(len(set(choice)) == len(choice) for choice in product(*fits))


def too_few_atoms_problem(proposal: Proposal) -> str | None:
    """The reactants must supply at least half of the product's atoms (the rest would come from nowhere)."""
    if 2 * proposal.supplied_atoms() < proposal.product.GetNumHeavyAtoms():
        return "the reactants supply fewer than half of the product's atoms (a template with unmapped atoms)"
    return None


def _carbons(mols: Sequence[Chem.Mol]) -> int:
    return sum(1 for m in mols for a in m.GetAtoms() if a.GetSymbol() == "C")


def added_carbon_problem(reaction_class: str, proposal: Proposal) -> str | None:
    """A reduction, oxidation or deprotection adds no carbon to its substrate: a product with more carbons
    than all its reactants together got one from nothing. rxn-insight numbers atoms from 0, which RDKit reads as
    no map, so a reversed template deletes that product atom and writes a fresh one: "Reduction of tertiary
    amides to amines" wrote probenecid's N-propyl 'from' an N-acetyl (the chain's end lost). Where the deleted
    atom ends a chain the fresh one is the same (an N-ethyl from its N-acetyl) and the count is kept."""
    if reaction_class in SKELETON_KEEPING_CLASSES and _carbons(proposal.reactants) < _carbons([proposal.product]):
        return f"a {reaction_class.lower()} whose product has more carbons than its reactants (the skeleton changed)"
    return None


def unformed_ring_problem(reaction_class: str, forward_smirks: str, proposal: Proposal) -> str | None:
    """A ring closed only by a template that forms one (or by a heterocycle-forming class)."""
    if _rings([proposal.product]) > _rings(proposal.reactants) and not template_forms_ring(forward_smirks) \
            and reaction_class not in RING_FORMING_CLASSES:
        return f"{reaction_class.lower()} template closing a ring it does not form"
    return None


def no_synthesis_step_problem(lowered: str) -> str | None:
    """A side reaction (``NO_SYNTHESIS_STEP``) is refused whatever its proposal."""
    return f"{lowered} only removes a group the precursor need never have had (not a synthesis step)"
