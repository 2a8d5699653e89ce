"""A run whose agent diverged stops with one line before its checkpoint takes the non-finite weights, and
`mara-chem run --restart` with the repaired run file starts again from step 0 with the oracle log kept: every
paid call is reused, none paid twice, and the budget counts them. Real runs of the bundled prior on QED; the
divergence is real too: a prior file with one infinite output bias gives NaN targets, so the first update
leaves the agent NaN."""

from __future__ import annotations

import csv
import json

import torch

from mara_chem.cli import main
from mara_chem.models.prior_file import load_prior, save_prior
from tests.paths import BUNDLED_PRIOR

BUNDLED = BUNDLED_PRIOR
BUDGET = 40


def run_file(path: Path, out: Path, prior: Path, sigma: int = 128) -> Path:
    path.write_text(f"""run_type = "staged_learning"
device = "cpu"
seed = 2

[parameters]
prior_file = "{prior}"
agent_file = "{BUNDLED}"
summary_csv_prefix = "{out}/summary"
batch_size = 8

[learning_strategy]
type = "dap"
sigma = {sigma}

[[stage]]
max_steps = 20
max_oracle_calls = {BUDGET}
[stage.scoring]
type = "geometric_mean"
[[stage.scoring.component]]
[stage.scoring.component.QED]
[[stage.scoring.component.QED.endpoint]]
name = "QED"
""")
    return path


def diverging_prior(folder: Path) -> Path:
    """The bundled prior with one infinite output bias: its NaN targets diverge the first update that uses it."""
    broken = load_prior(BUNDLED)
    with torch.no_grad():
        broken.network.output.bias[5] = float("inf")
    return save_prior(broken, folder / "broken.prior")


def log_rows(out: Path) -> list[dict[str, str]]:
    with open(out / "oracle_log.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def test_a_diverged_run_restarted_with_a_repaired_file_reuses_every_paid_call(tmp_path, capsys):
    broken_prior = diverging_prior(tmp_path)
    out = tmp_path / "run"
    toml = run_file(tmp_path / "run.toml", out, broken_prior)

    assert main(["run", str(toml), "-q"]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not finite after the update of step 1" in err and "--restart" in err
    paid = log_rows(out)
    assert 0 < len(paid) <= 8 and not (out / "checkpoint.pt").exists()  # no NaN checkpoint written

    # the plain resume is refused (another prior file); --restart with the repaired file is not
    run_file(toml, out, BUNDLED, sigma=64)
    assert main(["run", str(toml), "-q"]) == 2
    assert "--restart" in capsys.readouterr().err
    assert main(["run", str(toml), "-q", "--restart"]) == 0
    rows = log_rows(out)
    assert rows[: len(paid)] == paid  # the paid calls stay as they were
    assert [int(r["call"]) for r in rows] == list(range(1, BUDGET + 1))  # the budget counts them: 40 in all
    assert len({r["smiles"] for r in rows}) == BUDGET  # none paid twice
    changes = json.loads((out / "run_changes.json").read_text())[-1]["changes"]
    assert {"restart", "learning_strategy.sigma", "parameters.prior_file"} <= set(changes)


def test_restart_refuses_another_objective_for_the_logged_calls(tmp_path, capsys):
    out = tmp_path / "run"
    toml = run_file(tmp_path / "run.toml", out, BUNDLED)
    text = toml.read_text().replace("max_steps = 20", "max_steps = 1")
    toml.write_text(text)
    assert main(["run", str(toml), "-q"]) == 0
    before = log_rows(out)
    toml.write_text(text.replace('name = "QED"', 'name = "QED"\ntransform = { type = "step", low = 0.5, high = 1 }'))
    assert main(["run", str(toml), "-q", "--restart"]) == 2
    err = capsys.readouterr().err
    assert "another objective" in err and "stage.0.scoring" in err and len(err.strip().splitlines()) == 1
    assert log_rows(out) == before


def test_an_off_policy_replay_that_diverges_the_agent_stops_the_run_before_its_checkpoint(tmp_path, capsys):
    """The genetic search's off-policy replay is an update too: with no update on the batch (as Genetic GFN),
    the NaN comes from the replay alone, and the run stops the same way."""
    broken_prior = diverging_prior(tmp_path)
    out = tmp_path / "run"
    toml = run_file(tmp_path / "run.toml", out, broken_prior)
    toml.write_text(toml.read_text() + "\n[genetic]\ngenerations = 1\noffspring = 4\nreplay_loops = 1\n"
                    "replay_sample_size = 8\nkl_coefficient = 0.01\non_policy_update = false\n")

    assert main(["run", str(toml), "-q"]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not finite after the update of step 1" in err
    assert not (out / "checkpoint.pt").exists() and 0 < len(log_rows(out)) <= 12
