"""A variant's harness (diversity filter, replay memory) is part of its run file and of its fingerprint."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchlab.paths import DEFAULT_PRIOR as PRIOR


def _job(runner, variant, run_dir=Path("/tmp/x")):
    task = runner.available_tasks()["zaleplon_mpo"]
    return runner.Job(task, variant, 0, 10, str(PRIOR), run_dir)


def test_default_harness_is_the_lab_harness_unchanged(runner) -> None:
    cfg = runner.run_config(_job(runner, runner.variants["dap"]))
    assert cfg["diversity_filter"] == {"type": "IdenticalMurckoScaffold", "bucket_size": 10, "minscore": 0.40}
    assert cfg["inception"] == {"memory_size": 100, "sample_size": 10}


def test_pmo_harness_runs_without_filter_and_replays_24(runner) -> None:
    from mara_chem.rl.config import load_run_config

    variant = runner.variants["pmo_dap"]
    cfg = runner.run_config(_job(runner, variant))
    assert "diversity_filter" not in cfg
    assert cfg["inception"] == {"memory_size": 100, "sample_size": 24}
    run = load_run_config(cfg)
    assert run.filter_for(run.stage[0]) is None and run.inception.sample_size == 24
    assert run.learning_strategy["likelihood_penalty"] == 5000


def test_the_harness_enters_the_fingerprint(runner) -> None:
    base = runner.variants["dap"]
    other = base.model_copy(update={"harness": base.harness.model_copy(update={"sample_size": 24})})
    assert runner.jobs.config_fingerprint(_job(runner, base))["sha256"] != \
        runner.jobs.config_fingerprint(_job(runner, other))["sha256"]


def test_an_unknown_harness_key_names_the_variant(runner, tmp_path: Path) -> None:
    import benchlab.variants

    bad = tmp_path / "variants.toml"
    bad.write_text('[x]\nlabel = "x"\nlearning_strategy = { type = "dap" }\nharness = { filter = "none" }\n')
    with pytest.raises(SystemExit, match=r"\[x\] harness.filter: Extra inputs are not permitted"):
        benchlab.variants.load_variants(bad)


def test_augmentation_rounds_reach_the_run_file_only_when_on(runner) -> None:
    from mara_chem.rl.config import load_run_config

    base = runner.variants["pmo_dap"]
    assert "augmentation_rounds" not in runner.run_config(_job(runner, base))["parameters"]
    aug = base.model_copy(update={"harness": base.harness.model_copy(update={"augmentation_rounds": 2})})
    cfg = runner.run_config(_job(runner, aug))
    assert cfg["parameters"]["augmentation_rounds"] == 2
    assert load_run_config(cfg).parameters.augmentation_rounds == 2


def test_diagnostics_of_a_run_without_filter_have_no_scaffold_factor(runner, tmp_path: Path) -> None:
    """Without a diversity filter the summary has no Scaffold column (as REINVENT's): the scaffold IPS factor is
    left out instead of failing the table."""
    from benchlab.diagnostics import run_diagnostics

    job = _job(runner, runner.variants["pmo_dap"], tmp_path)
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "summary_1.csv").write_text(
        "Agent,Prior,Target,Score,SMILES,SMILES_state,zaleplon_mpo,zaleplon_mpo (raw),step\n"
        "-20,-21,0,0.5,CCO,1,0.5,0.5,1\n-22,-20,0,0.45,CCN,1,0.45,0.45,1\n-23,-25,0,0.1,CCC,1,0.1,0.1,1\n")
    diag = run_diagnostics(job)
    assert diag["ips_factor_scaffold"] is None
    assert diag["ips_factor_molecule"] == pytest.approx(1 / 3)
    assert diag["anchor_score"] == pytest.approx(0.5)  # zaleplon_mpo_zinc strict 0.41: the more prior-likely high row


def test_remax_harness_writes_re_max_replay_with_the_task_threshold(runner) -> None:
    from mara_chem.rl.config import load_run_config
    cfg = runner.run_config(_job(runner, runner.variants["pmo_dap_remax_lenient"]))
    assert cfg["inception"] == {"memory_size": 100, "sample_size": 24, "replay": "remax", "mode": "scaffold",
                                "min_score": 0.40}
    run = load_run_config(cfg)
    assert run.inception.replay == "remax" and run.inception.min_score == 0.40
    for name in ("pmo_mips_grpo", "pmo_dmpo", "pmo_dap_remax_cluster", "pmo_ips_dap_scaffold_window_remax",
                 "pmo_mara_genetic", "pmo_ips_dap_cluster03_window_genetic"):
        load_run_config(runner.run_config(_job(runner, runner.variants[name])))
    both = load_run_config(runner.run_config(_job(runner, runner.variants[
        "pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_remax"])))
    assert both.inception.replay == "remax" and both.inception.mode == "cluster"
    assert both.genetic.rank_coefficient == 0.001 and both.genetic.replay_loops == 4


def test_genetic_gfn_recipe_variant_is_its_published_hyperparameters(runner) -> None:
    """The recipe's row: the [genetic] table reaches the run file (only there), validated by mara-chem's model, and
    holds Genetic GFN's hparams_default.yaml numbers; the ready run file says the same."""
    from mara_chem.rl.config import load_run_config

    assert "genetic" not in runner.run_config(_job(runner, runner.variants["pmo_dap"]))
    cfg = runner.run_config(_job(runner, runner.variants["pmo_genetic_tb_recipe"]))
    for run in (load_run_config(cfg), load_run_config(Path(__file__).resolve().parents[2] / "configs" /
                                                       "genetic_tb_recipe.toml")):
        g, s = run.genetic, run.learning_strategy
        assert (g.generations, g.offspring, g.mutation_rate, g.population, g.rank_coefficient) == (2, 8, 0.01, 64, 0.01)
        assert (g.replay_loops, g.replay_sample_size, g.buffer_size, g.kl_coefficient) == (8, 64, 1024, 0.01)
        assert g.on_policy_update is False and run.parameters.batch_size == 64
        assert (s["sigma"], s["rate"], s["log_z_lr"], s["log_z_init"]) == (50, 5e-4, 0.1, 5.0)
        assert s["learn_log_z"] is True and s["prior_in_target"] is False


def test_parity_variant_is_the_reinvent_peers_pmo_preset(runner) -> None:
    """pmo_dap_parity runs what the REINVENT 4.8 peer's ``pmo`` preset runs: σ, rate, batch, memory and sample,
    no filter, replayed SMILES as stored, no likelihood penalty."""
    from benchlab.peers.reinvent import PRESETS
    from mara_chem.rl.config import load_run_config

    preset = PRESETS["pmo"]
    run = load_run_config(runner.run_config(_job(runner, runner.variants["pmo_dap_parity"])))
    s = run.learning_strategy
    assert (s["type"], s["sigma"], s["rate"]) == ("dap", preset["sigma"], preset["rate"])
    assert s.get("likelihood_penalty", 0) == 0
    assert run.parameters.batch_size == preset["batch_size"]
    assert run.parameters.randomize_smiles is preset["randomize_smiles"] is False
    assert (run.inception.memory_size, run.inception.sample_size) == (preset["inception"]["memory_size"],
                                                                      preset["inception"]["sample_size"])
    assert run.filter_for(run.stage[0]) is None and preset["diversity_filter"] is None
    assert "randomize_smiles" not in runner.run_config(_job(runner, runner.variants["pmo_dap"]))["parameters"]
