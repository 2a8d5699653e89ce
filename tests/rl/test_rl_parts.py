"""Config validation, diversity filters, replay memory and the oracle's budget/cache/log."""

import math
import random
import numpy as np
import pytest

from mara_chem.rl.config import ConfigError, load_run_config
from mara_chem.rl.diversity_filters import build_filter, list_filters
from mara_chem.rl.oracle import Oracle, OracleLog, recover_torn_line
from mara_chem.rl.replay import ReplayMemory
from mara_chem.scoring.scorer import Scorer
from mara_chem.scoring.spec import ScoringSpec

QED_STAGE = {"max_steps": 3, "scoring": {"type": "geometric_mean", "component": [
    {"QED": {"endpoint": [{"name": "qed", "weight": 1}]}}]}}


def _cfg(**over):
    cfg = {"run_type": "staged_learning", "parameters": {"prior_file": "p", "agent_file": "p"},
           "learning_strategy": {"type": "dap", "sigma": 128, "rate": 1e-4}, "stage": [dict(QED_STAGE)]}
    for key, value in over.items():
        cfg[key] = value
    return cfg


def test_valid_config_round_trip():
    cfg = load_run_config(_cfg(diversity_filter={"type": "IdenticalMurckoScaffold", "bucket_size": 10}))
    assert cfg.diversity_filter["bucket_size"] == 10 and cfg.learning_strategy["type"] == "dap"


def test_unknown_key_names_section_and_key():
    with pytest.raises(ConfigError, match=r"\[parameters.batchsize\] unknown key"):
        load_run_config(_cfg(parameters={"prior_file": "p", "agent_file": "p", "batchsize": 3}))
    with pytest.raises(ConfigError, match=r"\[stage.0.max_stepz\] unknown key"):
        load_run_config(_cfg(stage=[{**QED_STAGE, "max_stepz": 3}]))
    with pytest.raises(ConfigError, match=r"seeed"):
        load_run_config(_cfg(seeed=3))


def test_wrong_type_says_what_was_expected():
    with pytest.raises(ConfigError, match=r"\[parameters.batch_size\].*integer.*'many'"):
        load_run_config(_cfg(parameters={"prior_file": "p", "agent_file": "p", "batch_size": "many"}))


def test_missing_key_and_bad_filter_type():
    with pytest.raises(ConfigError, match=r"\[parameters.agent_file\] required key is missing"):
        load_run_config(_cfg(parameters={"prior_file": "p"}))
    with pytest.raises(ConfigError, match="IdenticalMurckoScaffold"):
        load_run_config(_cfg(diversity_filter={"type": "Murcko"}))
    # REINVENT's flat table: every filter key is accepted for every type (the example file sets all four)
    flat = load_run_config(_cfg(diversity_filter={"type": "IdenticalMurckoScaffold", "minsimilarity": 0.5,
                                                  "penalty_multiplier": 0.3})).diversity_filter
    assert (flat["minsimilarity"], flat["penalty_multiplier"], flat["bucket_size"]) == (0.5, 0.3, 25)
    with pytest.raises(ConfigError, match=r"\[diversity_filter.minscore\]"):
        load_run_config(_cfg(diversity_filter={"type": "PenalizeSameSmiles", "minscore": 2}))


def test_strategy_section_is_validated():
    with pytest.raises(ConfigError, match="sigmaa"):
        load_run_config(_cfg(learning_strategy={"type": "dap", "sigmaa": 3}))
    with pytest.raises(ConfigError, match="valid"):
        load_run_config(_cfg(learning_strategy={"type": "ppo"}))


