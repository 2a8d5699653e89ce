"""The Mol GA peer (``benchlab.peers.mol_ga``): its objective charges what mara-chem's oracle charges
(a repeat or an invalid SMILES costs nothing), never exceeds the budget, and ``mara-chem metrics`` reads its log."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchlab.peers import mol_ga as mol_ga_peer
from benchlab.peers import peer_run

from mara_chem.run_folder.oracle_log import read_oracle_log

pytest.importorskip("guacamol", reason="the PMO tasks score with guacamol (scripts/setup_venv.sh test installs it)")


def _oracle(tmp_path: Path, budget: int):
    return peer_run.open_oracle(peer_run.resolve_task("qed"), tmp_path, budget)


def test_repeated_molecule_is_not_charged(tmp_path: Path) -> None:
    oracle = _oracle(tmp_path, 10)
    objective = mol_ga_peer.AccountedObjective(oracle)
    first = objective(["CCO", "OCC"])  # one molecule, two spellings
    again = objective(["C(C)O"])  # the same molecule in a later generation
    assert oracle.calls == 1
    assert first[0] == first[1] == again[0] > 0
    assert [r["smiles"] for r in oracle.log.read()] == ["CCO"]


def test_invalid_smiles_is_not_charged_and_scores_zero(tmp_path: Path) -> None:
    oracle = _oracle(tmp_path, 10)
    scores = mol_ga_peer.AccountedObjective(oracle)(["C1CC", "c1ccccc1", "not a smiles"])
    assert oracle.calls == 1
    assert scores[0] == 0.0 and scores[2] == 0.0 and scores[1] > 0
    assert len(oracle.log.read()) == 1


def test_budget_is_never_exceeded(tmp_path: Path) -> None:
    oracle = _oracle(tmp_path, 3)
    objective = mol_ga_peer.AccountedObjective(oracle)
    with pytest.raises(mol_ga_peer.BudgetSpent):
        objective(["CCO", "CCN", "CCC", "CCCl", "CCBr"])
    assert oracle.calls == 3 and len(oracle.log.read()) == 3
    assert objective(["CCN", "CCO"])[0] > 0  # paid molecules stay free to ask again


@pytest.fixture(scope="module")
def ga_run(tmp_path_factory) -> Path:
    pytest.importorskip("mol_ga", reason="the Mol GA peer needs mol-ga==0.2.1 (extra 'peers')")
    out = tmp_path_factory.mktemp("molga") / "run"
    assert mol_ga_peer.main(["--task", "qed", "--budget", "80", "--seed", "3", "--out", str(out),
                             "--starting-population-size", "30", "--population-size", "30",
                             "--offspring-size", "10"]) == 0
    return out


def test_real_ga_run_spends_exactly_the_budget_on_new_molecules(ga_run: Path) -> None:
    log = read_oracle_log(ga_run)
    assert log.counts()["n_calls"] == 80 and log.n_rows == 80
    assert log.df["call"].tolist() == list(range(1, 81))
    assert log.df["smiles"].is_unique  # every call paid for a new molecule
    record = json.loads((ga_run / peer_run.RECORD_NAME).read_text())
    assert record["oracle_calls"] == 80 and record["stop_reason"] == "oracle budget"
    assert record["settings"]["population_size"] == 30 and record["settings"]["offspring_size"] == 10
    assert log.df["step"].min() == 1 and log.df["step"].max() > 1  # the starting population, then generations


def test_mara_chem_metrics_reads_the_peer_log(ga_run: Path, capsys) -> None:
    from mara_chem.cli import main

    assert main(["metrics", str(ga_run), "--threshold", "0.5", "0.9", "--budget", "80",
                 "--json", str(ga_run / "m.json")]) == 0
    metrics = json.loads((ga_run / "m.json").read_text())
    scores = read_oracle_log(ga_run).df["score"].tolist()
    assert metrics["log"]["n_calls"] == 80 and metrics["unique_molecules"] == 80
    assert metrics["thresholds"][0]["yield"] == sum(s >= 0.5 for s in scores)
    assert 0 < metrics["auc"]["value"] <= max(scores)
    assert not any(math.isnan(s) for s in scores)


def test_a_spent_cpu_cap_ends_the_run_before_the_next_new_molecule_is_paid(tmp_path: Path) -> None:
    oracle = _oracle(tmp_path, 10)
    objective = mol_ga_peer.AccountedObjective(oracle, max_cpu_s=0.05)
    assert objective(["CCO", "c1ccccc1"])[0] > 0  # within the cap
    while objective.cpu_s() < 0.05:  # the GA's own work spends CPU seconds too
        sum(i * i for i in range(10_000))
    with pytest.raises(mol_ga_peer.CpuCapSpent):
        objective(["OCC", "CCN", "CCC"])  # a paid molecule is free to ask again; the first new one stops the run
    assert oracle.calls == 2 and [r["smiles"] for r in oracle.log.read()] == ["CCO", "c1ccccc1"]


def test_capped_scoring_logs_what_uncapped_scoring_logs(tmp_path: Path) -> None:
    batches = [["CCO", "OCC", "not a smiles", "c1ccccc1O"], ["CCO", "CCN", "CC(=O)O", "CCN"]]
    logs = []
    for name, cap in (("plain", None), ("capped", 1e9)):
        (tmp_path / name).mkdir()
        objective = mol_ga_peer.AccountedObjective(_oracle(tmp_path / name, 10), max_cpu_s=cap)
        scores = [objective(batch) for batch in batches]
        logs.append(([(r["call"], r["step"], r["smiles"], r["score"]) for r in objective.oracle.log.read()], scores))
    assert logs[0] == logs[1] and len(logs[0][0]) == 4


def test_real_ga_run_stops_on_its_cpu_cap_and_says_so(tmp_path: Path) -> None:
    pytest.importorskip("mol_ga", reason="the Mol GA peer needs mol-ga==0.2.1 (extra 'peers')")
    out = tmp_path / "run"
    assert mol_ga_peer.main(["--task", "qed", "--budget", "1000000", "--seed", "3", "--out", str(out),
                             "--starting-population-size", "30", "--population-size", "30",
                             "--offspring-size", "10", "--max-cpu-s", "1.5"]) == 0
    record = json.loads((out / peer_run.RECORD_NAME).read_text())
    log = read_oracle_log(out)
    assert record["stop_reason"] == "cpu cap" and record["settings"]["max_cpu_s"] == 1.5
    assert record["cpu_s"] >= 1.5 and 30 <= record["oracle_calls"] == log.counts()["n_calls"] < 1_000_000
    assert log.df["call"].tolist() == list(range(1, record["oracle_calls"] + 1))


def test_bad_options_are_refused_before_any_call(tmp_path: Path, capsys) -> None:
    pytest.importorskip("mol_ga", reason="the Mol GA peer needs mol-ga==0.2.1 (extra 'peers')")
    assert mol_ga_peer.main(["--task", "qed", "--out", str(tmp_path / "a"), "--offspring-size", "0"]) == 2
    assert "--offspring-size must be at least 1" in capsys.readouterr().err
    assert mol_ga_peer.main(["--task", "qed", "--out", str(tmp_path / "c"), "--max-cpu-s", "0"]) == 2
    assert "--max-cpu-s must be a positive number" in capsys.readouterr().err
    assert mol_ga_peer.main(["--task", "no_such_task", "--out", str(tmp_path / "b")]) == 2
    assert "unknown task" in capsys.readouterr().err
    assert not any((tmp_path / name).exists() for name in "abc")


def test_a_used_folder_is_refused_and_overwrite_deletes_only_the_peers_files(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "oracle_log.csv").write_text("call\n")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(peer_run.PeerError, match="already holds a run"):
        peer_run.prepare_run_dir(out, overwrite=False)
    peer_run.prepare_run_dir(out, overwrite=True).release()
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "run.lock"]  # run.lock: who held it


def test_a_folder_another_peer_run_holds_is_refused_untouched(tmp_path: Path) -> None:
    """Two grid streams reaching one run: the second is refused (naming the holder) and deletes nothing."""
    out = tmp_path / "run"
    held = peer_run.prepare_run_dir(out, overwrite=False)
    (out / "oracle_log.csv").write_text("call\n")  # the first run's log, being written
    with pytest.raises(peer_run.PeerError, match="in use by another run"):
        peer_run.prepare_run_dir(out, overwrite=True)
    assert (out / "oracle_log.csv").exists()
    held.release()
