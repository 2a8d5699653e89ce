"""The example third-party plugin (examples/mara_chem_example_plugin), pip-installed into a temporary folder
and used from a separate interpreter: it must pass its families' contract suites (its strategy fed the same
batch by mara-chem's loop and by REINVENT's) and run a real `mara-chem run`.

A separate interpreter keeps the plugin out of this test process's registries (other tests pin the built-in names).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO

PLUGIN = REPO / "examples" / "mara_chem_example_plugin"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The plugin's own pyproject built and installed with pip (no index, no dependencies) into a folder."""
    work = tmp_path_factory.mktemp("plugin")
    source = shutil.copytree(PLUGIN, work / "src", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    target = work / "site"
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
           "--target", str(target), str(source)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f"pip could not install the example plugin: {done.stderr.strip().splitlines()[-1:]}")
    return target


def run_with_plugin(target: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(target), str(REPO)]))
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def test_plugin_passes_the_contract_suites_and_works_in_a_run_file(installed):
    done = run_with_plugin(installed, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "", "-k", "example",
                           "tests/contracts", "examples/mara_chem_example_plugin/tests")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    # 2 x 3 component + 3 transform + 3 filter + 4 strategy contract tests, 2 strategy-caller tests (the loop and
    # REINVENT's batch, whose REINVENT side needs REINVENT: passed or skipped; augmented memory as a third caller),
    # 6 usage tests (one a real `mara-chem run` with the plugin strategy)
    assert re.search(r"\b2[34] passed\b", done.stdout), done.stdout[-1000:]
    assert "failed" not in done.stdout
