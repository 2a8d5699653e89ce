"""`mara-chem run` on a REINVENT 4.8 run file: one test per row of the table "Running REINVENT files in
mara-chem" in docs/run-files.md. Where REINVENT 4.8 is installed, the same file also runs in REINVENT (through `mara-chem
reinvent`, REINVENT's own loop and its own DAP) and the row's claim about REINVENT is checked there too."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from mara_chem.cli import main
from mara_chem.models.prior_file import load_prior, read_metadata
from tests.reinvent.reinvent_toml import qed_stage
from tests.paths import REPO

BUNDLED = REPO / "priors" / "moses-gru-2x256.prior"


def run_file(path: Path, prior: Path, out: Path, stages: list[dict]) -> Path:
    text = f"""run_type = "staged_learning"
device = "cpu"
seed = 1

[parameters]
prior_file = "{prior}"
agent_file = "{prior}"
summary_csv_prefix = "{out}/summary"
batch_size = 8

[learning_strategy]
type = "dap"
sigma = 128
rate = 0.0001
"""
    text += "".join(qed_stage(**stage, chkpt=f"{out}/stage{n}.chkpt") for n, stage in enumerate(stages, start=1))
    path.write_text(text)
    return path


def steps_of(summary: Path) -> list[int]:
    with open(summary, newline="") as handle:
        return sorted({int(row["step"]) for row in csv.DictReader(handle)})


@pytest.fixture(scope="module")
def reinvent_prior(tmp_path_factory) -> Path:
    from mara_chem.models.reinvent_prior import save_reinvent_prior

    return save_reinvent_prior(load_prior(BUNDLED), tmp_path_factory.mktemp("prior") / "bundled.prior")


def run_in_reinvent(request, tmp_path: Path, prior: Path, stages: list[dict]) -> Path:
    request.getfixturevalue("reinvent_rl")  # skips without REINVENT
    from mara_chem.reinvent import main as reinvent_main

    out = tmp_path / "reinvent"
    out.mkdir()
    assert reinvent_main([str(run_file(tmp_path / "reinvent.toml", prior, out, stages)), "--log-level", "error"]) == 0
    return out


def test_max_score_stops_a_stage_after_min_steps_as_reinvent_counts(tmp_path, reinvent_prior, request):
    """Row "min_steps": a reachable max_score ends the stage after min_steps + 2 steps, in both."""
    stages = [{"max_steps": 10, "max_score": 0.0, "min_steps": 1}]
    out = tmp_path / "mara"
    assert main(["run", str(run_file(tmp_path / "run.toml", BUNDLED, out, stages)), "-q"]) == 0
    assert steps_of(out / "summary_1.csv") == [1, 2, 3]
    assert read_metadata(out / "stage1.chkpt")["rl_agent"]["stop_reason"] == "max_score"
    assert steps_of(run_in_reinvent(request, tmp_path, reinvent_prior, stages) / "summary_1.csv") == [1, 2, 3]


def test_max_steps_ends_the_run_in_both_and_mara_chem_counts_steps_across_stages(tmp_path, reinvent_prior, request):
    """Rows "max_steps" and "step column": a stage that reaches max_steps ends the whole run in both; after a
    stage ended by max_score the next one starts, and mara-chem counts its steps on from the first stage's."""
    stages = [{"max_steps": 10, "max_score": 0.0, "min_steps": 0}, {"max_steps": 1, "max_score": 1.0, "min_steps": 0},
              {"max_steps": 1, "max_score": 1.0, "min_steps": 0}]
    out = tmp_path / "mara"
    assert main(["run", str(run_file(tmp_path / "run.toml", BUNDLED, out, stages)), "-q"]) == 0
    assert steps_of(out / "summary_1.csv") == [1, 2] and steps_of(out / "summary_2.csv") == [3]
    assert not (out / "summary_3.csv").exists()
    reinvent_out = run_in_reinvent(request, tmp_path, reinvent_prior, stages)
    assert steps_of(reinvent_out / "summary_1.csv") == [1, 2] and steps_of(reinvent_out / "summary_2.csv") == [1]
    assert not (reinvent_out / "summary_3.csv").exists()


def test_stage_agents_are_reinvent_model_files_with_the_stages_record(tmp_path, request):
    """Row "chkpt_file": the stage's agent is a REINVENT model file (hash ID valid) that REINVENT loads as it
    is; mara-chem reads it back with the stage's record."""
    out = tmp_path / "mara"
    stages = [{"max_steps": 1, "max_score": 1.0, "min_steps": 0}]
    assert main(["run", str(run_file(tmp_path / "run.toml", BUNDLED, out, stages)), "-q"]) == 0
    assert read_metadata(out / "stage1.chkpt")["rl_agent"]["stage"] == 1
    request.getfixturevalue("reinvent_rl")
    import torch
    from reinvent.models import check_valid_hash
    from reinvent.runmodes.create_adapter import create_adapter

    adapter, save_dict, model_type = create_adapter(str(out / "stage1.chkpt"), "inference", torch.device("cpu"))
    assert model_type == "Reinvent" and check_valid_hash(torch.load(out / "stage1.chkpt", weights_only=False))
