"""The lab's test fixtures: its grid runner, the bundled prior, REINVENT 4.8 where it is installed, and a way to
run a benchmark script as a user runs it (a child process using this process's mara_chem and benchlab)."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
import torch

from benchlab.paths import BENCHMARKS, REPO, child_pythonpath, read_smiles

torch.set_num_threads(1)

@pytest.fixture(scope="session")
def runner() -> types.SimpleNamespace:
    """The grid runner's command line and the parts the tests call (benchlab's public modules)."""
    import benchlab.cli
    import benchlab.jobs
    import benchlab.stats
    import benchlab.tasks
    import benchlab.variants

    return types.SimpleNamespace(main=benchlab.cli.main, available_tasks=benchlab.tasks.available_tasks,
                                 load_task=benchlab.tasks.load_task, run_config=benchlab.jobs.run_config,
                                 Job=benchlab.jobs.Job, variants=benchlab.variants.load_variants(),
                                 welch_p=benchlab.stats.welch_p, jobs=benchlab.jobs)


@pytest.fixture(scope="session")
def moses_sample() -> list[str]:
    """500 SMILES from the MOSES test split (committed with the package's tests)."""
    return read_smiles()


@pytest.fixture(scope="session")
def reinvent_rl():
    """REINVENT 4.8's RL run mode, or a skip naming why it is not importable (scripts/setup_venv.sh test installs
    it); torchvision's one function REINVENT imports is stood in by mara-chem where torchvision is absent."""
    from mara_chem.reinvent.compat import stub_torchvision

    stub_torchvision()
    try:
        import reinvent.runmodes.RL as rl
    except ImportError as exc:
        pytest.skip(f"REINVENT 4 is not importable ({exc}); scripts/setup_venv.sh installs it from "
                    "../shared/vendor/REINVENT4-4.8.tar.gz when that archive is present")
    return rl


def child_env() -> dict[str, str]:
    """This process's environment with the folders its mara_chem and benchlab come from first on PYTHONPATH,
    so a child runs the code under test (an installed copy elsewhere would otherwise win)."""
    return {**os.environ, "PYTHONPATH": child_pythonpath(), "OMP_NUM_THREADS": "1"}


def _run_script(script: str, *args: str, timeout: float = 600, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python benchmarks/<script> ARGS`` as a user runs it; fails the test with the script's output tail
    unless it exits 0."""
    proc = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True,
                          timeout=timeout, env=child_env(), cwd=cwd or REPO)
    assert proc.returncode == 0, f"{script} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="session")
def run_script():
    """:func:`_run_script`: a benchmark script run in a child process, its exit status checked."""
    return _run_script
