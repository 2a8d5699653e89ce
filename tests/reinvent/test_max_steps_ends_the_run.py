"""`max_steps` means what it means in REINVENT 4.8 (`reinvent/runmodes/RL/run_staged_learning.py`: a stage that
takes all its `max_steps` steps terminates all stages), while mara-chem's own `max_oracle_calls` ends only its
stage; a resume after such an end runs only the stages added since, or goes on in a stage whose max_steps it
raised. Real runs of the bundled prior scored by QED, batches of 8."""

from __future__ import annotations

import csv

from mara_chem.cli import main
from mara_chem.models.prior_file import read_metadata
from tests.reinvent.reinvent_toml import qed_stage
from tests.paths import BUNDLED_PRIOR

BUNDLED = BUNDLED_PRIOR


def write_run_file(path: Path, out: Path, stages: list[dict]) -> Path:
    text = f"""run_type = "staged_learning"
device = "cpu"
seed = 3

[parameters]
prior_file = "{BUNDLED}"
agent_file = "{BUNDLED}"
summary_csv_prefix = "{out}/summary"
batch_size = 8
"""
    for n, stage in enumerate(stages, start=1):
        budget = stage.pop("max_oracle_calls", None)
        block = qed_stage(**stage, chkpt=f"{out}/stage{n}.chkpt")
        if budget is not None:
            block = block.replace("[stage.scoring]", f"max_oracle_calls = {budget}\n\n[stage.scoring]", 1)
        text += block
    path.write_text(text)
    return path


def steps_of(summary: Path) -> list[int]:
    with open(summary, newline="") as handle:
        return sorted({int(row["step"]) for row in csv.DictReader(handle)})


def logged_calls(out: Path) -> int:
    with open(out / "oracle_log.csv", newline="") as handle:
        return sum(1 for _ in csv.DictReader(handle))


def stage(max_steps: int, **more) -> dict:
    return {"max_steps": max_steps, "max_score": 1.0, "min_steps": 0, **more}


def test_a_stage_that_reaches_max_steps_ends_the_run(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", str(write_run_file(tmp_path / "run.toml", out, [stage(2), stage(1)]))]) == 0
    assert steps_of(out / "summary_1.csv") == [1, 2]
    assert not (out / "summary_2.csv").exists() and not (out / "stage2.chkpt").exists()
    assert read_metadata(out / "stage1.chkpt")["rl_agent"]["stop_reason"] == "max_steps"
    said = capsys.readouterr()
    assert "stage 1 reached max_steps (2): the run ends here" in said.err and "2 steps" in said.out


def test_a_stage_that_spends_its_oracle_budget_hands_over_to_the_next(tmp_path):
    """mara-chem's own key keeps mara-chem's meaning: the budget ends the stage, the next one starts."""
    out = tmp_path / "run"
    stages = [stage(50, max_oracle_calls=5), stage(1)]
    assert main(["run", str(write_run_file(tmp_path / "run.toml", out, stages)), "-q"]) == 0
    assert read_metadata(out / "stage1.chkpt")["rl_agent"]["stop_reason"] == "oracle budget"
    assert len(steps_of(out / "summary_1.csv")) < 50
    assert len(steps_of(out / "summary_2.csv")) == 1


def test_a_resume_after_max_steps_ended_the_run_runs_only_added_stages(tmp_path):
    out = tmp_path / "run"
    run_file = tmp_path / "run.toml"
    assert main(["run", str(write_run_file(run_file, out, [stage(2), stage(1)])), "-q"]) == 0
    calls = logged_calls(out)
    assert main(["run", str(run_file), "-q"]) == 0  # the same file: the run has ended, nothing more is done
    assert logged_calls(out) == calls and not (out / "summary_2.csv").exists()
    assert main(["run", str(write_run_file(run_file, out, [stage(2), stage(1), stage(1)])), "-q"]) == 0
    assert not (out / "summary_2.csv").exists()  # stage 2 was in the file when max_steps ended the run
    assert steps_of(out / "summary_3.csv") == [3]


def test_a_resume_that_raises_the_ending_stages_max_steps_goes_on_in_that_stage(tmp_path):
    out = tmp_path / "run"
    run_file = tmp_path / "run.toml"
    assert main(["run", str(write_run_file(run_file, out, [stage(2), stage(1)])), "-q"]) == 0
    assert main(["run", str(write_run_file(run_file, out, [stage(3), stage(1)])), "-q"]) == 0
    assert steps_of(out / "summary_1.csv") == [1, 2, 3]
    assert not (out / "summary_2.csv").exists()  # the raised max_steps ended the run again
