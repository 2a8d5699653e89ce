"""Run-folder cases of the hostile probe: records written whole, unreadable records refused, files the
run did not create left alone, output paths changed on resume, logs cut or edited under a checkpoint refused,
stages with new endpoints added, a second writer refused even without its lock file, collapse stopped, and a
scoring resume checked against what its rows were scored from. Real runs of the bundled prior with QED."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.hostile.conftest import QED, folder_state, scoring, set_key, staged, to_toml

from mara_chem.rl.config import load_run_config
from mara_chem.rl.loop import RunDirError, StagedLearning
from mara_chem.run_folder.run_lock import RunFolderBusy, RunLock
from mara_chem.run_folder.run_record import RUN_JSON, write_run_record


def _run(cfg: dict, overwrite: bool = False):
    return StagedLearning(load_run_config(cfg), overwrite=overwrite, quiet=True).run()


def _toml(tmp: Path, cfg: dict) -> Path:
    path = tmp / "run.toml"
    path.write_text(to_toml(cfg))
    return path


# --- item 4: run.json written whole; an unreadable record refused ---------------------------------------------
def test_run_json_is_replaced_not_rewritten_in_place(tmp_path: Path) -> None:
    """A hard link to the old run.json keeps the old text: the new record went to a new inode (temp + rename),
    so no moment exists at which run.json is empty or half written."""
    write_run_record(tmp_path, {"a": 1}, [], 0)
    os.link(tmp_path / RUN_JSON, tmp_path / "old.json")
    write_run_record(tmp_path, {"a": 2}, [], 0)
    assert json.loads((tmp_path / "old.json").read_text()) == {"a": 1}
    assert json.loads((tmp_path / RUN_JSON).read_text()) == {"a": 2}
    assert not list(tmp_path.glob(".run.json.*"))  # no temporary left behind


@pytest.mark.parametrize("text", ["", '{"run_type": "staged_', "[]", "\xff\xfe"])
def test_an_unreadable_run_json_is_refused_and_overwrite_is_the_way_out(tmp_path: Path, cli, text: str) -> None:
    run = tmp_path / "run"
    cfg = staged(run, steps=1, budget=8)
    _run(cfg)
    (run / RUN_JSON).write_bytes(text.encode("latin-1"))
    before = folder_state(run)
    code, out = cli("run", _toml(tmp_path, set_key(cfg, "learning_strategy", {"type": "reinforce", "rate": 0.01})))
    assert code == 2 and "run.json" in out and "--overwrite" in out, out
    assert folder_state(run) == before
    code, out = cli("run", _toml(tmp_path, cfg), "--overwrite")
    assert code == 0, out


def test_a_torn_run_changes_json_is_refused_naming_it(tmp_path: Path, cli) -> None:
    run = tmp_path / "run"
    cfg = staged(run, steps=1, budget=8)
    _run(cfg)
    (run / "run_changes.json").write_text('[{"at_step": 1, "chan')
    code, out = cli("run", _toml(tmp_path, set_key(cfg, "stage.0.max_oracle_calls", 16)))
    assert code == 2 and "run_changes.json is empty or torn" in out, out


def test_a_log_without_its_record_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    cfg = staged(run, steps=1, budget=8)
    _run(cfg)
    (run / RUN_JSON).unlink()
    with pytest.raises(RunDirError, match="no run.json.*--overwrite"):
        StagedLearning(load_run_config(cfg), quiet=True)


# --- item 3: json_out_config written after the checks ----------------------------------------------------------
def test_a_refused_resume_writes_no_json_out_config(tmp_path: Path, cli) -> None:
    run = tmp_path / "run"
    cfg = staged(run, steps=1, budget=8)
    _run(cfg)
    changed = set_key(set_key(cfg, "seed", 6), "json_out_config", str(run / "config.json"))
    code, out = cli("run", _toml(tmp_path, changed))
    assert code == 2 and "seed" in out, out
    assert not (run / "config.json").exists()
    code, out = cli("run", _toml(tmp_path, set_key(cfg, "json_out_config", str(run / "config.json"))))
    assert code == 0, out  # json_out_config is output-only: a resume may add it
    assert json.loads((run / "config.json").read_text())["seed"] == 5


# --- item 9: never delete what the run did not create ----------------------------------------------------------
def test_overwrite_in_a_shared_folder_deletes_only_the_runs_own_files(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tb").mkdir()
    (tmp_path / "tb" / "events.keep").write_text("someone's TensorBoard")
    (tmp_path / "summary_old.csv").write_text("someone's table")
    cfg = set_key(staged(tmp_path, steps=1, budget=8), "parameters.summary_csv_prefix", ...)  # default: ./summary
    _run(cfg)
    _run(cfg, overwrite=True)
    assert (tmp_path / "tb" / "events.keep").read_text() == "someone's TensorBoard"
    assert (tmp_path / "summary_old.csv").read_text() == "someone's table"
    assert (tmp_path / "summary_1.csv").exists()  # the run's own summary, rewritten


def test_a_new_run_refuses_to_take_over_a_summary_it_did_not_write(tmp_path: Path, cli) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary_1.csv").write_text("someone's table\n")
    for extra in ([], ["--overwrite"]):
        code, out = cli("run", _toml(tmp_path, staged(run, steps=1, budget=8)), *extra)
        assert code == 2 and "summary_1.csv" in out and "never deleted" in out, out
        assert (run / "summary_1.csv").read_text() == "someone's table\n"
        assert not (run / "oracle_log.csv").exists()


@pytest.mark.parametrize("record", [
    '{"run_type": "staged_learning", "parameters": {"summary_csv_prefix": "%s/summary"}, "stage": [{}]}',
    '{"experiment": "mine"}',
    '{"run_type": "staged_',
])
def test_overwrite_keeps_a_summary_beside_a_run_json_mara_chem_did_not_write(tmp_path: Path, cli, record) -> None:
    """A run.json another program wrote (REINVENT's JSON config here, or anything) claims nothing: --overwrite
    refuses as it does without that file, and deletes neither the summary nor the run.json."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary_1.csv").write_text("someone's table\n")
    (run / RUN_JSON).write_text(record.replace("%s", str(run)))
    code, out = cli("run", _toml(tmp_path, staged(run, steps=1, budget=8)), "--overwrite")
    assert code == 2 and "summary_1.csv" in out and "never deleted" in out, out
    assert (run / "summary_1.csv").read_text() == "someone's table\n"
    assert (run / RUN_JSON).read_text() == record.replace("%s", str(run))
    assert not (run / "oracle_log.csv").exists()


