"""The PMO table reads any method's oracle logs through mara-chem's metric functions (one implementation)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from benchlab.paths import BENCHMARKS, TASK_DIR
from benchlab.tasks import load_task

from mara_chem.run_folder.oracle_log import RecordedCall, write_oracle_log

TASK = TASK_DIR / "pmo" / "qed.toml"
SMILES = ["CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "CCN(CC)CC", "O=C(O)c1ccccc1O", "CCOC(=O)c1ccccc1"]


def _table():
    """benchmarks/pmo_table.py, the script, as a module."""
    spec = importlib.util.spec_from_file_location("pmo_table", BENCHMARKS / "pmo_table.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["pmo_table"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _write_log(run_dir: Path, scores: list[float], finished: bool = True) -> None:
    run_dir.mkdir(parents=True)
    write_oracle_log(run_dir, ["qed"], [RecordedCall(s, v, 1, scores={"qed": v}, raw={"qed": v})
                                        for s, v in zip(SMILES, scores)])
    if finished:  # a peer's record, as its runner writes it at the end
        (run_dir / "peer_run.json").write_text('{"wall_s": 1.5}')


def test_sums_cells_and_p_values(tmp_path: Path):
    pmo = _table()
    for seed, bump in ((0, 0.0), (1, 0.01), (2, 0.02)):
        _write_log(tmp_path / "a" / "qed" / "v" / f"seed{seed}", [0.2 + bump, 0.5, 0.96, 0.3, 0.95, 0.1])
        _write_log(tmp_path / "b" / "qed" / "w" / f"seed{seed}", [0.1 + bump, 0.2, 0.3, 0.3, 0.2, 0.1])
    _write_log(tmp_path / "a" / "qed" / "v" / "seed3", [0.99] * 6, finished=False)  # still running: left out
    task = load_task(TASK, "pmo")
    methods = [pmo.Method.parse(f"A={tmp_path / 'a'}:v"), pmo.Method.parse(f"B={tmp_path / 'b'}:w")]
    data = pmo.collect(methods, [task], budget=6)
    a0 = data["A"]["qed"][0]
    assert a0["top10"] == pytest.approx(sum([0.2, 0.5, 0.96, 0.3, 0.95, 0.1]) / 6)
    assert a0["yield"] == 2.0  # 0.96 and 0.95 reach qed's strict threshold (0.945)
    assert a0["calls"] == 6.0 and a0["s_per_1000_calls"] == pytest.approx(250.0)  # 1.5 s for 6 calls
    assert sorted(data["A"]["qed"]) == [0, 1, 2]
    assert pmo.seed_sums(data["A"], [task], "auc_top10") == {s: data["A"]["qed"][s]["auc_top10"] for s in (0, 1, 2)}
    text = pmo.markdown(data, methods, [task], 6, "cmd")
    assert "| **sum** (per-seed sums) |" in text and "Genetic GFN | 13.59" in text
    assert "Welch p" in text
    assert "tasks every method has run" not in text  # both complete: one summary
    summary = next(line for line in text.splitlines() if line.startswith("| A | 3 |"))
    mean_sum = sum(data["A"]["qed"][s]["auc_top10"] for s in (0, 1, 2)) / 3
    assert summary.split(" | ")[2] == f"{mean_sum:.2f}" and summary.split(" | ")[6] == "2"  # AUC sum; strict Yield


def test_a_malformed_method_is_a_one_line_error():
    pmo = _table()
    with pytest.raises(SystemExit, match="expected LABEL=ROOT:VARIANT"):
        pmo.Method.parse("just-a-label")


def test_a_runs_numbers_are_kept_beside_its_log_until_the_log_changes(tmp_path: Path):
    pmo = _table()
    task = load_task(TASK, "pmo")
    run = tmp_path / "a" / "qed" / "v" / "seed0"
    _write_log(run, [0.2, 0.5, 0.96, 0.3, 0.95, 0.1])
    first = pmo.cached_run_metrics(run / "oracle_log.csv", task, 6)
    assert (run / pmo.CACHE_NAME).exists() and first["yield"] == 2.0
    assert pmo.cached_run_metrics(run / "oracle_log.csv", task, 6) == first  # read back
    assert pmo.cached_run_metrics(run / "oracle_log.csv", task, 5)["calls"] == 5.0  # another budget: measured
    (run / "oracle_log.csv").unlink()
    (run / "peer_run.json").unlink()
    _write_log(run.parent / "seed0x", [0.99, 0.5, 0.96, 0.3, 0.95, 0.1])  # a rewritten log: new size or time
    (run.parent / "seed0x" / "oracle_log.csv").rename(run / "oracle_log.csv")
    assert pmo.cached_run_metrics(run / "oracle_log.csv", task, 6)["top10"] > first["top10"]


def test_an_incomplete_method_gets_a_summary_over_the_shared_tasks(tmp_path: Path):
    pmo = _table()
    qed = load_task(TASK, "pmo")
    other = load_task(TASK.with_name("celecoxib_rediscovery.toml"), "pmo")
    for task in (qed, other):
        _write_log(tmp_path / "a" / task.name / "v" / "seed0", [0.2, 0.5, 0.96, 0.3, 0.95, 0.1])
    _write_log(tmp_path / "b" / qed.name / "w" / "seed0", [0.1, 0.2, 0.3, 0.3, 0.2, 0.1])  # b lacks celecoxib
    methods = [pmo.Method.parse(f"A={tmp_path / 'a'}:v"), pmo.Method.parse(f"B={tmp_path / 'b'}:w")]
    text = pmo.markdown(pmo.collect(methods, [qed, other], 6), methods, [qed, other], 6, "cmd")
    assert f"over the 1 tasks every method has run ({qed.name})" in text
    rows = [line for line in text.splitlines() if line.startswith(("| B | 0 |", "| B | 1 |"))]
    assert rows[0].startswith("| B | 0 | – |") and rows[1].startswith("| B | 1 | 0.")  # all tasks; the shared one


def test_a_recorded_run_whose_folder_is_gone_keeps_its_numbers(tmp_path: Path):
    pmo = _table()
    task = load_task(TASK, "pmo")
    root, out = tmp_path / "runs", tmp_path / "table"
    for seed, scores in ((0, [0.2, 0.5, 0.96, 0.3, 0.95, 0.1]), (1, [0.1, 0.2, 0.3, 0.3, 0.2, 0.1])):
        _write_log(root / task.name / "v" / f"seed{seed}", scores)
    args = ["--tasks", str(TASK), "--budget", "6", "--out", str(out), "--method", f"A={root}:v"]
    assert pmo.main(args) == 0
    both = pmo.recorded_runs(out / "pmo_runs.json")["A"][task.name]
    for path in (root / task.name / "v" / "seed1").iterdir():  # seed 1's folder is gone, seed 0's log changes
        path.unlink()
    (root / task.name / "v" / "seed1").rmdir()
    (root / task.name / "v" / "seed0" / "oracle_log.csv").unlink()
    _write_log(root / task.name / "v" / "seed0x", [0.99, 0.5, 0.96, 0.3, 0.95, 0.1])
    (root / task.name / "v" / "seed0x" / "oracle_log.csv").rename(root / task.name / "v" / "seed0" / "oracle_log.csv")
    assert pmo.main(args) == 0
    kept = pmo.recorded_runs(out / "pmo_runs.json")["A"][task.name]
    assert kept[1] == both[1]  # recorded, not lost
    assert kept[0]["top10"] > both[0]["top10"]  # present: measured again
    assert "1 runs are read from this folder's pmo_runs.json" in (out / "pmo_table.md").read_text()
    assert pmo.main(args + ["--only-present"]) == 0
    assert set(pmo.recorded_runs(out / "pmo_runs.json")["A"][task.name]) == {0}


def test_rows_recorded_by_another_table_fill_only_the_runs_missing_here(tmp_path: Path):
    pmo = _table()
    task = load_task(TASK, "pmo")
    root = tmp_path / "runs"
    for seed, scores in ((0, [0.2, 0.5, 0.96, 0.3, 0.95, 0.1]), (1, [0.1, 0.2, 0.3, 0.3, 0.2, 0.1])):
        _write_log(root / task.name / "v" / f"seed{seed}", scores)
    other = ["--tasks", str(TASK), "--budget", "6", "--out", str(tmp_path / "other"), "--method", f"A={root}:v"]
    assert pmo.main(other) == 0
    measured = pmo.recorded_runs(tmp_path / "other" / "pmo_runs.json")["A"][task.name]
    for path in (root / task.name / "v" / "seed1").iterdir():  # seed 1's folder is gone; seed 0 is measured again
        path.unlink()
    _write_log(root / task.name / "v" / "seed0x", [0.99, 0.5, 0.96, 0.3, 0.95, 0.1])
    (root / task.name / "v" / "seed0x" / "oracle_log.csv").replace(root / task.name / "v" / "seed0" / "oracle_log.csv")
    here = ["--tasks", str(TASK), "--budget", "6", "--out", str(tmp_path / "here"), "--method", f"A={root}:v"]
    assert pmo.main(here + ["--recorded", str(tmp_path / "other" / "pmo_runs.json")]) == 0
    runs = pmo.recorded_runs(tmp_path / "here" / "pmo_runs.json")["A"][task.name]
    assert runs[1] == measured[1] and runs[0]["top10"] > measured[0]["top10"]
    with pytest.raises(SystemExit, match="no such file"):
        pmo.main(here + ["--recorded", str(tmp_path / "absent.json")])


def test_a_run_that_stopped_short_of_the_budget_is_named_and_counted(tmp_path: Path):
    pmo = _table()
    _write_log(tmp_path / "a" / "qed" / "v" / "seed0", [0.2, 0.5, 0.96, 0.3, 0.95, 0.1])
    task = load_task(TASK, "pmo")
    methods = [pmo.Method.parse(f"A={tmp_path / 'a'}:v")]
    data = pmo.collect(methods, [task], budget=10)
    text = pmo.markdown(data, methods, [task], 10, "cmd")
    assert "## Stopped early" in text and "A: qed seed 0 (6 calls)" in text and "Per method: A 1 of 1." in text
    assert "## Stopped early" not in pmo.markdown(pmo.collect(methods, [task], 6), methods, [task], 6, "cmd")
