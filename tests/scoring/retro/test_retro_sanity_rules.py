"""The retrosynthesis checks on real templates and real drugs: each refusal is a route a chemist refused for a
drug of ``benchmarks/retro_validation/holdout3/``, and the ordinary reaction of the same class beside it passes."""

from __future__ import annotations

from functools import lru_cache

import pytest
from rdkit import Chem

pytest.importorskip("rdchiral")

from mara_chem.scoring.retro.sanity import isolable_problem  # noqa: E402
from mara_chem.scoring.retro.templates import TemplateSet, load_templates  # noqa: E402

AMIDE = "Carboxylic acid with primary amine to amide"
WILLIAMSON = "Williamson Ether Synthesis"


@lru_cache(maxsize=1)
def _templates() -> TemplateSet:
    return load_templates(None)


def _canonical(smiles: str) -> str:
    return ".".join(sorted(Chem.MolToSmiles(Chem.MolFromSmiles(piece)) for piece in smiles.split(".")))


def verdicts(name: str, product: str) -> dict[str, str | None]:
    """Each reactant set the named template proposes for ``product`` (canonical, dot-joined) -> the reason
    ``reaction_problem`` refuses it, or None: the proposal exactly as the search's model checks it."""
    from rdchiral.initialization import rdchiralReactants, rdchiralReaction
    from rdchiral.main import rdchiralRun

    from mara_chem.scoring.retro.model import _proposal
    from mara_chem.scoring.retro.sanity import reaction_problem

    target = rdchiralReactants(product)
    out: dict[str, str | None] = {}
    for t in _templates().templates:
        if t.name != name:
            continue
        found = rdchiralRun(rdchiralReaction(t.retro_smarts), target, combine_enantiomers=False, return_mapped=True)
        if not found:
            continue
        outcomes, mapped = found
        for smiles in outcomes:
            proposal = _proposal(target.reactants, mapped.get(smiles))
            assert proposal is not None
            out[_canonical(smiles)] = reaction_problem(t.name, t.reaction_class, t.amide_coupling,
                                                       t.forward_smirks, proposal)
    assert out, f"{name} proposes nothing for {product}"
    return out


def verdict(name: str, product: str, reactants: str) -> str | None:
    found = verdicts(name, product)
    key = _canonical(reactants)
    assert key in found, f"{name} does not propose {key} for {product}: {sorted(found)}"
    return found[key]


def test_a_beta_keto_acid_is_no_reactant_and_a_plain_acid_is():
    """Piroxicam and teriflunomide 'coupled' from their beta-keto acids (saponified from the ester, or
    Knoevenagel-made): the acid decarboxylates, so the coupling is refused; cyanoacetic acid with the same
    aniline (teriflunomide's real first step) and a benzoic acid with 2-aminopyridine pass."""
    piroxicam = verdict(AMIDE, "CN1C(C(=O)Nc2ccccn2)=C(O)c2ccccc2S1(=O)=O",
                        "CN1C(C(=O)O)=C(O)c2ccccc2S1(=O)=O.Nc1ccccn1")
    assert piroxicam is not None and "beta-keto acid" in piroxicam
    teriflunomide = verdict(AMIDE, "C/C(O)=C(/C#N)C(=O)Nc1ccc(C(F)(F)F)cc1",
                            "C/C(O)=C(/C#N)C(=O)O.Nc1ccc(C(F)(F)F)cc1")
    assert teriflunomide is not None and "beta-keto acid" in teriflunomide
    assert verdict(AMIDE, "N#CCC(=O)Nc1ccc(C(F)(F)F)cc1", "N#CCC(=O)O.Nc1ccc(C(F)(F)F)cc1") is None
    assert verdict(AMIDE, "O=C(Nc1ccccn1)c1ccccc1", "O=C(O)c1ccccc1.Nc1ccccn1") is None


def test_an_intermediate_that_loses_co2_is_no_reactant():
    """Thalidomide's Boc imide 'etherified' from an N-carboxy imide, felbamate's carbamate from carbamic acid,
    carisoprodol's carbamate from a carbonic half-ester: the search made these acids in an earlier step, so
    the leaves' check never saw them; every reactant is asked now."""
    thalidomide = verdict(WILLIAMSON, "CC(C)(C)OC(=O)N1C(=O)CCC(Cl)C1=O",
                          "CC(C)(C)Cl.O=C(O)N1C(=O)CCC(Cl)C1=O")
    assert thalidomide is not None and "carbamic acid" in thalidomide
    felbamate = verdict(WILLIAMSON, "NC(=O)OCC(COC(N)=O)c1ccccc1", "NC(=O)O.NC(=O)OCC(CCl)c1ccccc1")
    assert felbamate is not None and "carbamic acid" in felbamate
    carisoprodol = verdict("{Schotten-Baumann_amide}", "CCCC(C)(COC(N)=O)COC(=O)NC(C)C",
                           "CC(C)N.CCCC(C)(COC(N)=O)COC(=O)O")
    assert carisoprodol is not None and "carbamic acid" in carisoprodol


def test_isolable_compounds_keep_their_acids():
    """The beta-keto acid pattern spares what is sold and kept: a malonic half-ester, malonic acid, a
    4-quinolone-3-carboxylic acid (ciprofloxacin), salicylic acid, a gamma-keto acid; the ester of piroxicam's
    acid is a building block."""
    for smiles in ("CCOC(=O)CC(=O)O", "OC(=O)CC(=O)O", "O=C(O)c1cn(C2CC2)c2cc(N3CCNCC3)c(F)cc2c1=O",
                   "OC(=O)c1ccccc1O", "OC(=O)CCC(=O)c1ccccc1", "COC(=O)C1=C(O)c2ccccc2S(=O)(=O)N1C"):
        assert isolable_problem(Chem.MolFromSmiles(smiles)) is None, smiles
    assert "beta-keto acid" in (isolable_problem(Chem.MolFromSmiles("CC(=O)CC(=O)O")) or "")
