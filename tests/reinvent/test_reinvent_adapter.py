"""mara-chem's strategies inside REINVENT 4.8's own loop: the losses REINVENT trains with are mara-chem's."""

import csv
from pathlib import Path

import numpy as np
import pytest
import torch

from mara_chem.models.prior_file import load_prior
from mara_chem.models.reinvent_prior import save_reinvent_prior
from mara_chem.rl.strategies import build_strategy
from tests.reinvent.reinvent_toml import qed_stage
from tests.paths import REPO

BUNDLED = REPO / "priors" / "moses-gru-2x256.prior"

RUN_FILE = """
run_type = "staged_learning"
device = "cpu"
seed = {seed}

[parameters]
prior_file = "{prior}"
agent_file = "{prior}"
summary_csv_prefix = "{out}/summary"
batch_size = 32

[learning_strategy]
{strategy}

[inception]
memory_size = 20
sample_size = 4
"""
RUN_FILE += qed_stage(max_steps=5, max_score=1.0, min_steps=10, chkpt="{out}/stage1.chkpt")


@pytest.fixture(scope="module")
def reinvent_prior(reinvent_rl, tmp_path_factory) -> Path:
    """The bundled prior written as a REINVENT 4 model file (REINVENT samples it with its own code)."""
    return save_reinvent_prior(load_prior(BUNDLED), tmp_path_factory.mktemp("prior") / "bundled.prior")


@pytest.fixture(scope="module")
def sharp_reinvent_prior(reinvent_rl, tmp_path_factory) -> Path:
    """The bundled prior at temperature 0.125 (output layer × 8), so that batches hold duplicates
    (REINVENT's ``temperature`` parameter is used by its transformers only)."""
    model = load_prior(BUNDLED)
    with torch.no_grad():
        model.network.output.weight.mul_(8.0)
        model.network.output.bias.mul_(8.0)
    return save_reinvent_prior(model, tmp_path_factory.mktemp("prior") / "sharp.prior")


