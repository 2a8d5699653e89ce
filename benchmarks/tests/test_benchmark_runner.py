"""Smoke test of the benchmark runner: 1 task x 2 strategies x 1 seed at 64 oracle calls, with the bundled prior.

Checks that the grid runs, is resumable (a second call skips finished runs), and that the results table, CSVs
and PNGs exist and hold sensible numbers.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from benchlab.paths import DEFAULT_PRIOR as PRIOR
from benchlab.paths import REPO, TASK_DIR

from mara_chem.data.moses import sha256_of


def test_task_files_load(runner) -> None:
    tasks = runner.available_tasks()
    assert len(tasks) >= 3
    for task in tasks.values():
        assert 0 < task.lenient < task.strict <= 1
        if task.group == "project":  # the PMO tasks (test_benchmark_pmo.py) mostly have no regions
            assert len(task.regions) >= 3, f"{task.name} should define several high-scoring regions"
        cfg = runner.run_config(runner.Job(task, runner.variants["dap"], 0, 10, str(PRIOR), Path("/tmp/x")))
        assert cfg["stage"][0]["max_oracle_calls"] == 10
        assert cfg["diversity_filter"]["minscore"] == task.lenient  # the filter sees every hit


def test_variants_validate_and_tau_follows_the_task(runner) -> None:
    from mara_chem.rl.config import load_run_config

    for task in runner.available_tasks().values():
        for variant in runner.variants.values():
            cfg = load_run_config(runner.run_config(runner.Job(task, variant, 0, 10, str(PRIOR), Path("/tmp/x"))))
            assert cfg.learning_strategy["type"] == variant.learning_strategy["type"]
            if variant.learning_strategy.get("tau") == "@strict":
                assert cfg.learning_strategy["tau"] == task.strict


def test_welch_p(runner) -> None:
    assert runner.welch_p([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert runner.welch_p([1, 2, 3], [10, 11, 12.5]) < 0.01
    assert math.isnan(runner.welch_p([1], [2, 3]))


@pytest.mark.skipif(not PRIOR.exists(), reason="the bundled prior priors/moses-gru-2x256.prior is not there yet")
def test_smoke_grid(runner, tmp_path: Path, capsys) -> None:
    runs, out = tmp_path / "runs", tmp_path / "out"
    argv = ["--tasks", "ref_neighbourhoods", "--variants", "dap", "mara", "--seeds", "0", "--budget", "64",
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
    assert info["priors"][0]["sha256"] == sha256_of(PRIOR)

    # resumable: finished runs are skipped, the tables are rebuilt (from each run's metrics cache, same numbers)
    capsys.readouterr()
    assert all((runs / "ref_neighbourhoods" / v / "seed0" / "benchmark_metrics.json").exists() for v in ("dap", "mara"))
    assert runner.main(argv) == 0
    assert "2 already finished, 0 to run" in capsys.readouterr().out
    assert list(csv.DictReader((out / "runs.csv").open())) == rows

    # the cache holds only for the same oracle log: an edited log is measured again
    from benchlab.run_metrics import measured_run

    job = next(j for j in runner.jobs.make_jobs([runner.load_task(TASK_DIR / "ref_neighbourhoods.toml")],
                                                [runner.variants["dap"]], [0], 64, str(PRIOR), runs, 64, 4))
    log = job.run_dir / "oracle_log.csv"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:2]))  # the header and the first call only
    assert measured_run(job, 5)["row"]["oracle_calls"] == 1


def test_a_changed_task_is_not_reused(runner, tmp_path: Path) -> None:
    """A finished run is reused only for the same task file: changing a threshold (and with it MARA's τ and the
    filter's minscore) or anything else in the file makes it a different run."""
    original = TASK_DIR / "ref_neighbourhoods.toml"
    changed = tmp_path / "ref_neighbourhoods.toml"
    changed.write_text(original.read_text().replace("thresholds = [0.80, 0.85]", "thresholds = [0.80, 0.90]"))
    job = runner.Job(runner.load_task(original), runner.variants["mara"], 0, 10, str(PRIOR), tmp_path / "run")
    job.run_dir.mkdir()
    record = {"config_sha256": runner.jobs.config_fingerprint(job)["sha256"]}
    (job.run_dir / runner.jobs.DONE_NAME).write_text(json.dumps(record))
    assert runner.jobs.is_finished(job)
    same_place = runner.Job(runner.load_task(changed), job.variant, 0, 10, str(PRIOR), job.run_dir)
    assert not runner.jobs.is_finished(same_place)
    assert "another configuration" in runner.jobs.stale_reason(same_place)
    for other in (runner.Job(job.task, runner.variants["mara_memory"], 0, 10, str(PRIOR), job.run_dir),
                  runner.Job(job.task, job.variant, 0, 20, str(PRIOR), job.run_dir),
                  runner.Job(job.task, job.variant, 0, 10, str(PRIOR), job.run_dir, batch_size=32)):
        assert not runner.jobs.is_finished(other)


def test_a_failed_run_exits_non_zero_and_leaves_the_tables(runner, tmp_path: Path, capsys) -> None:
    broken = tmp_path / "broken.prior"
    broken.write_bytes(b"not a prior")
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.md").write_text("previous tables")
    argv = ["--tasks", "ref_neighbourhoods", "--variants", "dap", "--seeds", "0", "--budget", "64", "--workers", "1",
            "--prior", str(broken), "--runs", str(tmp_path / "runs"), "--out", str(out)]
    assert runner.main(argv) == 1
    assert "FAILED" in capsys.readouterr().out
    assert (out / "results.md").read_text() == "previous tables"
    assert sorted(p.name for p in out.iterdir()) == ["results.md"]


def test_an_unknown_variant_is_a_one_line_error(runner, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="unknown variant.*nope.*valid: dap"):
        runner.main(["--variants", "nope", "--out", str(tmp_path)])


def test_the_prior_is_named_relative_to_the_repository(runner) -> None:
    """results.md names a prior inside the checkout by its repository path, not by one machine's folder."""
    from benchlab.tables import repo_relative

    assert repo_relative(str(REPO / "priors" / "moses-gru-2x256.prior")) == "priors/moses-gru-2x256.prior"
    assert repo_relative("/elsewhere/x.prior") == "/elsewhere/x.prior"
