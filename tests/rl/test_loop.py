"""End-to-end checks of the staged-learning loop on the bundled prior with cheap RDKit scoring."""

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mara_chem.rl.config import load_run_config
from mara_chem.rl.loop import RunDirError, StagedLearning
from tests.paths import REPO

PRIOR = REPO / "priors" / "moses-gru-2x256.prior"


def _config(run_dir: Path, strategy: dict, budget: int = 120, steps: int = 50, batch: int = 16) -> dict:
    return {
        "run_type": "staged_learning", "device": "cpu", "seed": 3,
        "parameters": {"prior_file": str(PRIOR), "agent_file": str(PRIOR), "summary_csv_prefix": str(run_dir / "summary"),
                       "batch_size": batch, "hit_threshold": 0.7},
        "learning_strategy": strategy,
        "diversity_filter": {"type": "IdenticalMurckoScaffold", "bucket_size": 5},
        "inception": {"memory_size": 20, "sample_size": 4},
        "stage": [{"max_steps": steps, "max_oracle_calls": budget, "min_steps": 1000, "scoring": {
            "type": "geometric_mean", "component": [
                {"QED": {"endpoint": [{"name": "QED", "weight": 1}]}},
                {"MolecularWeight": {"endpoint": [{"name": "MW", "weight": 1, "transform": {
                    "type": "double_sigmoid", "low": 200, "high": 450, "coef_div": 450, "coef_si": 20, "coef_se": 20}}]}},
            ]}}],
    }


def _log_calls(run_dir: Path) -> list[int]:
    with open(run_dir / "oracle_log.csv", newline="") as handle:
        return [int(row["call"]) for row in csv.DictReader(handle)]


