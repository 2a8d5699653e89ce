"""Smoke test of benchmarks/genetic_cost.py on a tiny budget: it runs the three cases and prints their costs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # three short runs, about a minute on a loaded 2-core machine
def test_genetic_cost_runs_on_a_tiny_budget() -> None:
    out = subprocess.run([sys.executable, str(REPO / "benchmarks" / "genetic_cost.py"), "--budget", "80"],
                         capture_output=True, text=True, cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": ""},
                         timeout=300, check=True).stdout.splitlines()
    assert len(out) == 3 and all("80 calls" in line and "s CPU per 1,000 calls" in line for line in out)
