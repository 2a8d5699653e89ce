"""One parse per molecule and step: the scorer's components share it (as copies), the scaffold reuses it."""

from __future__ import annotations

import numpy as np
from rdkit import Chem
from rdkit.Chem import rdMolDescriptors

import mara_chem.chem.smiles as smiles_module
import mara_chem.scoring.component as component_module
import mara_chem.scoring.scorer as scorer_module
from mara_chem.chem.smiles import ParsedMolecules, murcko_scaffold
from mara_chem.rl.oracle import Oracle, OracleLog
from mara_chem.scoring.component import ScoringComponent
from mara_chem.scoring.scorer import Scorer
from mara_chem.scoring.spec import ScoringSpec

MOLECULES = [
    "CCN(CC)CC(=O)Nc1c(C)cccc1C", "CCCCNC(=O)NS(=O)(=O)c1ccc(C)cc1", "CC(NC(C)(C)C)C(=O)c1cccc(Cl)c1",
    "O=C(C1CCCCC1)N1CC(=O)N2CCc3ccccc3C2C1", "Cc1ccc(-c2nc3ccc(C)cn3c2CC(=O)N(C)C)cc1", "CCOC(=O)c1ccc(N)cc1",
    "C[C@H](N)C(=O)O", "c1ccc2c(c1)[nH]c1ccccc12", "CC12CCC3c4ccc(O)cc4CCC3C1CCC2O", "CCCCCC", "OC1CN2CC12",
    "not a smiles",
]
# the scoring of the lab's two tasks (benchmarks/tasks/ref_neighbourhoods.toml and chemotypes.toml), in one spec
SPEC = {"type": "geometric_mean", "component": [
    {"TanimotoSimilarity": {"endpoint": [{"name": "sim", "params": {"smiles": MOLECULES[:5], "radius": 2,
                                                                      "n_bits": 2048, "aggregate": "max"}}]}},
    {"QED": {"endpoint": [{"name": "QED"}]}},
    {"SubstructureMatch": {"endpoint": [{"name": "chemotype", "params": {"smarts": [
        "[#6]S(=O)(=O)[NX3]", "c1ncon1", "[$([X4R2](@*)(@*)(@*)@*)]", "[NX3]1CCC1", "[$([X4R3])]"]}}]}},
    {"Csp3": {"endpoint": [{"name": "Fsp3"}]}},
]}


def _count_parses(monkeypatch) -> list[str]:
    parsed: list[str] = []
    original = smiles_module.to_mol

    def counting(smiles: str):
        parsed.append(smiles)
        return original(smiles)

    for module in (smiles_module, scorer_module, component_module):
        monkeypatch.setattr(module, "to_mol", counting)
    return parsed


def test_scorer_parses_each_smiles_once_for_all_components(monkeypatch):
    scorer = Scorer(ScoringSpec(**SPEC))
    parsed = _count_parses(monkeypatch)
    scorer(MOLECULES)
    assert sorted(parsed) == sorted(MOLECULES)  # four per-molecule components, one parse each


def test_shared_molecules_give_the_same_bits_as_a_parse_per_component():
    scorer = Scorer(ScoringSpec(**SPEC))
    shared = scorer(MOLECULES)
    for ep in scorer.endpoints:  # the component alone, parsing every SMILES itself (the code before sharing)
        alone = ep.component.score_batch(list(MOLECULES))
        values = np.array([v if isinstance(v, float) else np.nan for v in alone])
        np.testing.assert_array_equal(shared.raw[ep.name], values)
        assert shared.raw[ep.name].tobytes() == values.tobytes()
    assert np.isnan(shared.total[-1]) and "invalid SMILES" in shared.reasons[-1]


class _Kekulizes(ScoringComponent):
    """Changes the molecule it is given (clears aromatic flags), as a careless plugin might."""

    raw_range = (0.0, 1.0)

    def score_mol(self, mol: Chem.Mol) -> float:
        Chem.Kekulize(mol, clearAromaticFlags=True)
        return 0.5


class _AromaticRings(ScoringComponent):
    raw_range = (0.0, 100.0)

    def score_mol(self, mol: Chem.Mol) -> float:
        return float(rdMolDescriptors.CalcNumAromaticRings(mol))


def test_a_component_that_changes_its_molecule_does_not_change_the_next_ones():
    scorer = Scorer(ScoringSpec(component=[{"QED": {"endpoint": [{"name": "a"}]}},
                                           {"QED": {"endpoint": [{"name": "b"}]}}]))
    scorer.endpoints[0].component = _Kekulizes()
    scorer.endpoints[1].component = _AromaticRings()
    mols = [smiles_module.to_mol(s) for s in ("c1ccc2c(c1)[nH]c1ccccc12", "c1ccccc1")]
    result = scorer(["c1ccc2c(c1)[nH]c1ccccc12", "c1ccccc1"], mols)
    assert result.raw["b"].tolist() == [3.0, 1.0]  # shared without copies, the second component would count 0
    assert all(atom.GetIsAromatic() for atom in mols[1].GetAtoms())  # the caller's molecule is left as parsed


def test_oracle_hands_the_scorer_the_steps_molecules_and_parses_only_new_ones(tmp_path, monkeypatch):
    scorer = Scorer(ScoringSpec(**SPEC))
    oracle = Oracle(scorer, OracleLog(tmp_path / "oracle_log.csv", scorer.endpoint_names), 1, None)
    oracle.score(MOLECULES[:3], step=1)
    parsed = _count_parses(monkeypatch)
    mols = ParsedMolecules()
    scored = oracle.score(MOLECULES[:6], step=2, mols=mols)
    assert sorted(parsed) == sorted(MOLECULES[3:6]) and sorted(mols) == sorted(MOLECULES[3:6])
    assert mols.get(MOLECULES[0]) is None and MOLECULES[0] in scored  # cached: neither parsed nor scored again


def test_murcko_scaffold_of_a_parsed_molecule_is_the_scaffold_of_its_smiles(monkeypatch):
    monkeypatch.setattr(smiles_module, "_SCAFFOLDS", type(smiles_module._SCAFFOLDS)())
    expected = {s: murcko_scaffold(s) for s in MOLECULES}
    assert expected["CCCCCC"] == "" and expected["not a smiles"] is None
    assert expected["CCN(CC)CC(=O)Nc1c(C)cccc1C"] == "c1ccccc1"
    smiles_module._SCAFFOLDS.clear()
    mols = ParsedMolecules()
    parsed = _count_parses(monkeypatch)
    valid = MOLECULES[:-1]  # the loop asks only for the scaffolds of valid canonical SMILES
    for s in valid:
        mols[s]
    assert [murcko_scaffold(s, mol=mols.get(s)) for s in valid] == [expected[s] for s in valid]
    assert len(parsed) == len(valid)  # the scaffolds parsed nothing more


def test_scaffold_cache_keeps_the_most_recently_used(monkeypatch):
    monkeypatch.setattr(smiles_module, "_SCAFFOLDS", type(smiles_module._SCAFFOLDS)())
    monkeypatch.setattr(smiles_module, "SCAFFOLD_CACHE_SIZE", 2)
    for s in ("c1ccccc1C", "C1CCCCC1C", "c1ccccc1C", "c1ccncc1C"):
        murcko_scaffold(s)
    assert [k for k, _ in smiles_module._SCAFFOLDS] == ["c1ccccc1C", "c1ccncc1C"]