@pytest.mark.parametrize("strategy", [
    {"type": "dap", "sigma": 128, "rate": 1e-4},
    {"type": "mara", "sigma": 128, "rate": 1e-4, "tau_quantile": 0.8},
    {"type": "grpo", "rate": 1e-4, "kl": "reverse"},
    {"type": "ips_grpo", "rate": 1e-4},
])
def test_each_strategy_runs_within_budget(tmp_path, strategy):
    cfg = load_run_config(_config(tmp_path / "run", strategy, budget=40, steps=4))
    result = StagedLearning(cfg, quiet=True).run()
    calls = _log_calls(tmp_path / "run")
    assert calls == list(range(1, len(calls) + 1)) and 0 < len(calls) <= 40
    assert result.oracle_calls == len(calls)
    with open(tmp_path / "run" / "summary_1.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 16 * result.steps and {"Score", "SMILES_state", "Scaffold", "QED", "MW (raw)"} <= set(rows[0])


def test_forward_kl_variant_runs(tmp_path):
    cfg = load_run_config(_config(tmp_path / "run", {"type": "reinforce", "rate": 1e-4, "kl": "forward"}, budget=20, steps=2))
    assert StagedLearning(cfg, quiet=True).run().steps >= 1


def test_budget_is_never_exceeded_and_run_stops(tmp_path):
    cfg = load_run_config(_config(tmp_path / "run", {"type": "dap", "sigma": 128, "rate": 1e-4}, budget=20, steps=100))
    result = StagedLearning(cfg, quiet=True).run()
    assert result.stop_reason == "oracle budget" and result.oracle_calls == 20


def test_log_of_other_endpoints_refuses(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "oracle_log.csv").write_text("call\n")
    with pytest.raises(RunDirError, match="other scoring endpoints.*--overwrite"):
        StagedLearning(load_run_config(_config(run, {"type": "dap"})), quiet=True)
    assert (run / "oracle_log.csv").read_text() == "call\n" and sorted(p.name for p in run.iterdir()) == ["oracle_log.csv"]


def test_kill_and_resume_loses_and_double_charges_nothing(tmp_path):
    """SIGKILL a real `mara-chem run` mid-way, resume it, and check the oracle log is gap-free and in budget."""
    import tomllib  # noqa: F401  (the run file below is TOML, written by hand)

    run = tmp_path / "run"
    budget = 150
    cfg = _config(run, {"type": "mara", "sigma": 128, "rate": 1e-4, "tau": 0.6}, budget=budget, steps=200)
    toml = tmp_path / "run.toml"
    toml.write_text(_to_toml(cfg))
    cmd = [sys.executable, "-m", "mara_chem.cli", "run", str(toml)]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.time() + 120
    while time.time() < deadline:
        if (run / "checkpoint.pt").exists() and (run / "oracle_log.csv").exists() and len(_log_calls(run)) >= 40:
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = _log_calls(run)
    assert 0 < len(before) < budget, "the run should have been killed mid-way"
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "resuming" in done.stderr
    after = _log_calls(run)
    assert after[: len(before)] == before  # nothing paid for was lost
    assert after == list(range(1, len(after) + 1))  # no gap, no double entry
    assert len(after) == budget  # ran on to the budget and not past it
    with open(run / "oracle_log.csv", newline="") as handle:
        smiles = [row["smiles"] for row in csv.DictReader(handle)]
    assert len(smiles) == len(set(smiles))  # no molecule charged twice


def _to_toml(cfg: dict) -> str:
    """Enough TOML for this test's run dict (nested tables and arrays of tables)."""
    import json

    lines: list[str] = []

    def value(v):
        return json.dumps(v) if not isinstance(v, bool) else ("true" if v else "false")

    def table(prefix: str, d: dict) -> None:
        simple = {k: v for k, v in d.items() if not isinstance(v, (dict, list)) or (isinstance(v, list) and not any(isinstance(x, dict) for x in v))}
        for k, v in simple.items():
            lines.append(f"{k} = {value(v)}")
        for k, v in d.items():
            if isinstance(v, dict):
                lines.append(f"[{prefix}{k}]")
                table(f"{prefix}{k}.", v)
            elif isinstance(v, list) and any(isinstance(x, dict) for x in v):
                for item in v:
                    lines.append(f"[[{prefix}{k}]]")
                    table(f"{prefix}{k}.", item)

    table("", cfg)
    return "\n".join(lines) + "\n"


def test_resume_refuses_a_changed_prior(tmp_path):
    """Resuming against a different prior file would silently mix two models: refuse it."""
    import shutil

    import torch

    from mara_chem.models import load_prior, save_prior

    prior = tmp_path / "prior.prior"
    shutil.copy(PRIOR, prior)
    cfg = _config(tmp_path / "run", {"type": "dap", "sigma": 128, "rate": 1e-4}, budget=16, steps=1)
    cfg["parameters"]["prior_file"] = cfg["parameters"]["agent_file"] = str(prior)
    StagedLearning(load_run_config(cfg), quiet=True).run()
    model = load_prior(prior)
    with torch.no_grad():
        next(model.network.parameters()).add_(0.01)
    save_prior(model, prior)
    with pytest.raises(RunDirError, match="changed"):
        StagedLearning(load_run_config(cfg), quiet=True)


def test_summary_csv_is_written_as_reinvent_writes_it(tmp_path):
    """REINVENT 4.8's column order (``name, name (raw)`` interleaved; Scaffold only with a filter), fixed
    decimals, invalid rows at zero (the layout was read off REINVENT's own summary of the same scoring)."""
    import re

    config = _config(tmp_path / "run", {"type": "dap", "sigma": 128}, budget=100, steps=2, batch=32)
    del config["diversity_filter"]
    StagedLearning(load_run_config(config), quiet=True).run()
    with open(tmp_path / "run" / "summary_1.csv", newline="") as handle:
        header, *rows = list(csv.reader(handle))
    assert header == ["Agent", "Prior", "Target", "Score", "SMILES", "SMILES_state", "QED", "QED (raw)", "MW", "MW (raw)", "step"]
    four, seven = re.compile(r"-?\d+\.\d{4}$"), re.compile(r"-?\d+\.\d{7}$")
    for row in rows:
        assert all(four.match(row[i]) for i in (0, 1, 2, 7, 9)) and all(seven.match(row[i]) for i in (3, 6, 8))
        if row[5] == "0":
            assert float(row[3]) == float(row[6]) == float(row[7]) == 0.0
    assert any(row[5] == "0" for row in rows)  # the bundled prior's 4-5 % invalid rows are there
