"""``reaction_problem``: the rules table (``RULES``) that says which family's check reads which templates, walked
in order; the first refusal is the answer. Each check lives with its reaction family (``acylation``,
``alkylation``, ``couplings``, ``boron``, ``radicals``, ``tolerance``, ...); a new rule is one row here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mara_chem.scoring.retro.checks import (acylation, alkylation, boron, carbonyls, couplings, interconversions,
                                            isolability, organometals, radicals, template_fit, tolerance)
from mara_chem.scoring.retro.checks.proposal import Proposal


@dataclass(frozen=True)
class Step:
    """One proposal with what its template says about itself: the rules of ``RULES`` read this."""

    lowered: str  #: the template's name, lower case, without braces and underscores
    reaction_class: str
    amide_coupling: bool
    forward_smirks: str
    proposal: Proposal


@dataclass(frozen=True)
class Rule:
    """One row of ``RULES``: ``check`` runs on the steps ``applies`` selects and returns its refusal or None."""

    applies: Callable[[Step], bool]
    check: Callable[[Step], str | None]


def _always(step: Step) -> bool:
    return True


def _named(*words: str) -> Callable[[Step], bool]:
    """Templates whose lowered name contains one of ``words``."""
    return lambda step: any(word in step.lowered for word in words)


def _prefixed(prefixes: tuple[str, ...]) -> Callable[[Step], bool]:
    """Templates whose lowered name starts with one of ``prefixes``."""
    return lambda step: step.lowered.startswith(prefixes)


def _on_proposal(check: Callable[[Proposal], str | None]) -> Callable[[Step], str | None]:
    """A check of the proposal alone, as a rule's check."""
    return lambda step: check(step.proposal)


def _on_proposal_and_name(check: Callable[[Proposal, str], str | None]) -> Callable[[Step], str | None]:
    """A check of the proposal and the template's lowered name, as a rule's check."""
    return lambda step: check(step.proposal, step.lowered)