def test_toml_file_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("run_type = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_run_config(bad)
    with pytest.raises(ConfigError, match="does not exist"):
        load_run_config(tmp_path / "none.toml")


def test_filter_names_pinned():
    assert list_filters() == ["IdenticalMurckoScaffold", "IdenticalTopologicalScaffold", "PenalizeSameSmiles",
                              "ScaffoldSimilarity"]


def test_identical_murcko_bucket():
    df = build_filter({"type": "IdenticalMurckoScaffold", "bucket_size": 2, "minscore": 0.5})
    smiles = ["c1ccccc1C", "c1ccccc1CC", "c1ccccc1CCC", "C1CCCCC1", None]
    out = df.apply(smiles, np.array([0.9, 0.9, 0.9, 0.3, 0.9]), 0)
    # third benzene exceeds the bucket of 2; low scores are kept but do not enter memory; None untouched
    assert out.tolist() == [0.9, 0.9, 0.0, 0.3, 0.9]
    # a molecule already in memory scores 0 when sampled again
    assert df.apply(["c1ccccc1C"], np.array([0.9]), 1).tolist() == [0.0]


def test_scaffold_similarity_merges_similar_scaffolds():
    df = build_filter({"type": "ScaffoldSimilarity", "bucket_size": 1, "minscore": 0.5, "minsimilarity": 0.5})
    out = df.apply(["c1ccc(-c2ccccc2)cc1C", "c1ccc(-c2ccccn2)cc1C", "C1CCNCC1"], np.array([0.9, 0.9, 0.9]), 0)
    assert out.tolist() == [0.9, 0.0, 0.9]
    state = df.state_dict()
    df2 = build_filter({"type": "ScaffoldSimilarity", "bucket_size": 1, "minscore": 0.5, "minsimilarity": 0.5})
    df2.load_state_dict(state)
    assert df2.apply(["c1ccc(-c2ccccn2)cc1CC"], np.array([0.9]), 1).tolist() == [0.0]


def test_penalize_same_smiles():
    df = build_filter({"type": "PenalizeSameSmiles", "penalty_multiplier": 0.5})
    assert df.apply(["CCO", "CCO", "CCN"], np.array([0.8, 0.8, 0.6]), 0).tolist() == [0.8, 0.4, 0.6]


def test_replay_memory_keeps_best_unique():
    mem = ReplayMemory(memory_size=2, sample_size=5)
    mem.add(["CCO", "CCN", "CCC"], [0.5, 0.9, 0.0])
    mem.add(["CCO", "CCCl"], [0.7, 0.6])
    assert mem.entries == [("CCN", 0.9), ("CCO", 0.7)]
    picked = mem.sample(random.Random(0), randomize_smiles=False)
    assert sorted(picked) == sorted(mem.entries)


def _oracle(tmp_path, budget):
    spec = ScoringSpec(component=[{"QED": {"endpoint": [{"name": "qed"}]}}])
    scorer = Scorer(spec)
    return Oracle(scorer, OracleLog(tmp_path / "oracle_log.csv", ["qed"]), 1, budget)


def test_oracle_charges_each_new_molecule_once(tmp_path):
    oracle = _oracle(tmp_path, budget=3)
    got = oracle.score(["CCO", "CCN", "CCO"], step=1)
    assert set(got) == {"CCO", "CCN"} and oracle.calls == 2
    got = oracle.score(["CCO", "CCC", "CCCl", "c1ccccc1"], step=2)  # only one new molecule fits
    assert oracle.calls == 3 and "CCC" in got and "CCCl" not in got and oracle.exhausted
    rows = OracleLog(tmp_path / "oracle_log.csv", ["qed"]).read()
    assert [int(r["call"]) for r in rows] == [1, 2, 3]
    assert [r["smiles"] for r in rows] == ["CCO", "CCN", "CCC"]


def test_oracle_restores_from_log_and_re_records_a_torn_line(tmp_path):
    oracle = _oracle(tmp_path, budget=10)
    oracle.score(["CCO", "CCN"], step=1)
    path = tmp_path / "oracle_log.csv"
    path.write_text(path.read_text() + "3,2,1,CCC,0.4")  # killed mid-write: the score may be cut short
    fresh = _oracle(tmp_path, budget=10)
    torn = fresh.log.cut_torn_line()
    qed = ScoringSpec(component=[{"QED": {"endpoint": [{"name": "qed"}]}}])
    recover_torn_line(fresh.log, torn, lambda stage: Scorer(qed))
    fresh.restore(fresh.log.read())
    assert fresh.calls == 3 and fresh.next_call == 4 and set(fresh.cache) == {"CCO", "CCN", "CCC"}
    fresh.score(["CCO", "CCC", "CCCl"], step=2)
    rows = fresh.log.read()
    assert [int(r["call"]) for r in rows] == [1, 2, 3, 4] and [r["smiles"] for r in rows[2:]] == ["CCC", "CCCl"]


def test_failed_scoring_is_logged_with_reason(tmp_path):
    oracle = _oracle(tmp_path, budget=None)
    got = oracle.score(["C[Se](=O)(=O)(=O)(=O)C"], step=1)
    entry = next(iter(got.values()))
    assert math.isnan(entry.total) and entry.reason
    row = oracle.log.read()[0]
    assert row["score"] == "" and row["reason"]
