"""benchmarks/engine_parity.py: its per-step counts on hand-made batches, and the script end to end on tiny inputs
(both engines, two steps of eight)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchlab.paths import DEFAULT_PRIOR

from benchlab import engine_parity


def test_tracker_counts_duplicates_repeats_new_and_stereo_variants() -> None:
    tracker = engine_parity.Tracker()
    tracker.step(["CCO", "CCO", None, "C[C@H](N)O"], [0.5, 0.0, 0.0, 0.2], loss=3.0, nll=20.0,
                 replayed=["CCO"], memory=[("CCO", 0.5), ("C[C@H](N)O", 0.2)])
    tracker.step(["CCO", "C[C@@H](N)O", "CCN", "CCN"], [0.5, 0.9, 0.1, 0.0], loss=2.0, nll=18.0,
                 replayed=["C[C@H](N)O", "CCO"], memory=[("C[C@@H](N)O", 0.9), ("CCO", 0.5)])
    first, second = tracker.steps
    assert (first.invalid, first.dup, first.seen, first.new, first.stereo) == (1, 1, 0, 2, 0)
    assert (first.replayed, first.own, first.memory, first.mem_top) == (1, 1, 2, pytest.approx(0.5))
    # CCO was found in step 1; C[C@@H](N)O is new but its stereo-free form was; CCN twice is one new, one duplicate
    assert (second.invalid, second.dup, second.seen, second.new, second.stereo) == (0, 1, 1, 2, 1)
    assert (second.replayed, second.own) == (2, 1)
    assert second.top10 == pytest.approx((0.9 + 0.5 + 0.2 + 0.1) / 4)


def test_summary_counts_steps_to_a_number_of_new_molecules() -> None:
    tracker = engine_parity.Tracker()
    for batch in (["CCO", "CCN"], ["CCO", "CCC"], ["CCCC", "CCO"]):
        tracker.step(batch, [0.1] * len(batch), loss=1.0, nll=1.0, replayed=[], memory=[])
    out = engine_parity.summary([tracker], new_target=3)
    assert out["steps_to_3_new"] == 2 and out["new_per_step"] == pytest.approx(4 / 3)
    assert out["seen_per_step"] == pytest.approx(2 / 3)


def test_a_change_to_the_run_file_is_parsed_as_toml() -> None:
    assert engine_parity.parse_change("inception.sample_size=24") == (["inception", "sample_size"], 24)
    assert engine_parity.parse_change("parameters.unique_sequences=true") == (["parameters", "unique_sequences"], True)
    with pytest.raises(Exception, match="expected section.key=VALUE"):
        engine_parity.parse_change("sample_size")


@pytest.mark.slow  # 277 s on the 2-core dev machine beside two grid streams (REINVENT's start dominates)
@pytest.mark.skipif(not DEFAULT_PRIOR.exists(), reason=f"the bundled prior {DEFAULT_PRIOR} is not there")
def test_engine_parity_runs_both_engines(run_script, reinvent_rl, tmp_path: Path) -> None:
    pytest.importorskip("guacamol", reason="the PMO objectives need guacamol (scripts/setup_venv.sh test)")
    out = run_script("engine_parity.py", "--task", "qed_zinc", "--prior", str(DEFAULT_PRIOR), "--steps", "2",
                     "--batch-size", "8", "--every", "1", "--out", str(tmp_path)).stdout
    assert "| reinvent |" in out and "| mara-chem |" in out
    record = json.loads((tmp_path / "engine_parity.json").read_text())
    for engine in ("reinvent", "mara-chem"):
        steps = record[engine]["runs"]["0"]
        assert [s["step"] for s in steps] == [1, 2]
        assert all(s["invalid"] + s["dup"] + s["seen"] + s["new"] <= 8 for s in steps)
        assert steps[1]["replayed"] > 0  # the memory holds the first step's molecules
    # REINVENT replays from a memory that already holds the step's batch; mara-chem from the memory before it
    assert record["reinvent"]["runs"]["0"][0]["replayed"] > 0 and record["mara-chem"]["runs"]["0"][0]["replayed"] == 0


def test_stereo_free_parity_variant_runs_the_peers_molecule_identity(runner) -> None:
    """pmo_dap_parity_stereo_free is pmo_dap_parity with REINVENT 4's ``isomeric_smiles = false``; a variant that
    leaves the harness option at its default writes no key (its run file and fingerprint stay as they were)."""
    from mara_chem.rl.config import load_run_config

    task = runner.available_tasks()["zaleplon_mpo_zinc"]

    def cfg(name: str) -> dict:
        return runner.run_config(runner.Job(task, runner.variants[name], 0, 100, str(DEFAULT_PRIOR), Path("r")))

    flat, parity = cfg("pmo_dap_parity_stereo_free"), cfg("pmo_dap_parity")
    assert load_run_config(flat).parameters.isomeric_smiles is False
    assert "isomeric_smiles" not in parity["parameters"]
    flat["parameters"].pop("isomeric_smiles")
    assert flat == parity


def test_stereo_repeats_counts_calls_on_stereoisomers_of_scored_molecules(tmp_path: Path) -> None:
    from mara_chem.run_folder.oracle_log import RecordedCall, write_oracle_log

    smiles = ["C[C@H](N)O", "CCO", "C[C@@H](N)O", "CC(N)O", "F/C=C/F", "F/C=C\\F"]
    steps = [1, 1, 2, 2, 3, 3]
    write_oracle_log(tmp_path, ["s"], [RecordedCall(s, 0.5, n, scores={"s": 0.5}, raw={"s": 0.5})
                                       for s, n in zip(smiles, steps)])
    line = engine_parity.stereo_repeats(tmp_path, window=2)
    assert "6 calls, 3 stereo-free molecules, 3 stereo repeats (50.0%)" in line
    assert "[1-2] 2.0/2 [3-4] 1.0/1" in line  # calls a step over the window, repeats in it
