"""A run either does what its file says or refuses before writing: kills, signals, torn logs, two writers,
changed resumes, diverged and planted checkpoints, multi-stage call numbering (real runs of the bundled prior
with QED scoring, small batches; the kill tests run the real `mara-chem run` in a subprocess)."""

import copy
import csv
import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from mara_chem.rl.config import load_run_config
from mara_chem.rl.loop import RunDirError, StagedLearning
from tests.rl.test_loop import PRIOR, _to_toml
from tests.paths import REPO

QED = {"type": "geometric_mean", "component": [{"QED": {"endpoint": [{"name": "QED", "weight": 1}]}}]}


def _run_dict(run_dir: Path, budgets: list[int], steps: int = 100, batch: int = 8, **parameters) -> dict:
    return {
        "run_type": "staged_learning", "device": "cpu", "seed": 5,
        "parameters": {"prior_file": str(PRIOR), "agent_file": str(PRIOR),
                       "summary_csv_prefix": str(run_dir / "summary"), "batch_size": batch, **parameters},
        "learning_strategy": {"type": "dap", "sigma": 64, "rate": 1e-4},
        "diversity_filter": {"type": "IdenticalMurckoScaffold", "bucket_size": 5},
        "inception": {"memory_size": 10, "sample_size": 2},
        "stage": [{"max_steps": steps, "max_oracle_calls": b, "min_steps": 1000, "scoring": copy.deepcopy(QED)}
                  for b in budgets],
    }


def _rows(run_dir: Path) -> list[dict[str, str]]:
    path = run_dir / "oracle_log.csv"
    if not path.exists():
        return []
    with open(path, newline="") as handle:
        text = handle.read()
    return list(csv.DictReader(text[: text.rfind("\n") + 1].splitlines()))


def _check_log(run_dir: Path, budgets: list[int]) -> list[dict[str, str]]:
    """Calls numbered 1..N without gap or repeat, each stage exactly its budget, no molecule charged twice."""
    rows = _rows(run_dir)
    assert [int(r["call"]) for r in rows] == list(range(1, sum(budgets) + 1))
    for stage, budget in enumerate(budgets, start=1):
        smiles = [r["smiles"] for r in rows if r["stage"] == str(stage)]
        assert len(smiles) == budget and len(set(smiles)) == budget
    assert [r["stage"] for r in rows] == sorted(r["stage"] for r in rows)  # stages never interleave
    return rows


def _cli(toml: Path) -> list[str]:
    return [sys.executable, "-m", "mara_chem.cli", "run", str(toml)]


ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO)}


def _start(tmp_path: Path, cfg: dict) -> tuple[subprocess.Popen, list[str]]:
    toml = tmp_path / "run.toml"
    toml.write_text(_to_toml(cfg))
    return subprocess.Popen(_cli(toml), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV), _cli(toml)