def run_reinvent(tmp_path: Path, prior: Path, strategy: str, seed: int = 1, run_text: str = RUN_FILE):
    """Run REINVENT through `mara-chem reinvent` on ``run_text`` (the run file template); returns the strategy
    inputs/outputs of each step and the CSV."""
    from mara_chem.reinvent import main
    from mara_chem.reinvent.learning import MaraReward

    run_file = tmp_path / "run.toml"
    run_file.write_text(run_text.format(prior=prior, out=tmp_path, strategy=strategy, seed=seed))
    records = []
    MaraReward.step_hooks.append(records.append)
    try:
        assert main([str(run_file), "--log-level", "warning"]) == 0
    finally:
        MaraReward.step_hooks.remove(records.append)
    with open(tmp_path / "summary_1.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return records, rows


def rows_of_step(rows: list[dict], step: int) -> list[dict]:
    return [r for r in rows if int(r["step"]) == step]


def replay_losses(records, params: dict) -> list[float]:
    """mara-chem's own strategy on the recorded tensors, with its own optimiser for any log Z."""
    strategy = build_strategy(**params)
    groups = strategy.optimizer_param_groups()
    optimizer = torch.optim.Adam(groups) if groups else None
    losses = []
    for record in records:
        batch = record.batch
        batch.agent_logp = batch.agent_logp.detach()
        out = strategy(batch)
        losses.append(float(out.loss))
        if optimizer is not None:
            optimizer.zero_grad()
            out.loss.backward()
            optimizer.step()
    return losses


def test_mara_in_reinvent_trains_with_mara_chems_loss(reinvent_prior, tmp_path):
    records, rows = run_reinvent(tmp_path, reinvent_prior, 'type = "mara"\nsigma = 64\ntau = 0.6\nanchor_pool = "batch+memory"')
    assert len(records) == 5
    expected = replay_losses(records, dict(type="mara", sigma=64, tau=0.6, anchor_pool="batch+memory"))
    assert [float(r.output.loss) for r in records] == pytest.approx(expected, rel=1e-6)
    for step, record in enumerate(records, start=1):
        batch, csv_rows = record.batch, rows_of_step(rows, step)
        n = len(csv_rows)  # QED never fails: no NaN rows, REINVENT keeps all 32
        assert n == 32 and int((~batch.is_replay).sum()) == n
        # the tensors are REINVENT's: its agent/prior NLLs and its (duplicate-zeroed) scores, as it wrote them
        assert np.allclose(-batch.agent_logp[:n].detach().numpy(), [float(r["Agent"]) for r in csv_rows], atol=1e-3)
        assert np.allclose(-batch.prior_logp[:n].numpy(), [float(r["Prior"]) for r in csv_rows], atol=1e-3)
        assert np.allclose(batch.scores[:n].numpy(), [float(r["Score"]) for r in csv_rows], atol=1e-6)
        # DAP's target as REINVENT reports it ("Target"): log π0 + σ·R after MARA's rewrite
        assert np.allclose(record.output.targets[:n].numpy(), [float(r["Target"]) for r in csv_rows], atol=1e-3)
    assert any(r.batch.is_replay.any() for r in records[1:])  # inception rows joined the loss
    assert records[-1].batch.anchor_pool_scores is not None
    assert (tmp_path / "stage1.chkpt").is_file()


def test_ips_dap_in_reinvent_sees_duplicates_real_scores_and_learns_log_z(sharp_reinvent_prior, tmp_path):
    records, rows = run_reinvent(tmp_path, sharp_reinvent_prior, 'type = "ips_dap"\nsigma = 64')
    assert len(records) == 5
    expected = replay_losses(records, dict(type="ips_dap", sigma=64))
    assert [float(r.output.loss) for r in records] == pytest.approx(expected, rel=1e-6)
    log_z = [r.output.info["log_z"] for r in records]
    assert len(set(log_z[1:])) > 1  # log Z is in the optimiser: it moves between steps
    duplicates = 0
    for step, record in enumerate(records, start=1):
        csv_rows = rows_of_step(rows, step)
        first = {}
        for i, row in enumerate(csv_rows):
            score = float(record.batch.scores[i])
            if row["SMILES_state"] == "1":
                first[row["SMILES"]] = score
                assert score == pytest.approx(float(row["Score"]), abs=1e-6)
            elif row["SMILES_state"] == "2":  # REINVENT zeroed it; IPS counts it with its real score
                duplicates += 1
                assert float(row["Score"]) == 0.0 and score == first[row["SMILES"]] > 0
                ids = record.batch.outcome_ids
                assert ids[i] == ids[[r["SMILES"] for r in csv_rows].index(row["SMILES"])]
            else:
                assert score == 0.0  # not the geometric mean's 1e-8 floor
    assert duplicates > 0


def test_reinvent_keys_keep_reinvents_strictness(reinvent_rl):
    from pydantic import ValidationError

    from mara_chem.reinvent import install
    from mara_chem.reinvent.learning import MaraSectionLearningStrategy

    install()
    assert MaraSectionLearningStrategy(type="dap", sigma=128).mara_params is None  # REINVENT's own DAP
    for table, key in ((dict(type="sdap", tau=0.5), "tau"), (dict(type="mara", tau=0.5, sigmaa=3), "sigmaa"),
                       (dict(type="ips_grpo", sigma=64), "sigma")):
        with pytest.raises(ValidationError, match=key):
            MaraSectionLearningStrategy(**table)
    dap_log_z = MaraSectionLearningStrategy(type="dap", learn_log_z=True)
    assert dap_log_z.mara_params.learn_log_z and dap_log_z.model_dump() == {"type": "dap", "learn_log_z": True}
    import reinvent.runmodes.RL as RL

    for name in ("mara", "ips_dap", "ips_grpo", "grpo", "rloo", "reinforce"):
        assert getattr(RL, f"{name}_strategy").type == name
    with pytest.raises(RuntimeError, match="step context"):
        RL.mara_strategy(torch.zeros(2), torch.zeros(2), torch.zeros(2), 128)


def test_run_file_without_chkpt_file_is_refused_before_reinvent_starts(reinvent_rl, tmp_path, capsys):
    from mara_chem.reinvent import main

    run_file = tmp_path / "run.toml"
    text = RUN_FILE.format(prior="none.prior", out=tmp_path, strategy='type = "mara"\ntau = 0.6', seed=1)
    run_file.write_text(text.replace(f'chkpt_file = "{tmp_path}/stage1.chkpt"\n', ""))
    assert main([str(run_file)]) == 2
    assert "[[stage]] 1: chkpt_file is required" in capsys.readouterr().err
    run_file.write_text(text.replace('tau = 0.6', 'tau = 0.6\ntau_quantil = 0.5'))
    assert main([str(run_file)]) == 2
    assert "tau_quantil" in capsys.readouterr().err


def test_adapter_refuses_another_reinvent_version_or_signature(reinvent_rl, monkeypatch):
    from reinvent import version
    from reinvent.runmodes.RL.reinvent import ReinventLearning

    from mara_chem.reinvent.compat import ReinventIncompatible, check_reinvent

    assert check_reinvent().startswith("4.8.")
    monkeypatch.setattr(version, "__version__", "4.9.0")
    with pytest.raises(ReinventIncompatible, match="REINVENT 4.9.0"):
        check_reinvent()
    monkeypatch.undo()

    def update(self, results, orig_smilies, extra=None):
        pass

    monkeypatch.setattr(ReinventLearning, "update", update)
    with pytest.raises(ReinventIncompatible, match="ReinventLearning.update has signature"):
        check_reinvent()


def rebuilt_losses(records, params: dict, state: dict | None = None):
    """mara-chem's builder and strategy on the recorded rows, step after step (the tracker's window carries
    over as it does in mara-chem's loop); returns (losses, batches)."""
    from mara_chem.rl.strategy_inputs import OnPolicyRows, Rows, StrategyInputs

    strategy = build_strategy(**params)
    inputs = StrategyInputs(strategy)
    if state is not None:
        strategy.load_state_dict(state["strategy"])
        inputs.load_state_dict(state["inputs"])
    groups = strategy.optimizer_param_groups()
    optimizer = torch.optim.Adam(groups) if groups else None
    losses, batches = [], []
    for record in records:
        b, on = record.batch, record.batch.on_policy
        rows = OnPolicyRows(b.agent_logp[on].detach(), b.prior_logp[on], b.scores[on], canonical=record.canonical)
        replay = Rows(b.agent_logp[~on].detach(), b.prior_logp[~on], b.scores[~on]) if bool((~on).any()) else None
        batch = inputs.build(rows, replay, memory_smiles=lambda: record.memory)
        out = strategy(batch)
        losses.append(float(out.loss))
        batches.append(batch)
        if optimizer is not None:
            optimizer.zero_grad()
            out.loss.backward()
            optimizer.step()
    return losses, batches


IPS_OPTIONS = {
    "scaffold": 'outcome = "scaffold"',
    "cluster": 'outcome = "cluster"\ncluster_similarity = 0.4',
    "window": 'frequency = "window"\nfrequency_window = 3',
    "memory": 'frequency = "memory"',
}


@pytest.mark.parametrize("option", sorted(IPS_OPTIONS))
def test_each_ips_option_changes_reinvents_losses_as_it_changes_mara_chems(sharp_reinvent_prior, tmp_path, option):
    table = f'type = "ips_dap"\nsigma = 64\n{IPS_OPTIONS[option]}'
    records, _ = run_reinvent(tmp_path, sharp_reinvent_prior, table)
    assert len(records) == 5
    params = dict(type="ips_dap", sigma=64, **{k: v.strip('"') if v.startswith('"') else float(v) for k, v in (
        line.split(" = ") for line in IPS_OPTIONS[option].splitlines())})
    params = {k: int(v) if k == "frequency_window" else v for k, v in params.items()}
    expected, batches = rebuilt_losses(records, params)
    assert [float(r.output.loss) for r in records] == pytest.approx(expected, rel=1e-6)
    for record, batch in zip(records, batches):
        assert torch.equal(record.batch.outcome_ids, batch.outcome_ids)
        if batch.outcome_freq is not None:
            assert torch.equal(record.batch.outcome_freq, batch.outcome_freq)
    plain, _ = rebuilt_losses(records, dict(type="ips_dap", sigma=64))  # the same rows without the option
    assert plain != pytest.approx(expected, rel=1e-6)


def test_ips_window_state_is_in_reinvents_checkpoint_and_resumes(sharp_reinvent_prior, tmp_path):
    table = 'type = "ips_grpo"\nfrequency = "window"\nfrequency_window = 10'
    (tmp_path / "first").mkdir()
    records, _ = run_reinvent(tmp_path / "first", sharp_reinvent_prior, table)
    state = torch.load(tmp_path / "first" / "stage1.chkpt", map_location="cpu", weights_only=False)["mara_chem"]
    assert [g for _, g in state["inputs"]["window"]] == [32] * 5  # five steps of 32 samples counted
    (tmp_path / "again").mkdir()
    again = RUN_FILE.replace('agent_file = "{prior}"', f'agent_file = "{tmp_path / "first" / "stage1.chkpt"}"\n'
                             'use_checkpoint = true')
    resumed, _ = run_reinvent(tmp_path / "again", sharp_reinvent_prior, table, seed=2, run_text=again)
    _, with_state = rebuilt_losses(resumed[:1], dict(type="ips_grpo", frequency="window", frequency_window=10), state)
    _, fresh = rebuilt_losses(resumed[:1], dict(type="ips_grpo", frequency="window", frequency_window=10))
    assert torch.equal(resumed[0].batch.outcome_freq, with_state[0].outcome_freq)
    assert not torch.equal(resumed[0].batch.outcome_freq, fresh[0].outcome_freq)  # the window came back


def test_converted_priors_carry_a_hash_id_reinvent_accepts(reinvent_prior):
    from reinvent.models import check_valid_hash

    payload = torch.load(reinvent_prior, map_location="cpu", weights_only=False)
    assert payload["metadata"]["hash_id"] and check_valid_hash(payload)
    payload["network"]["_linear.bias"][0] += 1.0  # an edited file no longer matches its hash
    assert not check_valid_hash(payload)


def test_a_mara_chem_prior_in_a_reinvent_run_names_the_file_and_the_conversion(reinvent_rl, tmp_path, capsys):
    from mara_chem.reinvent import main

    run_file = tmp_path / "run.toml"
    run_file.write_text(RUN_FILE.format(prior=BUNDLED, out=tmp_path, strategy='type = "mara"\ntau = 0.6', seed=1))
    assert main([str(run_file)]) == 2
    err = capsys.readouterr().err
    assert f"{BUNDLED} is a mara-chem prior" in err and "mara-chem prior convert" in err and "--to reinvent" in err


def test_unknown_strategy_type_lists_the_valid_ones_even_with_mara_options(reinvent_rl):
    from pydantic import ValidationError

    from mara_chem.reinvent import install
    from mara_chem.reinvent.learning import MaraSectionLearningStrategy

    install()
    for table in (dict(type="MARA", tau=0.5), dict(type="maraa", tau=0.5, sigma=64)):
        with pytest.raises(ValidationError, match=r"unknown learning strategy type .*valid: REINVENT's dap, sdap.*"
                                                  r"mara-chem's .*ips_dap.*mara"):
            MaraSectionLearningStrategy(**table)
    for type_ in ("reinforce", "rloo", "grpo", "ips_grpo"):
        with pytest.raises(ValidationError, match=r"takes beta.*sigma = 20 is beta = 0\.05"):
            MaraSectionLearningStrategy(type=type_, sigma=20)


def test_reinvent_order_quiet_and_the_strategy_speaks_in_reinvents_log(reinvent_prior, tmp_path, capfd):
    import re

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from mara_chem.cli import main

    run_file = tmp_path / "run.toml"
    text = RUN_FILE.format(prior=reinvent_prior, out=tmp_path, seed=1,
                           strategy='type = "ips_dap"\nsigma = 64\nmara = true\ntau = 0.6\noutcome = "scaffold"')
    run_file.write_text(text.replace('seed = 1\n', f'seed = 1\ntb_logdir = "{tmp_path}/tb"\n', 1))
    log = tmp_path / "run.log"
    assert main(["reinvent", "-l", str(log), str(run_file), "-q"]) == 0  # REINVENT's own option order
    written = log.read_text()
    assert "Using mara-chem learning strategy 'ips_dap' (" in written and "outcome = 'scaffold'" in written
    assert "sigma = 64.0" in written and "tau = 0.6" in written  # resolved options, defaults included
    steps = re.findall(r"mara-chem ips_dap stage 1 step (\d): (.*)", written)
    assert [int(s) for s, _ in steps] == [1, 2, 3, 4, 5]
    for key in ("loss", "mara_high_fraction", "mara_anchor_score", "ips_outcomes", "ips_mean_factor", "log_z"):
        assert key in steps[-1][1]
    scalars = EventAccumulator(str(tmp_path / "tb_0")).Reload().Tags()["scalars"]
    assert {"mara-chem/ips_outcomes", "mara-chem/ips_mean_factor", "mara-chem/mara_high_fraction"} <= set(scalars)
    assert "does not contain a hash ID" not in written
    assert capfd.readouterr().err == ""  # -l: the log is in the file only
    assert main(["reinvent", str(run_file), "-q"]) == 0
    assert capfd.readouterr().err == ""  # -q without -l: REINVENT's log stays out of the terminal


def test_reinvents_own_command_runs_mara_with_the_hook_on(reinvent_prior, tmp_path, torchvision_path):
    """The README's path for a REINVENT 4.8 user: mara-chem installed into REINVENT's environment and
    `mara-chem reinvent-hook on`; then REINVENT's own `reinvent` script runs ``type = "mara"``. The hook's
    .pth goes into a temporary site directory (not this environment's: other tests must not see it), which
    the child reads as Python reads site-packages at start-up (``site.addsitedir``). Test set-up, stated:
    where torchvision is absent the child gets the stand-in of tests/stand_ins on PYTHONPATH."""
    import os
    import shutil
    import subprocess
    import sys

    from mara_chem.cli import main

    site_dir = tmp_path / "site"
    site_dir.mkdir()
    assert main(["reinvent-hook", "on", "--site-dir", str(site_dir)]) == 0
    from mara_chem.reinvent.hook import PTH_LINE

    assert (site_dir / "mara_chem_reinvent.pth").read_text() == PTH_LINE
    run_file = tmp_path / "run.toml"
    run_file.write_text(RUN_FILE.format(prior=reinvent_prior, out=tmp_path, seed=1,
                                        strategy='type = "mara"\nsigma = 128\ntau = 0.6'))
    script = shutil.which("reinvent", path=str(Path(sys.executable).parent))
    assert script, "REINVENT's console script is not installed next to this interpreter"
    child = ("import runpy, site, sys; site.addsitedir(sys.argv[1]); sys.argv = ['reinvent', *sys.argv[2:]]; "
             "runpy.run_path({script!r}, run_name='__main__')").format(script=script)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*torchvision_path, str(REPO)]))
    done = subprocess.run([sys.executable, "-c", child, str(site_dir), "-l", str(tmp_path / "run.log"), str(run_file)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    written = (tmp_path / "run.log").read_text()
    assert "Using mara-chem learning strategy 'mara' (" in written
    assert "mara-chem mara stage 1 step 5: loss" in written
    with open(tmp_path / "summary_1.csv", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 5 * 32
    assert main(["reinvent-hook", "off", "--site-dir", str(site_dir)]) == 0
    assert not (site_dir / "mara_chem_reinvent.pth").exists()
    done = subprocess.run([sys.executable, "-c", child, str(site_dir), str(run_file)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode != 0 and "tau\n  Extra inputs are not permitted" in done.stderr  # REINVENT alone
