"""The REINVENT 4.8 peer (``benchlab.peers.reinvent``): REINVENT's summary CSV becomes mara-chem's oracle
log with PMO's count (first occurrences of valid canonical SMILES, up to the budget), and a real short
REINVENT 4.8 run's log is read by ``mara-chem metrics``."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from benchlab.peers import peer_run
from benchlab.peers import reinvent as reinvent_peer

from mara_chem.run_folder.oracle_log import read_oracle_log

pytest.importorskip("guacamol", reason="the PMO tasks score with guacamol (scripts/setup_venv.sh test installs it)")

HEADER = ["Agent", "Prior", "Target", "Score", "SMILES", "SMILES_state", "qed", "qed (raw)", "step"]


def _summary(path: Path, rows: list[tuple[str, str, str, int]]) -> Path:
    """A summary CSV in REINVENT 4.8's layout (reinvent/runmodes/RL/reports/csv_summmary.py)."""
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        for smiles, state, score, step in rows:
            writer.writerow(["20.0", "20.0", "-20.0", score, smiles, state, score, score[:6], step])
    return path


def test_conversion_counts_first_valid_occurrences_up_to_the_budget(tmp_path: Path) -> None:
    path = _summary(tmp_path / "s_1.csv", [
        ("CCO", "1", "0.4000000", 1), ("C1CC", "0", "0.0000000", 1), ("CCO", "2", "0.0000000", 1),
        ("OCC", "1", "0.4000000", 2),  # the same molecule, another spelling, a later step: free
        ("c1ccccc1", "1", "0.4426175", 2), ("CCN", "1", "0.3500000", 2), ("CCC", "1", "0.3000000", 3)])
    counted = reinvent_peer.FirstOccurrences()
    counted.add(reinvent_peer.SummaryReader(path).new_rows())
    assert [s for s, _ in counted.calls] == ["CCO", "c1ccccc1", "CCN", "CCC"]
    task = peer_run.resolve_task("qed")
    assert reinvent_peer.write_oracle_log(task, counted.calls, tmp_path, budget=3) == 3
    log = read_oracle_log(tmp_path)
    assert log.df["smiles"].tolist() == ["CCO", "c1ccccc1", "CCN"]
    assert log.df["call"].tolist() == [1, 2, 3] and log.df["step"].tolist() == [1, 2, 2]
    assert log.df["score"].tolist() == [0.4, 0.4426175, 0.35]


def test_a_task_with_several_endpoints_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with pytest.raises(peer_run.PeerError, match="runs single-endpoint tasks"):
        reinvent_peer.run_reinvent("ref_neighbourhoods", out, 100, 0, "pmo", "moses-gru-2x256")
    assert not out.exists()


def test_reader_keeps_a_torn_last_line_for_later(tmp_path: Path) -> None:
    path = _summary(tmp_path / "s_1.csv", [("CCO", "1", "0.4000000", 1)])
    with open(path, "a") as handle:
        handle.write("20.0,20.0,-20.0,0.3,CC")  # REINVENT still writing this row
    reader = reinvent_peer.SummaryReader(path)
    assert [r["SMILES"] for r in reader.new_rows()] == ["CCO"]
    with open(path, "a") as handle:
        handle.write("N,1,0.3,0.3,1\n")
    assert [r["SMILES"] for r in reader.new_rows()] == ["CCN"]


@pytest.fixture(scope="module")
def reinvent_run(reinvent_rl, tmp_path_factory) -> Path:
    """A real REINVENT 4.8 run, PMO's preset, 100 oracle calls (two steps of 64) on the bundled prior; ``--out``
    is relative, as the benchmark scripts give it (REINVENT runs in that folder)."""
    base = tmp_path_factory.mktemp("reinvent")
    here = os.getcwd()
    os.chdir(base)
    try:
        assert reinvent_peer.main(["--task", "qed", "--preset", "pmo", "--budget", "100", "--seed", "1",
                                   "--out", "run"]) == 0
    finally:
        os.chdir(here)
    return base / "run"


def test_reinvent_run_is_stopped_on_the_budget_and_converted(reinvent_run: Path) -> None:
    record = json.loads((reinvent_run / peer_run.RECORD_NAME).read_text())
    assert record["version"].startswith("REINVENT 4.8") and record["stop_reason"] == "oracle budget"
    assert record["settings"]["sigma"] == 500 and record["settings"]["inception"]["sample_size"] == 24
    assert "Requested to terminate" in (reinvent_run / "reinvent.log").read_text()  # REINVENT's controlled stop
    log = read_oracle_log(reinvent_run)
    assert log.df["call"].tolist() == list(range(1, 101)) and log.df["smiles"].is_unique
    rows = list(csv.DictReader(open(reinvent_run / f"{reinvent_peer.SUMMARY_PREFIX}_1.csv")))
    counted = reinvent_peer.FirstOccurrences()
    counted.add(rows)
    assert len(counted.calls) > 100  # REINVENT sampled past the budget; the log stops at it
    assert log.df["smiles"].tolist() == [s for s, _ in counted.calls[:100]]
    assert log.df["score"].tolist() == [float(r["qed"]) for _, r in counted.calls[:100]]