def _wait_for(predicate, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        assert proc.poll() is None, f"the run ended early: {proc.communicate()[1][-2000:]}"
        time.sleep(0.05)
    raise AssertionError("timed out waiting for the run")


def _folder_bytes(run_dir: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(run_dir.rglob("*")) if p.is_file()}


# --- 10.1: no kill loses paid calls --------------------------------------------------------------------------
def test_sigkill_after_the_first_log_write_before_the_first_checkpoint_resumes(tmp_path):
    run = tmp_path / "run"
    budgets = [48]
    cfg = _run_dict(run, budgets, checkpoint_every=1000)  # the first checkpoint only at the end of the stage
    proc, cmd = _start(tmp_path, cfg)
    _wait_for(lambda: len(_rows(run)) >= 16, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (run / "checkpoint.pt").exists()
    before = _rows(run)
    assert 0 < len(before) < sum(budgets)
    done = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "no checkpoint yet" in done.stderr and f"{len(before)} calls" in done.stderr
    after = _check_log(run, budgets)
    assert after[: len(before)] == before  # what was paid for stayed, as it was


def test_two_stage_run_killed_in_its_second_stage_resumes_with_global_call_numbers(tmp_path):
    run = tmp_path / "run"
    budgets = [24, 24]
    proc, cmd = _start(tmp_path, _run_dict(run, budgets))
    _wait_for(lambda: any(r["stage"] == "2" for r in _rows(run)), proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = _rows(run)
    assert len(before) < sum(budgets)
    done = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "resuming" in done.stderr
    after = _check_log(run, budgets)
    assert after[: len(before)] == before
    with open(run / "summary_2.csv", newline="") as handle:
        steps = [int(r["step"]) for r in csv.DictReader(handle)]
    assert steps == sorted(steps) and len(steps) == len(set(steps)) * 8  # every redone step written once


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_sigint_and_sigterm_stop_at_a_step_boundary_with_one_line(tmp_path, sig):
    run = tmp_path / "run"
    budgets = [40]
    proc, cmd = _start(tmp_path, _run_dict(run, budgets))
    _wait_for(lambda: len(_rows(run)) >= 8, proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig.value
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"stopped by {sig.name} after step")
    assert last.endswith(f"resume with: mara-chem run {cmd[-1]}")
    state = torch.load(run / "checkpoint.pt", weights_only=True)
    with open(run / "summary_1.csv", newline="") as handle:
        assert max(int(r["step"]) for r in csv.DictReader(handle)) == state["global_step"]  # a whole step, checkpointed
    if sig == signal.SIGTERM:
        return
    done = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    _check_log(run, budgets)


@pytest.mark.parametrize("torn", [
    "complete",  # the whole row, only its newline missing: kept with its paid score
    "score",     # cut inside the score: the molecule is scored again under its call number
    "smiles",    # cut inside the SMILES: the call stays spent, with an empty SMILES
])
def test_torn_last_line_keeps_its_call_number(tmp_path, capsys, torn):
    run = tmp_path / "run"
    cfg = _run_dict(run, [16])
    StagedLearning(load_run_config(cfg), quiet=True).run()
    path = run / "oracle_log.csv"
    lines = path.read_text().splitlines(keepends=True)
    last = lines[-1].rstrip("\n")
    fields = last.split(",")
    cut = {"complete": last, "score": ",".join(fields[:4]) + "," + fields[4][:3],
           "smiles": ",".join(fields[:3]) + "," + fields[3][:2]}[torn]
    path.write_text("".join(lines[:-1]) + cut)
    cfg["stage"][0]["max_oracle_calls"] = 24  # resume for more calls (an allowed change)
    StagedLearning(load_run_config(cfg)).run()
    err = capsys.readouterr().err
    assert "torn last line (call 16" in err
    rows = _check_log(run, [24]) if torn != "smiles" else _rows(run)
    assert [int(r["call"]) for r in rows] == list(range(1, 25))
    row16 = rows[15]
    if torn == "smiles":
        assert row16["smiles"] == "" and "torn" in row16["reason"] and row16["score"] == ""
    else:
        assert row16["smiles"] == fields[3] and float(row16["score"]) == pytest.approx(float(fields[4]))


# --- 10.2: multi-stage call numbers ------------------------------------------------------------------------
def test_two_stage_run_numbers_calls_globally_and_charges_each_stage_its_budget(tmp_path):
    run = tmp_path / "run"
    result = StagedLearning(load_run_config(_run_dict(run, [16, 24])), quiet=True).run()
    assert result.oracle_calls == 40 and result.stop_reason == "oracle budget"
    rows = _check_log(run, [16, 24])
    assert {r["stage"] for r in rows[16:]} == {"2"}


# --- 10.3: one writer per run folder -----------------------------------------------------------------------
def test_a_second_run_on_a_busy_folder_refuses_naming_the_holder(tmp_path):
    run = tmp_path / "run"
    proc, cmd = _start(tmp_path, _run_dict(run, [4000], steps=1000))
    try:
        _wait_for(lambda: len(_rows(run)) >= 8, proc)
        second = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=120)
        assert second.returncode == 2
        assert f"in use by another run (pid {proc.pid} on host" in second.stderr and "started" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    calls = [int(r["call"]) for r in _rows(run)]
    assert calls == list(range(1, len(calls) + 1))  # one writer: no interleaving
    third = StagedLearning(load_run_config(_run_dict(run, [24])), overwrite=True, quiet=True)  # the kill freed it
    third.run()
    _check_log(run, [24])


# --- 10.4: resume refuses a changed run --------------------------------------------------------------------
def _changed(cfg: dict, change: str) -> dict:
    new = copy.deepcopy(cfg)
    if change == "strategy":
        new["learning_strategy"] = {"type": "grpo", "rate": 1e-4}
    elif change == "lower budget":
        new["stage"][0]["max_oracle_calls"] = 8
    elif change == "scoring":
        new["stage"][0]["scoring"]["component"][0]["QED"]["endpoint"][0]["weight"] = 2
    elif change == "seed":
        new["seed"] = 6
    elif change == "fewer stages":
        new["stage"] = new["stage"][:1]
    return new


@pytest.mark.parametrize("change, key", [
    ("strategy", "learning_strategy.type ('dap' -> 'grpo')"),
    ("lower budget", "stage.0.max_oracle_calls (16 -> 8)"),
    ("scoring", "stage.0.scoring.component.0.QED.endpoint.0.weight"),
    ("seed", "seed (5 -> 6)"),
    ("fewer stages", "stage.1.max_steps"),
])
def test_resume_refuses_a_changed_run_and_leaves_the_folder_untouched(tmp_path, change, key):
    run = tmp_path / "run"
    cfg = _run_dict(run, [16, 16], steps=2)
    cfg["stage"][1]["max_steps"] = 1
    StagedLearning(load_run_config(cfg), quiet=True).run()
    before = _folder_bytes(run)
    with pytest.raises(RunDirError) as refused:
        StagedLearning(load_run_config(_changed(cfg, change)), quiet=True)
    assert key in str(refused.value)
    assert _folder_bytes(run) == before


def test_resume_accepts_and_records_a_larger_budget_and_more_stages(tmp_path):
    import json

    run = tmp_path / "run"
    cfg = _run_dict(run, [16])
    StagedLearning(load_run_config(cfg), quiet=True).run()
    cfg["stage"][0]["max_oracle_calls"] = 24
    cfg["stage"].append(copy.deepcopy(cfg["stage"][0]) | {"max_oracle_calls": 8})
    result = StagedLearning(load_run_config(cfg), quiet=True).run()
    assert result.oracle_calls == 32
    _check_log(run, [24, 8])
    changes = json.loads((run / "run_changes.json").read_text())
    assert changes[0]["changes"]["stage.0.max_oracle_calls"] == [16, 24]
    assert "stage.1.max_steps" in changes[0]["changes"]
    assert json.loads((run / "run.json").read_text())["stage"][0]["max_oracle_calls"] == 24


def test_a_run_json_from_before_a_new_default_key_still_resumes(tmp_path):
    """Keys a newer mara-chem added (absent from an older run.json) compare as their defaults."""
    import json

    run = tmp_path / "run"
    cfg = _run_dict(run, [16], steps=1)
    StagedLearning(load_run_config(cfg), quiet=True).run()
    recorded = json.loads((run / "run.json").read_text())
    del recorded["parameters"]["checkpoint_every"], recorded["tb_logdir"]
    (run / "run.json").write_text(json.dumps(recorded))
    cfg["stage"][0]["max_steps"] = 2
    StagedLearning(load_run_config(cfg), quiet=True).run()
    changes = json.loads((run / "run_changes.json").read_text())
    assert list(changes[0]["changes"]) == ["stage.0.max_steps"]


def test_non_finite_weights_in_a_checkpoint_are_refused_naming_the_step(tmp_path):
    run = tmp_path / "run"
    cfg = _run_dict(run, [100], steps=2)
    StagedLearning(load_run_config(cfg), quiet=True).run()
    state = torch.load(run / "checkpoint.pt", weights_only=True)
    name = next(iter(state["agent"]))
    state["agent"][name] = torch.full_like(state["agent"][name], float("nan"))
    torch.save(state, run / "checkpoint.pt")
    before = _folder_bytes(run)
    with pytest.raises(RunDirError, match=r"not finite .* after step 2 \(stage 1\)"):
        StagedLearning(load_run_config(cfg), quiet=True)
    assert _folder_bytes(run) == before


# --- 10.7: no code runs from a data file -------------------------------------------------------------------
class _Planted:
    """Unpickling this writes a marker file (what a hostile checkpoint would do)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').write('code ran')",))


def test_a_planted_run_checkpoint_runs_no_code(tmp_path):
    run = tmp_path / "run"
    cfg = _run_dict(run, [100], steps=1)
    StagedLearning(load_run_config(cfg), quiet=True).run()
    marker = tmp_path / "marker"
    state = torch.load(run / "checkpoint.pt", weights_only=True)
    torch.save({**state, "hits": _Planted(marker)}, run / "checkpoint.pt")
    with pytest.raises(RunDirError, match="not a readable mara-chem checkpoint.*would import exec"):
        StagedLearning(load_run_config(cfg), quiet=True)
    assert not marker.exists()


def test_a_planted_training_checkpoint_and_prior_run_no_code(moses_sample, tmp_path):
    from mara_chem.models import PriorFileError, load_prior
    from mara_chem.models.training import TrainConfig, prepare_data, train_prior

    marker = tmp_path / "marker"
    out = tmp_path / "p.prior"
    torch.save({"network": _Planted(marker)}, tmp_path / "p.prior.ckpt")
    cfg = TrainConfig(hyperparameters=dict(hidden_size=16, embedding_dim=8, num_layers=1), max_epochs=1,
                      valid_fraction=0.1, min_token_count=1)
    with pytest.raises(ValueError, match="not a readable training checkpoint"):
        train_prior(prepare_data(moses_sample[:100], cfg, processes=1), cfg, out)
    torch.save({"format": "mara-chem-prior", "state_dict": _Planted(marker)}, out)
    with pytest.raises(PriorFileError):
        load_prior(out)
    assert not marker.exists()


# --- 14.4: the validated strategy owns its optimiser settings ----------------------------------------------
def test_optimizer_groups_come_from_the_validated_strategy(tmp_path):
    cfg = _run_dict(tmp_path / "run", [16], steps=1)
    cfg["learning_strategy"] = {"type": "dap", "rate": 3e-4, "learn_log_z": True, "log_z_lr": 0.05}
    learner = StagedLearning(load_run_config(cfg), quiet=True)
    groups = learner.optimizer.param_groups
    assert [g["lr"] for g in groups] == [3e-4, 0.05] and groups[1]["params"] == [learner.strategy.log_z]
    learner.run()


def test_a_resume_from_the_end_of_stage_1_redoes_stage_2_steps_once_in_its_summary(tmp_path, monkeypatch):
    """A kill early in stage 2, before its first checkpoint: the checkpoint is stage 1's last, and the rows stage 2
    had written to summary_2.csv are dropped before those steps are redone (each step once)."""
    import shutil

    from mara_chem.rl.loop import StagedLearning as Loop

    run = tmp_path / "run"
    cfg = _run_dict(run, [16, 16], batch=8, checkpoint_every=1000)  # checkpoints only at the stages' ends
    saved = tmp_path / "end_of_stage_1.pt"
    original = Loop._checkpoint

    def keep_stage_1(self):
        original(self)
        if self.state.stage_index == 0 and self.state.stage_finished and not saved.exists():
            shutil.copy(run / "checkpoint.pt", saved)

    monkeypatch.setattr(Loop, "_checkpoint", keep_stage_1)
    Loop(load_run_config(cfg), quiet=True).run()
    monkeypatch.setattr(Loop, "_checkpoint", original)
    # as if killed after stage 2's first step, before its checkpoint: stage 1's checkpoint, the log and summary_2.csv
    # as they stood after that step
    shutil.copy(saved, run / "checkpoint.pt")
    for name, keep in (("oracle_log.csv", 1 + 16 + 8), ("summary_2.csv", 1 + 8)):
        lines = (run / name).read_text().splitlines(keepends=True)
        (run / name).write_text("".join(lines[:keep]))
    Loop(load_run_config(cfg), quiet=True).run()
    with open(run / "summary_2.csv", newline="") as handle:
        steps = [int(r["step"]) for r in csv.DictReader(handle)]
    assert steps == sorted(steps) and len(steps) == len(set(steps)) * 8
