"""``TemplateBackwardModel``: rxn-insight's named reactions, reversed, as a syntheseus backward model.

Written against ``syntheseus.interface.models.BackwardReactionModel`` so that a neural single-step model
with a syntheseus wrapper (MEGAN, LocalRetro, Chemformer; weights not shipped) can take its place in the
search unchanged. Templates are applied with ``rdchiral`` (stereocentres kept or inverted as the template
says; RDKit's plain ``RunReactants`` drops them).

**Ranking** of a product's proposals (templates carry no popularity counts, so this is a fixed rule):
1. reaction class, in ``templates.CLASS_ORDER`` (amide formation first, then N/O/S-alkylation and -arylation,
   C-C couplings, deprotections, ...: roughly their frequency in medicinal chemistry);
2. more reactants first (a convergent disconnection simplifies more than a rewrite of one molecule);
3. smaller largest reactant first (a more even split);
4. template order in the file;
5. the reactants' SMILES (so the ranking is the same in every process: rdchiral's outcomes are a set).
Proposals are dropped when a reactant does not sanitize or keeps a wildcard atom or a radical, when the reactants
have fewer heavy atoms than the product (the template left out a reagent that supplies atoms), or when the
reaction centre does not fit the template's chemistry (``checks.reaction_problem``: an amide coupling
without an acyl donor, a ring closed by a template that forms none, an aryl coupling on an sp3 carbon), or
when a reactant is no isolable compound (``checks.isolable_problem``: a carbamic acid, a beta-keto acid). Every
reactant of a route passes through here, its building blocks and its intermediates alike, so this is where
an intermediate that cannot exist is refused; ``refused`` counts these two kinds by reason.
Each proposal's ``probability`` metadata is proportional to 1 / (rank + 1) (MCTS uses it as its policy);
``source`` is the reaction name, ``reaction_class`` its class, ``template`` the retro SMARTS.
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
from collections import Counter
from collections.abc import Sequence

from rdkit import Chem, RDLogger
from syntheseus.interface.bag import Bag
from syntheseus.interface.models import BackwardReactionModel
from syntheseus.interface.molecule import Molecule
from syntheseus.interface.reaction import SingleProductReaction

from mara_chem.scoring.retro.checks import Proposal, reaction_problem
from mara_chem.scoring.retro.templates import RetroTemplate, TemplateSet

log = logging.getLogger(__name__)


class TemplateBackwardModel(BackwardReactionModel):
    """Applies every template to each product and ranks the distinct reactant sets (see module doc)."""

    def __init__(self, template_set: TemplateSet, **kwargs):
        from rdchiral.initialization import rdchiralReaction

        kwargs.setdefault("remove_product_in_reactants", True)
        kwargs.setdefault("use_cache", True)
        super().__init__(**kwargs)
        self.template_set = template_set
        self._compiled: list[tuple[RetroTemplate, object]] = []
        self.refused: Counter[str] = Counter()
        RDLogger.DisableLog("rdApp.*")
        for template in template_set.templates:
            try:
                self._compiled.append((template, rdchiralReaction(template.retro_smarts)))
            except Exception as exc:  # a SMIRKS rdchiral cannot initialise is left out, not fatal
                log.debug("template %d (%s) skipped by rdchiral: %s", template.index, template.name, exc)

    @property
    def n_templates(self) -> int:
        return len(self._compiled)

    def get_parameters(self) -> list:
        return []

    def get_model_info(self) -> dict:
        return {"templates": self.n_templates, "template_sha256": self.template_set.sha256}

    def _get_reactions(self, inputs: list[Molecule], num_results: int) -> list[Sequence[SingleProductReaction]]:
        return [self.propose(mol)[:num_results] for mol in inputs]

    def propose(self, product: Molecule) -> list[SingleProductReaction]:
        """Every distinct reactant set any template gives for ``product``, ranked."""
        from rdchiral.initialization import rdchiralReactants
        from rdchiral.main import rdchiralRun

        try:
            target = rdchiralReactants(product.smiles)
        except Exception:
            return []
        found: dict[Bag[Molecule], tuple[tuple, RetroTemplate]] = {}
        n_atoms = product.rdkit_mol.GetNumHeavyAtoms()
        for template, compiled in self._compiled:
            try:
                with contextlib.redirect_stdout(io.StringIO()):  # rdchiral prints its debugging to stdout
                    found_here = rdchiralRun(compiled, target, combine_enantiomers=False, return_mapped=True)
            except Exception:
                continue
            if not found_here:
                continue  # rdchiral answers a plain [] when nothing matches
            outcomes, mapped = found_here
            for smiles in outcomes:
                reactants = outcome_molecules(smiles)
                if not reactants or product in reactants:
                    continue
                if sum(m.rdkit_mol.GetNumHeavyAtoms() for m in reactants) < n_atoms:
                    continue  # a template that makes atoms from nothing (an unmapped reagent left out)
                proposal = mapped_proposal(target.reactants, mapped.get(smiles))
                problem = ("no atom-mapped outcome to check" if proposal is None else
                           reaction_problem(template.name, template.reaction_class, template.amide_coupling,
                                            template.forward_smirks, proposal))
                if problem:
                    self.refused[problem] += 1
                    continue
                key = (template.class_rank, -len(reactants), max(m.rdkit_mol.GetNumHeavyAtoms() for m in reactants),
                       template.index)
                bag = Bag(reactants)
                if bag not in found or key < found[bag][0]:
                    found[bag] = (key, template)
        # ties (one template at several sites) by the reactants' SMILES: rdchiral returns a set, whose order
        # follows string hashes and so differs between processes
        ranked = sorted(found.items(), key=lambda item: (item[1][0], ".".join(sorted(m.smiles for m in item[0]))))
        norm = sum(1.0 / (i + 1) for i in range(len(ranked)))
        reactions = []
        for rank, (bag, (_, template)) in enumerate(ranked):
            p = 1.0 / (rank + 1) / norm
            reactions.append(SingleProductReaction(
                reactants=bag, product=product,
                metadata={"probability": p, "log_probability": math.log(p), "source": template.name,
                          "template": template.retro_smarts, "reaction_id": template.index,
                          "reaction_class": template.reaction_class},  # type: ignore[typeddict-unknown-key]
            ))
        return reactions


def mapped_proposal(mapped_product: Chem.Mol, mapped: tuple[str, tuple] | None) -> Proposal | None:
    """The proposal with rdchiral's atom maps (product atoms numbered index + 1, leaving groups 900 up)."""
    if mapped is None:
        return None
    pieces = [Chem.MolFromSmiles(piece) for piece in mapped[0].split(".")]
    return None if any(p is None for p in pieces) else Proposal(mapped_product, tuple(pieces))


def outcome_molecules(smiles: str) -> list[Molecule]:
    """syntheseus molecules of a dot-separated outcome; empty when a piece does not sanitize or keeps a
    template wildcard (``*``), a query bond (``~``) or a radical."""
    mols = []
    for piece in smiles.split("."):
        mol = Chem.MolFromSmiles(piece)
        if mol is None or any(atom.GetAtomicNum() == 0 or atom.GetNumRadicalElectrons() for atom in mol.GetAtoms()) \
                or any(bond.HasQuery() for bond in mol.GetBonds()):
            return []  # a wildcard, a radical, or a template's '~' any-bond left in the outcome
        mols.append(Molecule(piece))
    return mols