# --- item 10: output-only keys may change on resume ------------------------------------------------------------
def test_a_resume_may_move_tb_logdir(tmp_path: Path, cli) -> None:
    pytest.importorskip("tensorboard")
    run = tmp_path / "run"
    cfg = set_key(staged(run, steps=1, budget=8), "tb_logdir", str(tmp_path / "tb1"))
    _run(cfg)
    more = set_key(set_key(cfg, "tb_logdir", str(tmp_path / "tb2")), "stage.0.max_oracle_calls", 16)
    more = set_key(more, "stage.0.max_steps", 2)
    code, out = cli("run", _toml(tmp_path, more))
    assert code == 0, out
    assert any((tmp_path / "tb2").iterdir())


# --- resume: a log cut or edited under its checkpoint ----------------------------------------------------------
def _one_step_run(tmp_path: Path) -> tuple[dict, Path, list[str]]:
    """A finished one-step run of 8 calls: its config, its oracle log and the log's lines."""
    cfg = staged(tmp_path / "run", steps=1, budget=8)
    _run(cfg)
    log = tmp_path / "run" / "oracle_log.csv"
    return cfg, log, log.read_text().splitlines(keepends=True)


@pytest.mark.parametrize("cut", ["inside the header", "after two rows"])
def test_a_log_cut_under_its_checkpoint_is_refused(tmp_path: Path, cut: str) -> None:
    cfg, log, lines = _one_step_run(tmp_path)
    log.write_text(lines[0][:10] if cut == "inside the header" else "".join(lines[:3]))
    with pytest.raises(RunDirError, match="holds [0-9]+ calls but .*checkpoint.pt was written after 8"):
        StagedLearning(load_run_config(set_key(cfg, "stage.0.max_steps", 2)), quiet=True)


def test_an_edited_log_is_refused_on_resume_naming_the_line(tmp_path: Path) -> None:
    cfg, log, lines = _one_step_run(tmp_path)
    lines[4] = "100000" + lines[4][1:]
    log.write_text("".join(lines))
    with pytest.raises(RunDirError, match="oracle_log.csv line 5: call number 100000"):
        StagedLearning(load_run_config(set_key(cfg, "stage.0.max_steps", 2)), quiet=True)


