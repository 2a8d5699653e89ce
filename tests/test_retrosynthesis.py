"""Retrosynthesis component: real templates (rxn-insight), real syntheseus search, a small exact stock."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from rdkit import Chem

pytest.importorskip("syntheseus")
pytest.importorskip("rdchiral")
pytest.importorskip("molbloom")

import mara_chem.scoring.components  # noqa: E402,F401  (registers the built-in components)
from mara_chem.scoring.component import build_component  # noqa: E402
from mara_chem.scoring.retro.templates import load_templates, rxn_insight_smirks_path  # noqa: E402
from syntheseus.interface.molecule import Molecule  # noqa: E402

BENZAMIDE = "O=C(NCc1ccccc1)c1ccccc1"  # benzoic acid + benzylamine, one amide coupling
# ethyl 4-acetamidobenzoate: from the stock below only by esterification AND amide coupling
ESTER_AMIDE = "CCOC(=O)c1ccc(NC(C)=O)cc1"
STOCK = ["OC(=O)c1ccccc1", "NCc1ccccc1", "Nc1ccc(C(=O)O)cc1", "CCO", "CC(=O)O", "CC(=O)Cl"]


@pytest.fixture()
def stock_file(tmp_path: Path) -> Path:
    path = tmp_path / "stock.smi"
    path.write_text("\n".join(STOCK) + "\n")
    return path


def component(stock_file: Path, **params):
    base = {"executor": "serial", "catalog": "none", "purchasable_file": str(stock_file), "time_limit_s": 30,
            "max_iterations": 20}
    return build_component("retrosynthesis", {**base, **params})


def test_amide_templates_are_found_by_structure():
    templates = load_templates()
    by_name = {t.name: t for t in templates.templates}
    assert by_name["Carboxylic acid with primary amine to amide"].amide_coupling
    assert by_name["Acyl chloride with secondary amine to amide"].amide_coupling
    assert not by_name["Boc amine protection with Boc anhydride"].amide_coupling  # carbamate
    assert not by_name["Schmidt ketone amide"].amide_coupling  # rearrangement, one reactant
    assert not by_name["Williamson Ether Synthesis"].amide_coupling
    assert templates.n_read == 528 and len(templates.templates) == 527  # one two-product SMIRKS left out
    assert 10 <= len(templates.amide_only().templates) <= 40
    assert all(t.reaction_class == "Acylation" for t in templates.amide_only().templates)


def test_solved_in_one_amide_step(stock_file: Path, tmp_path: Path):
    routes = tmp_path / "routes.jsonl"
    comp = component(stock_file, routes_file=str(routes))
    result = comp([BENZAMIDE])
    assert result.values.tolist() == [1.0]
    record = json.loads(routes.read_text().splitlines()[0])
    assert record["solved"] and record["steps"] == 1 and record["n_routes"] >= 1
    step = record["route"][0]
    # benzoic acid, or its chloride (an acyl halide counts as in stock when its acid is)
    assert sorted(step["reactants"]) in (["NCc1ccccc1", "O=C(O)c1ccccc1"], ["NCc1ccccc1", "O=C(Cl)c1ccccc1"])
    assert "amide" in step["name"].lower() and step["class"] == "Acylation"
    comp.close()


def test_unsolvable_scores_zero_and_its_record_says_why(stock_file: Path, tmp_path: Path):
    routes = tmp_path / "routes.jsonl"
    comp = component(stock_file, max_iterations=2, routes_file=str(routes))
    result = comp(["c1ccc2c(c1)Cc1ccccc1-2", "ClCl"])  # fluorene; chlorine, which no template makes
    assert result.values.tolist() == [0.0, 0.0] and result.reasons == [None, None]
    why = {r["smiles"]: r["reason"] for r in map(json.loads, routes.read_text().splitlines())}
    assert why["c1ccc2c(c1)Cc1ccccc1-2"].startswith(("iteration limit (2) reached", "no route to purchasable"))
    assert "nearest missing building block: " in why["c1ccc2c(c1)Cc1ccccc1-2"]
    assert why["ClCl"] == "no template applies to the target"
    comp.close()


def test_amide_only_refuses_a_route_with_an_ester_step(stock_file: Path):
    any_reaction = component(stock_file)
    amide_only = component(stock_file, reactions="amide_only")
    graded = component(stock_file, score="graded", max_steps=4)
    assert any_reaction([ESTER_AMIDE]).values.tolist() == [1.0]  # esterification + amide coupling
    assert graded([ESTER_AMIDE]).values.tolist() == [pytest.approx(3 / 4)]  # two steps of at most four
    assert amide_only([ESTER_AMIDE]).values.tolist() == [0.0]
    assert amide_only([BENZAMIDE]).values.tolist() == [1.0]
    for comp in (any_reaction, amide_only, graded):
        comp.close()


def test_time_limit_is_a_failure_with_its_reason_and_not_cached(stock_file: Path, tmp_path: Path):
    cache = tmp_path / "routes.sqlite"
    comp = component(stock_file, time_limit_s=1e-4, cache_path=str(cache))
    result = comp([ESTER_AMIDE])
    assert math.isnan(result.values[0])
    assert "safety time cap" in result.reasons[0]
    assert len(comp.cache) == 0
    comp.close()


def test_cache_answers_without_searching_and_is_keyed_on_templates(stock_file: Path, tmp_path: Path):
    cache = tmp_path / "routes.sqlite"
    first = component(stock_file, cache_path=str(cache))
    assert first([BENZAMIDE, ESTER_AMIDE]).values.tolist() == [1.0, 1.0]
    first.close()
    again = component(stock_file, cache_path=str(cache))
    assert again([ESTER_AMIDE, BENZAMIDE]).values.tolist() == [1.0, 1.0]
    assert again._executor is None  # every answer came from the cache
    again.close()
    # the same settings with another template file (amide templates only) must not reuse those answers
    lines = rxn_insight_smirks_path().read_text().splitlines()
    amide_lines = [line for line in lines if "amide" in json.loads(line)["name"].lower()]
    subset = tmp_path / "amide_templates.json"
    subset.write_text("\n".join(amide_lines) + "\n")
    other = component(stock_file, cache_path=str(cache), templates_file=str(subset))
    assert other.fingerprint != again.fingerprint
    assert other([ESTER_AMIDE]).values.tolist() == [0.0]  # no esterification template in that file
    assert other._executor is not None
    other.close()


def test_pool_executor_agrees_with_serial(stock_file: Path):
    smiles = [BENZAMIDE, ESTER_AMIDE, "NC(=O)c1ccccc1"]
    serial = component(stock_file, reactions="amide_only")
    pool = component(stock_file, reactions="amide_only", executor="pool", n_workers=2)
    assert pool(smiles).values.tolist() == serial(smiles).values.tolist() == [1.0, 0.0, 0.0]
    serial.close()
    pool.close()


@pytest.mark.slow
def test_ray_executor_agrees_with_serial(stock_file: Path):
    pytest.importorskip("ray")
    comp = component(stock_file, reactions="amide_only", executor="ray", n_workers=1)
    assert comp([BENZAMIDE, ESTER_AMIDE]).values.tolist() == [1.0, 0.0]
    comp.close()


def test_bad_params_name_the_key(tmp_path: Path):
    with pytest.raises(ValueError, match="reaction set"):
        build_component("retrosynthesis", {"reactions": "amides"})
    with pytest.raises(ValueError, match="file not found"):
        build_component("retrosynthesis", {"purchasable_file": str(tmp_path / "missing.smi")})
    with pytest.raises(ValueError, match="purchasable_file"):
        build_component("retrosynthesis", {"catalog": "none"})


def test_report_shows_routes_of_hits(stock_file: Path, tmp_path: Path):
    from mara_chem.report.routes import routes_section

    comp = component(stock_file, routes_file=str(tmp_path / "routes.jsonl"))
    comp([BENZAMIDE])
    comp.close()
    html_text = routes_section(tmp_path, [BENZAMIDE], top=5)
    assert "1 step(s)" in html_text and "NCc1ccccc1" in html_text and "amide" in html_text.lower()
    assert routes_section(tmp_path / "elsewhere", [BENZAMIDE], top=5) == ""


@pytest.mark.parametrize(("name", "reactions", "budget"), [
    ("synth_clpp_dap.toml", "any", 10_000), ("synth_clpp_mara.toml", "any", 10_000),
    ("all_amide_clpp_dap.toml", "amide_only", 5_000), ("all_amide_clpp_mara.toml", "amide_only", 5_000),
])
def test_protocol_run_files_use_the_retrosynthesis_endpoint(name, reactions, budget):
    from mara_chem.rl.config import load_run_config

    repo = Path(__file__).resolve().parents[1]
    config = load_run_config(repo / "configs" / name)
    assert config.stage[0].max_oracle_calls == budget
    entries = [e["retrosynthesis"] for e in config.stage[0].scoring.component if "retrosynthesis" in e]
    assert len(entries) == 1 and entries[0].endpoint[0].params["reactions"] == reactions
    sa = load_run_config(repo / "configs" / name.replace("all_amide_clpp", "synth_sa_clpp").replace("synth_clpp", "synth_sa_clpp"))
    assert any("SAScore" in e for e in sa.stage[0].scoring.component)  # the fast SA alternative stays


def test_stock_asks_every_kekule_form_and_keeps_its_guards():
    import molbloom
    from syntheseus.interface.molecule import Molecule

    from mara_chem.scoring.retro.search import _NotTheTarget
    from mara_chem.scoring.retro.stock import BloomStock

    stock = BloomStock()
    toluic = Molecule("Cc1cccc(C(=O)O)c1")
    assert not molbloom.buy(toluic.smiles, catalog="zinc-instock-mini")  # today's canonical form is not the stored one
    assert stock.is_purchasable(toluic)  # one of its kekulé forms is
    assert stock.is_purchasable(Molecule("Cc1cccc(C(=O)Cl)c1"))  # the acid chloride, through its acid
    assert not BloomStock(max_heavy_atoms=5).is_purchasable(toluic)  # the building-block size cap
    # as seen from a search: the target is never stock, same-size precursors need the exact list,
    # except the acid of a primary amide target (acid + ammonia)
    amide = Molecule("Cc1cccc(C(N)=O)c1")
    view = _NotTheTarget(stock, amide, margin=1)
    assert not view.is_purchasable(amide)
    assert view.is_purchasable(toluic)
    assert not _NotTheTarget(stock, Molecule("Cc1cccc(C(=O)OC)c1"), margin=2).is_purchasable(toluic)


def test_reaction_centre_checks_refuse_what_the_issue_found():
    """An alcohol as the amide's acid, a ring closed by a hydrogenation, a Suzuki coupling of an sp3 boronic
    acid: each is refused with a reason; the proper reactions pass."""
    from mara_chem.scoring.retro.sanity import reaction_problem

    mol = Chem.MolFromSmiles
    sertraline, desmethyl = "CN[C@H]1CC[C@@H](c2ccc(Cl)c(Cl)c2)c2ccccc21", "N[C@H]1CC[C@@H](c2ccc(Cl)c(Cl)c2)c2ccccc21"
    amide = "[C:1](=[O:2])[OH].[N:3]>>[C:1](=[O:2])[N:3]"
    assert "without an acyl donor" in reaction_problem("Amide formation", "Acylation", True, amide, mol(sertraline),
                                                       [mol("CO"), mol(desmethyl)])
    assert reaction_problem("Amide formation", "Acylation", True, amide, mol("CNC(=O)c1ccccc1"),
                            [mol("OC(=O)c1ccccc1"), mol("CN")]) is None
    hydrogenation = "[C:1]=[C:2]>>[C:1][C:2]"
    assert "closing a ring" in reaction_problem("Alkene hydrogenation", "Reduction", False, hydrogenation,
                                                mol("C1CCCCC1"), [mol("C=CCCCC")])
    assert reaction_problem("Alkene hydrogenation", "Reduction", False, hydrogenation, mol("CCCCCC"),
                            [mol("C=CCCCC")]) is None
    suzuki = "[c:1][Br].[#6:2]B(O)O>>[c:1][#6:2]"
    assert "sp3 boron" in reaction_problem("Suzuki coupling", "C-C Coupling", False, suzuki, mol("CC(O)c1ccccc1"),
                                           [mol("CC(O)B(O)O"), mol("Brc1ccccc1")])
    assert reaction_problem("Suzuki coupling", "C-C Coupling", False, suzuki, mol("c1ccc(-c2ccncc2)cc1"),
                            [mol("OB(O)c1ccncc1"), mol("Brc1ccccc1")]) is None


def test_building_blocks_must_be_sane_molecules():
    from mara_chem.scoring.retro.sanity import building_block_problem
    from mara_chem.scoring.retro.stock import BloomStock

    mol = Chem.MolFromSmiles
    assert "element Se" in building_block_problem(mol("C[Se](C)(C)C"))
    assert "radical" in building_block_problem(mol("[CH3]"))
    assert "isotope" in building_block_problem(mol("[13CH3]O"))
    assert building_block_problem(mol("CI(C)C")) == "I with valence 3"  # hypervalent iodine, RDKit-valid
    assert building_block_problem(mol("O=[N+]([O-])c1ccc(C(=O)O)cc1")) is None
    saxitoxin_cyanate = "N#COC[C@@H]1N=C(N)N2CCC(O)(O)[C@@]23NC(=N)N[C@@H]13"  # the 1-step saxitoxin route a review found
    assert "cyanate ester" in building_block_problem(mol(saxitoxin_cyanate))
    assert building_block_problem(mol("C(=NC1CCCCC1)=NC1CCCCC1")) is None  # DCC, a reagent, stays
    stock = BloomStock()  # the racemate and the stereo forms of 2-(aminomethyl)piperidine are all 'in stock'
    assert all(stock.is_purchasable(Molecule(s)) for s in ("NCC1CCCCN1", "NC[C@@H]1CCCCN1", "NC[C@H]1CCCCN1"))
    assert stock.is_purchasable(Molecule("O=C(O)c1c[nH]c2ccccc2c1=O"))  # listed as its hydroxyquinoline tautomer
    assert not stock.is_purchasable(Molecule("C[Se](C)(C)C"))


def test_the_model_no_longer_proposes_the_issues_nonsense():
    """Sertraline, flecainide, dasatinib: no amide coupling from an alcohol among the proposals."""
    from mara_chem.scoring.retro.model import TemplateBackwardModel
    from mara_chem.scoring.retro.sanity import reaction_problem
    from mara_chem.scoring.retro.settings import RetroSettings

    model = TemplateBackwardModel(RetroSettings().template_set())
    drugs = ["CN[C@H]1CC[C@@H](c2ccc(Cl)c(Cl)c2)c2ccccc21", "O=C(NCC1CCCCN1)c1cc(OCC(F)(F)F)ccc1OCC(F)(F)F",
             "Cc1nc(Nc2ncc(C(=O)Nc3c(C)cccc3Cl)s2)cc(N2CCN(CCO)CC2)n1"]
    by_name = {t.name: t for t in model.template_set.templates}
    for smi in drugs:
        for reaction in model.propose(Molecule(smi)):
            t = by_name[reaction.metadata["source"]]
            reactants = [m.rdkit_mol for m in reaction.reactants]
            assert reaction_problem(t.name, t.reaction_class, t.amide_coupling, t.forward_smirks,
                                    Chem.MolFromSmiles(smi), reactants) is None
            if t.amide_coupling:
                assert not any(Chem.MolToSmiles(m) in ("CO", "OCCO") for m in reactants), reaction.metadata
    assert sum(model.refused.values()) > 0  # the checks did refuse proposals for these drugs
