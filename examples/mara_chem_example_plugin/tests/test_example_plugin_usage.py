"""The installed plugin used the way a run file uses it (run by mara-chem's tests/repository/test_example_plugin.py)."""

import numpy as np
import pytest

from mara_chem.cli import main
from mara_chem.plugins import COMPONENTS, STRATEGIES, TRANSFORMS, plugin_table
from mara_chem.rl.config import ConfigError, load_run_config
from mara_chem.rl.strategies import build_strategy
from mara_chem.scoring.scorer import Scorer

DIST = "mara-chem-example-plugin 0.1.0"
PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"  # 11 heavy atoms, 3 of them N or O


def run_file(strategy: dict) -> dict:
    scoring = {"type": "arithmetic_mean", "component": [{"example_heteroatom_fraction": {"endpoint": [
        {"name": "hetero", "transform": {"type": "example_ramp", "low": 0.0, "high": 0.5}}]}}]}
    return {"run_type": "staged_learning", "parameters": {"prior_file": "p.prior", "agent_file": "p.prior"},
            "learning_strategy": strategy, "stage": [{"max_steps": 5, "scoring": scoring}]}


def test_listed_with_their_distribution(capsys):
    rows = set(plugin_table(["components", "transforms", "strategies"]))
    assert {("components", "example_heteroatom_fraction", DIST), ("transforms", "example_ramp", DIST),
            ("strategies", "example_baseline_pg", DIST)} <= rows
    assert main(["plugins", "strategies"]) == 0
    printed = [line.split(None, 2) for line in capsys.readouterr().out.splitlines()]
    assert ["strategies", "example_baseline_pg", DIST] in printed and ["strategies", "dap", "built-in"] in printed
    assert "example_baseline_pg" in STRATEGIES and "example_ramp" in TRANSFORMS
    assert "EXAMPLE_heteroatom_fraction" in COMPONENTS  # component names are case-insensitive


def test_a_run_file_scores_and_learns_with_the_plugins():
    config = load_run_config(run_file({"type": "example_baseline_pg", "beta": 0.1, "rate": 1e-4}))
    result = Scorer(config.stage[0].scoring)([PARACETAMOL, "not a smiles"])
    assert result.raw["hetero"][0] == pytest.approx(3 / 11)
    assert result.total[0] == pytest.approx((3 / 11) / 0.5)  # the ramp from 0 to 0.5
    assert np.isnan(result.total[1]) and "example_heteroatom_fraction: invalid SMILES" in result.reasons[1]
    assert build_strategy(config.learning_strategy).beta == 0.1


def test_a_misspelt_plugin_option_names_the_key():
    with pytest.raises(ConfigError, match="bta"):
        load_run_config(run_file({"type": "example_baseline_pg", "bta": 0.1}))


def test_the_plugin_strategy_runs_a_real_mara_chem_run(tmp_path, capsys):
    """`mara-chem run` with ``type = "example_baseline_pg"`` on the bundled prior: two steps, scored and learnt."""
    import csv
    import tomllib  # noqa: F401  (the run file below is TOML, as a user writes it)

    out = tmp_path / "run"
    (tmp_path / "run.toml").write_text(f'''
run_type = "staged_learning"
device = "cpu"
seed = 1

[parameters]
prior_file = "moses-gru-2x256"
agent_file = "moses-gru-2x256"
summary_csv_prefix = "{out}/summary"
batch_size = 8

[learning_strategy]
type = "example_baseline_pg"
beta = 0.1
rate = 1e-4

[[stage]]
max_steps = 2
max_oracle_calls = 100

[stage.scoring]
type = "arithmetic_mean"
[[stage.scoring.component]]
[stage.scoring.component.example_heteroatom_fraction]
[[stage.scoring.component.example_heteroatom_fraction.endpoint]]
name = "hetero"
transform = {{ type = "example_ramp", low = 0.0, high = 0.5 }}
''')
    assert main(["run", str(tmp_path / "run.toml"), "-q"]) == 0, capsys.readouterr().err
    with open(out / "summary_1.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["step"]) for r in rows] == [1] * 8 + [2] * 8
    assert all(r["Target"] != "" for r in rows if r["SMILES_state"] != "0")  # the strategy's rewards, per row


def test_an_expensive_oracle_plugin_scores_on_the_shared_pool_and_cache(tmp_path):
    """example_conformer_energy brings only a worker: mara-chem's pool runs it and its cache keeps it."""
    cache = tmp_path / "conformers.sqlite"
    scoring = {"type": "arithmetic_mean", "component": [{"example_conformer_energy": {"endpoint": [
        {"name": "mmff", "params": {"executor": "pool", "n_workers": 1, "n_conformers": 2,
                                    "cache_path": str(cache)},
         "transform": {"type": "reverse_sigmoid", "low": -50.0, "high": 50.0, "k": 0.5}}]}}]}
    config = load_run_config({**run_file({"type": "dap", "sigma": 128}), "stage": [{"max_steps": 5, "scoring": scoring}]})
    scorer = Scorer(config.stage[0].scoring)
    try:
        first = scorer([PARACETAMOL, "not a smiles"])
    finally:
        scorer.close()
    assert np.isfinite(first.raw["mmff"][0]) and np.isnan(first.total[1])
    rescored = Scorer(config.stage[0].scoring)  # a new scorer: the energy comes from the cache file
    try:
        assert rescored([PARACETAMOL]).raw["mmff"][0] == first.raw["mmff"][0]
    finally:
        rescored.close()


def test_a_plugin_diversity_filter_is_chosen_in_a_run_file_with_its_own_options():
    from mara_chem.rl.diversity_filters import build_filter

    table = {**run_file({"type": "dap"}), "diversity_filter": {"type": "example_repeat_cap", "repeats": 2}}
    config = load_run_config(table)
    assert config.diversity_filter == {"type": "example_repeat_cap", "repeats": 2}
    df = build_filter(config.filter_for(config.stage[0]))
    out = df.apply(["CCO", "CCO", "CCO", None], np.array([0.9, 0.9, 0.9, 0.5]), 1)
    assert out.tolist() == [0.9, 0.9, 0.0, 0.5]  # the third CCO is over the cap of 2
    with pytest.raises(ConfigError, match=r"diversity_filter.repeat\b.*unknown key"):
        load_run_config({**table, "diversity_filter": {"type": "example_repeat_cap", "repeat": 2}})
    with pytest.raises(ConfigError, match=r"diversity_filter.bucket_size.*unknown key"):  # not a REINVENT filter
        load_run_config({**table, "diversity_filter": {"type": "example_repeat_cap", "bucket_size": 2}})