def test_a_stage_with_a_new_endpoint_can_be_added_on_resume(tmp_path: Path) -> None:
    run = tmp_path / "run"
    cfg = staged(run, steps=1, budget=8)
    _run(cfg)
    first = (run / "oracle_log.csv").read_text().splitlines()
    stage2 = {"max_steps": 1, "max_oracle_calls": 8, "min_steps": 1000, "scoring": {
        "type": "geometric_mean", "component": [*QED["component"], {"SAScore": {"endpoint": [
            {"name": "SA", "weight": 1, "transform": {"type": "reverse_sigmoid", "low": 2.0, "high": 6.0}}]}}]}}
    cfg2 = {**cfg, "stage": [*cfg["stage"], stage2]}
    result = _run(cfg2)
    assert result.oracle_calls == 16
    rows = (run / "oracle_log.csv").read_text().splitlines()
    assert rows[0] == "call,step,stage,smiles,score,QED,SA,QED_raw,SA_raw,reason"
    old = [r.split(",") for r in rows[1:9]]
    assert [r[0] for r in old] == [f.split(",")[0] for f in first[1:]]
    assert all(r[6] == "" and r[8] == "" for r in old)  # the old rows' new cells are empty, their values kept
    assert all(r.split(",")[6] != "" for r in rows[9:])


# --- a lock file deleted by hand -------------------------------------------------------------------------------
def test_the_folder_stays_locked_when_its_lock_file_is_deleted(tmp_path: Path) -> None:
    first = RunLock(tmp_path)
    first.acquire()
    try:
        (tmp_path / "run.lock").unlink()
        with pytest.raises(RunFolderBusy, match="in use by another run"):
            RunLock(tmp_path).acquire()
    finally:
        first.release()
    second = RunLock(tmp_path)
    second.acquire()  # free again once the holder lets go
    second.release()


# --- unclear: validity collapse ------------------------------------------------------------------------------
def test_a_run_whose_agent_samples_no_valid_smiles_stops_with_a_warning(tmp_path: Path, cli) -> None:
    run = tmp_path / "run"
    cfg = set_key(staged(run, steps=40, budget=None), "parameters.temperature", 100.0)  # noise: nothing valid
    code, out = cli("run", _toml(tmp_path, cfg))
    assert code == 3, out
    assert "no valid SMILES in 5 steps in a row" in out and "lower learning_strategy.rate" in out
    steps = {line.split(",")[-1] for line in (run / "summary_1.csv").read_text().splitlines()[1:]}
    assert len(steps) <= 6


# --- item 8: a scoring resume from other inputs or another objective --------------------------------------------
@pytest.mark.parametrize("change", ["input", "scoring", "column"])
def test_a_scoring_resume_over_other_inputs_or_objective_is_refused(tmp_path: Path, cli, change: str) -> None:
    cfg = set_key(scoring(tmp_path), "parameters.batch_size", 2)
    code, out = cli("run", _toml(tmp_path, cfg))
    assert code == 0, out
    out_csv = tmp_path / "out" / "scores.csv"
    text = out_csv.read_text()
    out_csv.write_text("".join(text.splitlines(keepends=True)[:4]))  # killed after three rows
    if change == "input":
        Path(cfg["parameters"]["smiles_file"]).write_text("CCO\nc1ccccc1O\nCC(=O)Nc1ccc(O)cc1\nCCCCCCCC\n")
        expected = "the input file's contents changed"
    elif change == "scoring":
        cfg["scoring"]["component"][0]["QED"]["endpoint"][0]["transform"] = {"type": "sigmoid", "low": 0.2,
                                                                              "high": 0.8}
        expected = "the [scoring] section changed"
    else:
        cfg = set_key(cfg, "parameters.standardize_smiles", False)
        expected = "parameters.standardize_smiles changed"
    cfg = set_key(cfg, "json_out_config", str(tmp_path / "out" / "config.json"))
    before = folder_state(tmp_path / "out")
    code, out = cli("run", _toml(tmp_path, cfg))
    assert code == 2 and expected in out, out
    assert folder_state(tmp_path / "out") == before  # json_out_config not written by a refused resume either
