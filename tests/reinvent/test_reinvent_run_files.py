"""REINVENT 4.8's own example run files validate and run in mara-chem with only their paths changed.

The files are unmodified copies in tests/data/reinvent4.8 (Apache-2.0). What is changed here: the prior
and agent path (REINVENT's ``priors/reinvent.prior`` -> mara-chem's bundled prior), the stage-2 scoring
file path, the run folder, and ``device = "cuda:0"`` -> ``"cpu"`` on a machine without CUDA. The run test
also shortens ``max_steps`` so it takes seconds.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
import torch

from mara_chem.cli import main
from mara_chem.models.prior_file import read_metadata
from mara_chem.rl.config import load_run_config
from tests.paths import BUNDLED_PRIOR, TEST_DATA

DATA = TEST_DATA / "reinvent4.8"
PRIOR = BUNDLED_PRIOR


def _adapt(tmp: Path, max_steps: int | None = None) -> Path:
    """The example with only paths changed (and the device where this machine has no CUDA)."""
    for name in ("stage1_scoring.toml", "stage2_scoring.toml"):
        shutil.copy(DATA / name, tmp / name)
    text = (DATA / "staged_learning.toml").read_text()
    edits = {
        'prior_file = "priors/reinvent.prior"': f'prior_file = "{PRIOR}"',
        'agent_file = "priors/reinvent.prior"': f'agent_file = "{PRIOR}"',
        'summary_csv_prefix = "staged_learning"': f'summary_csv_prefix = "{tmp}/run/staged_learning"',
        'filename = "stage2_scoring.toml"': f'filename = "{tmp}/stage2_scoring.toml"',
        'tb_logdir = "tb_logs"': f'tb_logdir = "{tmp}/run/tb_logs"',
        'json_out_config = "_staged_learning.json"': f'json_out_config = "{tmp}/run/_staged_learning.json"',
    }
    if not torch.cuda.is_available():
        edits['device = "cuda:0"'] = 'device = "cpu"'
    for old, new in edits.items():
        assert old in text, old
        text = text.replace(old, new)
    if max_steps is not None:
        text = text.replace("max_steps = 100", f"max_steps = {max_steps}")
    path = tmp / "staged_learning.toml"
    path.write_text(text)
    return path


def test_reinvent_example_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _adapt(tmp_path)
    assert main(["validate", str(path)]) == 0, capsys.readouterr().err
    cfg = load_run_config(path)
    # REINVENT's spellings resolve: custom_alerts -> CustomAlerts, the flat filter table keeps all four keys
    assert list(cfg.stage[0].scoring.component[0]) == ["custom_alerts"]
    assert cfg.diversity_filter["minsimilarity"] == 0.4 and cfg.diversity_filter["penalty_multiplier"] == 0.5
    assert cfg.parameters.unique_sequences is True and cfg.stage[1].scoring.component[0].keys() == {"QED"}


def test_reinvent_stage_scoring_equals_reinvent_formula(tmp_path: Path) -> None:
    """Stage 1's double_sigmoid on molecular weight gives REINVENT 4's value (coef_si left, coef_se right)."""
    from mara_chem.scoring.scorer import Scorer

    cfg = load_run_config(_adapt(tmp_path))
    scorer = Scorer(cfg.stage[0].scoring)
    result = scorer(["CCO", "CC(=O)Nc1ccc(O)cc1", "C#CCO"])
    mw = result.scores["Molecular weight"]
    # REINVENT 4: x < (200 + 500) / 2 -> sigmoid(k = 20 / 500, base 10) at x - 200
    raw = result.raw["Molecular weight"]
    expected = 1 / (1 + 10 ** (-(20 / 500) * (raw - 200)))
    assert mw == pytest.approx(expected, rel=1e-9)
    assert result.scores["Unwanted SMARTS"].tolist() == [1.0, 1.0, 0.0]  # C#C is an alert
    assert result.total[2] == 0.0
    scorer.close()


def test_reinvent_example_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = _adapt(tmp_path, max_steps=2)
    monkeypatch.chdir(tmp_path)  # chkpt_file = "test1.chkpt" is relative, as in REINVENT
    assert main(["run", str(path), "-q"]) == 0, capsys.readouterr().err
    run = tmp_path / "run"
    with (run / "oracle_log.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert rows and {"Unwanted SMARTS", "Molecular weight", "QED Score"} <= set(rows[0])
    # stage 1 reaches its (shortened) max_steps, which ends the run, as in REINVENT: stage 2 never starts
    assert (run / "staged_learning_1.csv").exists() and not (run / "staged_learning_2.csv").exists()
    written = json.loads((run / "_staged_learning.json").read_text())  # json_out_config is honoured
    assert written["parameters"]["batch_size"] == 64 and written["stage"][0]["chkpt_file"] == "test1.chkpt"
    assert read_metadata(tmp_path / "test1.chkpt")["rl_agent"]["stage"] == 1  # the agent, where REINVENT writes it
    assert not (tmp_path / "test2.chkpt").exists()


@pytest.mark.slow
def test_reinvent_example_runs_unshortened(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The example exactly as REINVENT ships it (100 steps per stage, batch 64), only paths changed."""
    monkeypatch.chdir(tmp_path)  # the agents go to the relative chkpt_file paths
    assert main(["run", str(_adapt(tmp_path)), "-q"]) == 0, capsys.readouterr().err
    # stage 2 runs when stage 1 ended on its max_score (0.6 after 27 steps at least), not on max_steps (REINVENT's rule)
    ended_on_score = read_metadata(tmp_path / "test1.chkpt")["rl_agent"]["stop_reason"] == "max_score"
    assert (tmp_path / "run" / "staged_learning_2.csv").exists() == ended_on_score


def test_unique_sequences_keeps_first_of_each_sequence() -> None:
    from mara_chem.rl.step_samples import first_occurrences as _first_occurrences

    assert _first_occurrences(["CCO", "OCC", "CCO", "C1CC", "C1CC", "CCO"]).tolist() == [
        True, True, False, True, False, False]  # raw strings: OCC is another token sequence
