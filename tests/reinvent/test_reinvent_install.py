"""The README's REINVENT installation, run line by line in a fresh venv (slow: it downloads REINVENT's torch).

The block is the one after the ``<!-- reinvent-install -->`` marker in README.md. It runs in bash, as the README
says, from a folder holding REINVENT's release archive (a link to ``../shared/vendor/REINVENT4-4.8.tar.gz``);
the one substitution is ``/path/to/mara-chem``, which becomes this checkout. Then the new environment must run
REINVENT's own ``reinvent`` with ``type = "mara"`` (the hook is on) and score with ``MaraGuacamol``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from tests.reinvent.reinvent_toml import MARA_GUACAMOL_STAGE
from tests.paths import REPO

ARCHIVE = REPO.parent / "shared" / "vendor" / "REINVENT4-4.8.tar.gz"
MARKER = "<!-- reinvent-install -->"


def install_lines() -> list[str]:
    """The commands of the README's REINVENT installation block, in order."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert MARKER in text, "README.md lost the REINVENT installation marker"
    block = re.match(r"\s*```bash\n(.*?)\n```", text.split(MARKER, 1)[1], re.S)
    assert block, f"no ```bash block right after {MARKER}"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_install_block_holds_the_documented_lines():
    lines = install_lines()
    assert any("importlib.metadata" in line and "m.version('torch')" in line for line in lines)
    assert not any("install.py" in line.split("#")[0] or "torch.__version__" in line for line in lines)
    assert any(line.startswith("mara-chem reinvent-hook on") for line in lines)


RUN_FILE = """
run_type = "staged_learning"
device = "cpu"
seed = 1
[parameters]
prior_file = "{prior}"
agent_file = "{prior}"
summary_csv_prefix = "{out}/summary"
batch_size = 8
[learning_strategy]
type = "mara"
tau = 0.6""" + MARA_GUACAMOL_STAGE


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_readme_reinvent_installation_runs_line_by_line_in_a_fresh_venv(tmp_path):
    if not ARCHIVE.is_file():
        pytest.skip(f"REINVENT's release archive is not at {ARCHIVE}")
    if shutil.which("python3.11") is None or shutil.which("bash") is None:
        pytest.skip("the README's lines need bash and python3.11 on PATH")
    (tmp_path / ARCHIVE.name).symlink_to(ARCHIVE)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PYTHONNOUSERSITE"] = "1"  # a fresh venv: nothing from the user site-packages
    venv = tmp_path / "reinvent4"
    for number, line in enumerate(install_lines(), start=1):
        command = line.replace("/path/to/mara-chem", str(REPO))
        activate = f". {venv}/bin/activate && " if number > 1 else ""  # the block's shell keeps it active
        done = subprocess.run(["bash", "-c", f"set -euo pipefail; {activate}{command}"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=3000)
        assert done.returncode == 0, f"README line {number} failed: {line}\n{done.stderr[-3000:]}"
    python = venv / "bin" / "python"
    torch_version = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('torch'))"],
                                   capture_output=True, text=True, check=True).stdout.strip()
    assert torch_version.startswith("2.12.0")  # REINVENT 4.8.24's pin, held through mara-chem's install
    status = subprocess.run([venv / "bin" / "mara-chem", "reinvent-hook", "status"], capture_output=True, text=True)
    assert status.stdout.startswith("on:")
    prior = tmp_path / "bundled.reinvent.prior"
    subprocess.run([venv / "bin" / "mara-chem", "prior", "convert", "moses-gru-2x256", "--out", str(prior),
                    "--to", "reinvent"], check=True, capture_output=True, cwd=tmp_path, env=env)
    out = tmp_path / "run"
    out.mkdir()
    run_file = out / "run.toml"
    run_file.write_text(RUN_FILE.format(prior=prior, out=out))
    done = subprocess.run([venv / "bin" / "reinvent", "-l", str(out / "run.log"), str(run_file)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    log = (out / "run.log").read_text()
    assert "Using mara-chem learning strategy 'mara'" in log and "mara-chem mara stage 1 step 2" in log
    rows = (out / "summary_1.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 * 8 and "celecoxib" in rows[0]
