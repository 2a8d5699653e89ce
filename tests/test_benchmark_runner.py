"""Smoke test of the benchmark runner: 1 task x 2 strategies x 1 seed at 64 oracle calls, with the bundled prior.

Checks that the grid runs, is resumable (a second call skips finished runs), and that the results table, CSVs
and PNGs exist and hold sensible numbers.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PRIOR = REPO / "priors" / "moses-gru-2x256.prior"


def _load_runner():
    spec = importlib.util.spec_from_file_location("run_benchmark", REPO / "benchmarks" / "run_benchmark.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_benchmark"] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def runner():
    return _load_runner()


def test_task_files_load(runner) -> None:
    tasks = runner.available_tasks()
    assert len(tasks) >= 3
    for task in tasks.values():
        assert 0 < task.lenient < task.strict <= 1
        assert len(task.regions) >= 3, f"{task.name} should define several high-scoring regions"
        cfg = runner.run_config(runner.Job(task, "dap", 0, 10, "prior", Path("/tmp/x")))
        assert cfg["stage"][0]["max_oracle_calls"] == 10


def test_strategies_validate(runner) -> None:
    from mara_chem.rl.config import load_run_config

    task = next(iter(runner.available_tasks().values()))
    for name in runner.STRATEGIES:
        cfg = load_run_config(runner.run_config(runner.Job(task, name, 0, 10, "prior", Path("/tmp/x"))))
        assert cfg.learning_strategy["type"] == name


def test_welch_p(runner) -> None:
    assert runner.welch_p([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert runner.welch_p([1, 2, 3], [10, 11, 12.5]) < 0.01
    assert math.isnan(runner.welch_p([1], [2, 3]))


@pytest.mark.skipif(not PRIOR.exists(), reason="the bundled prior priors/moses-gru-2x256.prior is not there yet")
def test_smoke_grid(runner, tmp_path: Path, capsys) -> None:
    runs, out = tmp_path / "runs", tmp_path / "out"
    argv = ["--tasks", "ref_neighbourhoods", "--strategies", "dap", "mara", "--seeds", "0", "--budget", "64",
            "--max-steps", "4", "--workers", "1", "--prior", str(PRIOR), "--runs", str(runs), "--out", str(out),
            "--ob-n", "5"]
    assert runner.main(argv) == 0
    for name in ("results.md", "results.csv", "runs.csv", "results.json", "ref_neighbourhoods_hits.png",
                 "ref_neighbourhoods_circles.png", "ref_neighbourhoods_scores.png"):
        assert (out / name).stat().st_size > 0, name
    for png in out.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size < 300_000

    rows = list(csv.DictReader((out / "runs.csv").open()))
    assert {r["strategy"] for r in rows} == {"dap", "mara"}
    for r in rows:
        calls = int(r["oracle_calls"])
        assert 0 < calls <= 64
        assert 0 <= int(r["yield@lenient"]) <= calls
        assert int(r["yield@strict"]) <= int(r["yield@lenient"])
        assert 0.0 <= float(r["auc_top10"]) <= 1.0
    summary = list(csv.DictReader((out / "results.csv").open()))
    assert {s["strategy"] for s in summary} == {"dap", "mara"}
    assert all(s["n_seeds"] == "1" for s in summary)

    md = (out / "results.md").read_text()
    assert "ref_neighbourhoods" in md and "DAP" in md and "MARA" in md and "Yield" in md
    info = json.loads((out / "results.json").read_text())
    assert info["priors"][0]["sha256"] == runner.sha256_of(PRIOR)

    # resumable: finished runs are skipped, the tables are rebuilt
    capsys.readouterr()
    assert runner.main(argv) == 0
    assert "2 already finished, 0 to run" in capsys.readouterr().out