def test_converted_prior_gives_reinvent_the_priors_own_likelihoods(reinvent_run: Path, moses_sample, tmp_path) -> None:
    """REINVENT sums its NLL over the padding after ``$`` of a mixed-length batch: with the peer's prior (``$``
    after ``$`` made near-certain) most rows keep the prior's own NLL, with the plain conversion few do."""
    import torch
    from reinvent.runmodes.create_adapter import create_adapter

    from mara_chem.models.prior_file import load_prior
    from mara_chem.models.reinvent_prior import save_reinvent_prior

    mara = load_prior("moses-gru-2x256")
    smiles = moses_sample[:64]  # lengths differ: REINVENT pads every row to the longest
    with torch.no_grad():
        own = mara.log_likelihood(smiles)
    gaps = {}
    for name, path in (("peer", reinvent_run / "prior.reinvent"),
                       ("plain", save_reinvent_prior(mara, tmp_path / "plain.prior"))):
        adapter, _, _ = create_adapter(str(path), "inference", torch.device("cpu"))
        with torch.no_grad():
            gaps[name] = (-adapter.model.likelihood_smiles(smiles).float() - own).abs()
    # not exact: the fitted $ embedding leaves a few end states whose padding still costs nats (docs/measurements.md, "Side by side with REINVENT 4.8")
    assert float((gaps["peer"] < 0.5).float().mean()) >= 0.9 and float(gaps["peer"].mean()) < 0.5
    assert float(gaps["plain"].mean()) > 5.0 and float((gaps["plain"] < 0.5).float().mean()) < 0.5


def test_mara_chem_metrics_reads_reinvents_log(reinvent_run: Path) -> None:
    from mara_chem.cli import main

    assert main(["metrics", str(reinvent_run), "--threshold", "0.8", "0.9", "--budget", "100",
                 "--json", str(reinvent_run / "m.json")]) == 0
    metrics = json.loads((reinvent_run / "m.json").read_text())
    scores = read_oracle_log(reinvent_run).df["score"]
    assert metrics["log"]["n_calls"] == 100 and metrics["unique_molecules"] == 100
    assert metrics["thresholds"][0]["yield"] == int((scores >= 0.8).sum())
    assert 0 < metrics["auc"]["value"] <= scores.max()


def _calls(steps: list[list[float]]) -> reinvent_peer.FirstOccurrences:
    """First occurrences with the given scores per step (step k's molecules are new, named by a counter)."""
    counted, n = reinvent_peer.FirstOccurrences(), 0
    for step, scores in enumerate(steps, start=1):
        for score in scores:
            n += 1
            counted.calls.append((f"C{n}", {"qed": f"{score:.7f}", "step": str(step)}))
    return counted


def test_patience_counts_steps_that_leave_the_top_100_unchanged() -> None:
    """PMO's convergence stop: 110 molecules at step 1, then steps whose molecules are all worse than the
    100th best leave the top 100 unchanged; a step with one better molecule resets the count."""
    first = [0.5] * 110
    worse, better = [0.1, 0.2], [0.9]
    counted = _calls([first, worse, worse, better, worse, worse, worse, [], worse])
    patience = reinvent_peer.TopPatience(3, "qed")
    assert not patience.exhausted(counted, latest_step=2)  # step 1 judged: the first top 100
    assert not patience.exhausted(counted, latest_step=4)  # steps 2-3 unchanged: 2 of 3
    assert patience.unchanged == 2
    assert not patience.exhausted(counted, latest_step=6)  # step 4 changes the top 100, step 5 unchanged
    assert patience.unchanged == 1
    assert not patience.exhausted(counted, latest_step=7)  # step 6
    assert patience.exhausted(counted, latest_step=8)  # step 7: 3 in a row
    assert reinvent_peer.TopPatience(3, "qed").exhausted(counted, latest_step=10)  # judged all at once: the same
    assert not reinvent_peer.TopPatience(0, "qed").exhausted(counted, latest_step=10)  # 0: off


def test_patience_waits_for_more_than_100_molecules() -> None:
    """Before 100 molecules are scored the top 100 cannot be judged (mol_opt: ``len(self.oracle) > 100``)."""
    counted = _calls([[0.5] * 10] + [[] for _ in range(8)])
    assert not reinvent_peer.TopPatience(3, "qed").exhausted(counted, latest_step=9)
