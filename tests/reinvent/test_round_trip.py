"""One REINVENT 4.8 run file with a `Mara*` component and a mara-chem strategy, byte for byte the same, run by
REINVENT's own `reinvent` script (with `mara-chem reinvent-hook on`) and by `mara-chem run`, each in its own
folder (the file's paths are relative): the same steps (its first stage's max_steps ends the run in both), the
same strategy with the same resolved options in both logs, and each program samples the other's stage agent
(REINVENT's sampling run mode on mara-chem's `chkpt_file`, `mara-chem prior sample` on REINVENT's)."""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mara_chem.cli import main
from mara_chem.models.prior_file import load_prior, read_metadata
from mara_chem.models.reinvent_prior import save_reinvent_prior
from tests.reinvent.reinvent_toml import ASPIRIN_SIMILARITY, qed_stage
from tests.paths import BUNDLED_PRIOR, REPO

BUNDLED = BUNDLED_PRIOR

RUN_FILE = """run_type = "staged_learning"
device = "cpu"

[parameters]
prior_file = "{prior}"
agent_file = "{prior}"
summary_csv_prefix = "summary"
batch_size = 8

[learning_strategy]
type = "mara"
sigma = 128
tau = 0.6
rate = 0.0001

[[stage]]
max_steps = 3
max_score = 1.0
min_steps = 10
chkpt_file = "stage1.chkpt"
[stage.scoring]
type = "geometric_mean"
""" + ASPIRIN_SIMILARITY
RUN_FILE += qed_stage(max_steps=2, max_score=1.0, min_steps=10, chkpt="stage2.chkpt").replace("{", "{{").replace("}", "}}")

SAMPLING_FILE = """run_type = "sampling"
device = "cpu"

[parameters]
model_file = "{model}"
output_file = "{out}"
num_smiles = 20
unique_molecules = false
randomize_smiles = false
"""

STRATEGY_LINE = re.compile(r"mara-chem learning strategy 'mara' \((.*)\)")


def steps_of(summary: Path) -> list[int]:
    with open(summary, newline="") as handle:
        return sorted({int(row["step"]) for row in csv.DictReader(handle)})


def run_reinvent_script(site_dir: Path, cwd: Path, run_file: Path, env: dict) -> None:
    """REINVENT's own console script, as a REINVENT user runs it with the hook on."""
    script = shutil.which("reinvent", path=str(Path(sys.executable).parent))
    assert script, "REINVENT's console script is not installed next to this interpreter"
    child = ("import runpy, site, sys; site.addsitedir(sys.argv[1]); sys.argv = ['reinvent', *sys.argv[2:]]; "
             f"runpy.run_path({script!r}, run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", child, str(site_dir), "-l", "run.log", str(run_file)],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.slow
def test_a_reinvent_file_with_mara_parts_runs_alike_in_both_and_each_samples_the_others_agent(
        reinvent_rl, tmp_path, torchvision_path, monkeypatch, capsys):
    from mara_chem.reinvent import main as reinvent_main

    prior = save_reinvent_prior(load_prior(BUNDLED), tmp_path / "prior.prior")
    run_file = tmp_path / "run.toml"
    run_file.write_text(RUN_FILE.format(prior=prior))
    reinvent_dir, mara_dir, site_dir = tmp_path / "reinvent", tmp_path / "mara", tmp_path / "site"
    for folder in (reinvent_dir, mara_dir, site_dir):
        folder.mkdir()

    assert main(["reinvent-hook", "on", "--site-dir", str(site_dir)]) == 0
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*torchvision_path, str(REPO)]))
    run_reinvent_script(site_dir, reinvent_dir, run_file, env)
    monkeypatch.chdir(mara_dir)
    capsys.readouterr()
    assert main(["run", str(run_file)]) == 0
    mara_said = capsys.readouterr().err

    # the same steps: stage 1's max_steps ends the run in both, stage 2 never starts
    for folder in (reinvent_dir, mara_dir):
        assert steps_of(folder / "summary_1.csv") == [1, 2, 3]
        assert not (folder / "summary_2.csv").exists() and not (folder / "stage2.chkpt").exists()
    # the same strategy, every resolved option in the same words
    reinvent_options = STRATEGY_LINE.findall((reinvent_dir / "run.log").read_text())
    mara_options = STRATEGY_LINE.findall(mara_said)
    assert len(reinvent_options) == 1 and mara_options == reinvent_options
    assert "tau = 0.6" in mara_options[0] and "sigma = 128.0" in mara_options[0]

    # REINVENT samples mara-chem's stage agent with its own sampling run mode (and checks its hash)
    sampling = tmp_path / "sampling.toml"
    sampling.write_text(SAMPLING_FILE.format(model=mara_dir / "stage1.chkpt", out=tmp_path / "sampled.csv"))
    assert reinvent_main([str(sampling), "-l", str(tmp_path / "sampling.log")]) == 0
    with open(tmp_path / "sampled.csv", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 20
    assert "has valid hash" in (tmp_path / "sampling.log").read_text()
    assert read_metadata(mara_dir / "stage1.chkpt")["rl_agent"]["stage_steps"] == 3

    # mara-chem samples REINVENT's stage agent (its RL checkpoint, diversity filter and all)
    capsys.readouterr()
    out = tmp_path / "mara_sampled.smi"
    assert main(["prior", "sample", str(reinvent_dir / "stage1.chkpt"), "-n", "20", "--out", str(out),
                 "--device", "cpu", "--seed", "1"]) == 0
    with open(out, newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 20
