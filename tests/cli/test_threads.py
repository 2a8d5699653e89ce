"""``mara-chem --threads``: torch's CPU threads for the command and the workers it starts (default 1, or the user's
OMP_NUM_THREADS). Each case runs ``main`` in a fresh interpreter, where torch is imported after the option is read,
as it is for a user's command."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.paths import REPO

PROBE = ("import os, sys\n"
         "from mara_chem.cli import main\n"
         "code = main(sys.argv[1:])\n"
         "import torch\n"
         "print('THREADS', torch.get_num_threads(), os.environ.get('OMP_NUM_THREADS'), code)\n")


def _threads(*argv: str, omp: str | None = None) -> tuple[int, str | None, int]:
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    if omp is not None:
        env["OMP_NUM_THREADS"] = omp
    out = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=REPO, env=env, capture_output=True, text=True,
                         check=True).stdout
    _, threads, variable, code = out.strip().splitlines()[-1].split()
    return int(threads), variable, int(code)


def test_a_command_runs_on_one_thread_by_default_and_its_workers_inherit_it():
    assert _threads("plugins") == (1, "1", 0)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="torch caps an OMP_NUM_THREADS above the core count")
def test_the_users_omp_num_threads_is_kept():
    assert _threads("plugins", omp="2") == (2, "2", 0)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="torch caps an OMP_NUM_THREADS above the core count")
def test_threads_sets_torch_and_the_workers_environment_over_omp_num_threads():
    assert _threads("--threads", "2", "plugins", omp="1") == (2, "2", 0)


@pytest.mark.parametrize("value, message", [("0", "0 must be at least 1"), ("two", "'two' is not a whole number")])
def test_a_thread_count_below_one_or_not_a_number_is_one_line(value, message, capsys):
    from mara_chem.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["--threads", value, "plugins"])
    assert stop.value.code == 2
    assert f"argument --threads: {message}" in capsys.readouterr().err


def test_a_caller_that_imported_torch_first_gets_the_count_too(monkeypatch):
    import torch

    from mara_chem.cli import limit_threads

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    before = torch.get_num_threads()
    try:
        limit_threads(2)
        assert torch.get_num_threads() == 2 and os.environ["OMP_NUM_THREADS"] == "2"
    finally:
        torch.set_num_threads(before)