#: the checks ``reaction_problem`` runs, in order; the first refusal is the answer. A rule for a reaction
#: class is one row: which templates it reads (by lowered name, class or amide flag) and what it checks.
RULES: tuple[Rule, ...] = (
    Rule(_always, _on_proposal(template_fit.too_few_atoms_problem)),
    Rule(_always, lambda step: template_fit.added_carbon_problem(step.reaction_class, step.proposal)),
    Rule(_always, lambda step: template_fit.unformed_ring_problem(step.reaction_class, step.forward_smirks,
                                                                  step.proposal)),
    Rule(_always, lambda step: template_fit.reactant_side_problem(step.forward_smirks, step.proposal)),
    Rule(lambda step: step.amide_coupling, _on_proposal(acylation.amide_problem)),
    Rule(lambda step: step.lowered in acylation.CARBOXYLIC_ESTERIFICATIONS, _on_proposal(acylation.ester_problem)),
    Rule(_named("friedel-crafts acylation"), _on_proposal(acylation.friedel_crafts_acylation_problem)),
    Rule(_named("friedel-crafts acylation"), _on_proposal(acylation.friedel_crafts_donor_problem)),
    Rule(_named("friedel-crafts acylation"), _on_proposal(acylation.friedel_crafts_acceptor_problem)),
    Rule(_prefixed(alkylation.ALKYLATIONS), _on_proposal(alkylation.alkylation_problem)),
    Rule(lambda step: step.lowered.startswith(alkylation.SN2_ALKYLATIONS) and "sn1" not in step.lowered,  # no SN1
         _on_proposal(alkylation.hindered_sn2_problem)),
    Rule(_prefixed(alkylation.SN2_ALKYLATIONS), _on_proposal(alkylation.acyl_n_secondary_problem)),
    Rule(_prefixed(alkylation.SN2_ALKYLATIONS), _on_proposal(alkylation.distant_amine_electrophile_problem)),
    Rule(_prefixed(alkylation.SN2_ALKYLATIONS), _on_proposal(alkylation.diamine_alkylation_problem)),
    Rule(_prefixed(alkylation.SN2_ALKYLATIONS), _on_proposal(alkylation.cyclopropyl_sn2_problem)),
    Rule(_prefixed(alkylation.SN2_ALKYLATIONS), _on_proposal(alkylation.pyridone_o_alkylation_problem)),
    Rule(lambda step: "michael" in step.lowered and "aromatic" not in step.lowered,
         _on_proposal(carbonyls.michael_problem)),
    Rule(lambda step: "michael" in step.lowered and "aromatic" not in step.lowered,
         _on_proposal(carbonyls.michael_donor_problem)),
    Rule(_named("aldehyde"), _on_proposal(carbonyls.aldehyde_problem)),
    Rule(_always, _on_proposal(interconversions.halogenation_problem)),
    Rule(_always, _on_proposal(acylation.acyl_donor_amine_problem)),
    Rule(_always, _on_proposal(acylation.self_acylation_problem)),
    Rule(_always, _on_proposal(acylation.amine_partner_acid_problem)),
    Rule(_always, _on_proposal(acylation.second_acyl_halide_problem)),
    Rule(_named("to aldehyde", "to ketone", "aldehydes and ketones"),
         _on_proposal(carbonyls.acid_derivative_carbonyl_problem)),
    Rule(lambda step: step.lowered in template_fit.NO_SYNTHESIS_STEP,
         lambda step: template_fit.no_synthesis_step_problem(step.lowered)),
    Rule(_named("reductive amination"), _on_proposal(carbonyls.reductive_amination_problem)),
    Rule(_named("eschweiler", "reductive methylation"), _on_proposal(carbonyls.reductive_methylation_problem)),
    Rule(_named("wittig"), _on_proposal(carbonyls.wittig_reagent_problem)),
    Rule(_named("julia"), _on_proposal(carbonyls.julia_sulfone_problem)),
    # a template that writes the wrong acyl partner says more than the organometal it needs
    Rule(_named("asymmetric ketones from", "oxidative esterification"),
         _on_proposal_and_name(acylation.acyl_substituent_problem)),
    Rule(_always, _on_proposal_and_name(organometals.organometal_problem)),
    Rule(_named("mitsunobu"), _on_proposal(alkylation.mitsunobu_problem)),
    Rule(_named("mitsunobu"), _on_proposal(alkylation.mitsunobu_stereocentre_problem)),
    Rule(_named("methylation"), _on_proposal(alkylation.c_methylation_problem)),
    Rule(_named("friedel-crafts alkylation"), _on_proposal(alkylation.friedel_crafts_cation_problem)),
    Rule(_named("friedel-crafts alkylation"), _on_proposal(alkylation.friedel_crafts_enol_problem)),
    Rule(_named("friedel-crafts alkylation"), _on_proposal(alkylation.friedel_crafts_acid_sensitive_problem)),
    Rule(_named("friedel-crafts alkylation"), _on_proposal(alkylation.friedel_crafts_arene_problem)),
    Rule(_named("aromatic nitration"), _on_proposal(interconversions.nitration_problem)),
    Rule(_named("non-aromatic nitration"), _on_proposal(interconversions.aliphatic_nitration_problem)),
    Rule(_named("hydrazine synthesis from amine"), _on_proposal(interconversions.nitrite_hydrazine_problem)),
    Rule(_named("alcohol to ether"), _on_proposal(alkylation.dehydrative_ether_problem)),
    Rule(_named("alkylation of amides with diazo"), _on_proposal(alkylation.diazo_n_alkylation_problem)),
    Rule(_named("displacement of ethoxy"), _on_proposal(alkylation.alkoxy_displacement_problem)),
    Rule(_always, _on_proposal_and_name(alkylation.reactant_carbon_problem)),
    Rule(lambda step: step.lowered.startswith(alkylation.ALKYLATIONS) or "methylation" in step.lowered,
         _on_proposal(alkylation.weak_n_alkylation_problem)),
    Rule(_always, _on_proposal(alkylation.primary_amine_methylation_problem)),
    *(Rule(_prefixed(prefixes), _on_proposal(tolerance.tolerance_problem(table)))
      for prefixes, table in tolerance.TOLERANCE.items()),
    Rule(_named("minisci"), _on_proposal(radicals.minisci_problem)),
    Rule(_named("ortho metalation"), _on_proposal(organometals.ortho_metalation_problem)),
    Rule(_named(*couplings.PD_COUPLINGS), _on_proposal(couplings.pd_leaving_problem)),
    Rule(_named("buchwald", "ullmann", "goldberg", "chan-lam", "chan lam"),
         _on_proposal(couplings.competing_amine_problem)),
    Rule(_named("buchwald", "ullmann", "goldberg", "chan-lam", "chan lam", "n-arylation"),
         _on_proposal(couplings.acidic_nh_competitor_problem)),
    Rule(_named("buchwald", "ullmann", "goldberg", "n-arylation"), _on_proposal(couplings.diamine_arylation_problem)),
    Rule(_named("goldberg"), _on_proposal(couplings.goldberg_centre_problem)),
    Rule(_named("cleavage of methoxy", "cleavage of alkoxy", "ether cleavage"),
         _on_proposal(interconversions.methyl_ether_cleavage_problem)),
    Rule(_named("nitrile"), _on_proposal(interconversions.cyanate_problem)),
    Rule(_named(*couplings.ARYL_COUPLING_WORDS), _on_proposal_and_name(couplings.coupling_problem)),
    Rule(_named("suzuki", "chan-lam", "chan lam"), _on_proposal(boron.azinyl_boron_problem)),
    # last: a misfit at the reaction centre is the more telling reason
    Rule(_always, _on_proposal(isolability.unisolable_reactant_problem)),
)


def reaction_problem(name: str, reaction_class: str, amide_coupling: bool, forward_smirks: str,
                     proposal: Proposal) -> str | None:
    """Why this proposal is chemically wrong for its template (the reaction centre does not fit), or None:
    the first refusal of ``RULES``, walked in order."""
    step = Step(name.lower().strip("{}").replace("_", " "), reaction_class, amide_coupling, forward_smirks, proposal)
    for rule in RULES:
        if rule.applies(step):
            problem = rule.check(step)
            if problem:
                return problem
    return None
