"""The oracle log written from another tool's record of its calls (``write_oracle_log``): numbered in order,
read back by the metrics' reader exactly, a failed call kept as spent, and never written over a run's log."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mara_chem.metrics.compute import compute_metrics
from mara_chem.run_folder.oracle_log import OracleLogError, RecordedCall, read_oracle_log, write_oracle_log


def _calls() -> list[RecordedCall]:
    return [RecordedCall("CCO", 0.25, 1, scores={"qed": 0.25}, raw={"qed": 0.4}),
            RecordedCall("c1ccccc1O", 0.9, 1, scores={"qed": 0.9}, raw={"qed": 0.9}),
            RecordedCall("CCN", math.nan, 2, reason="tool: no score"),  # failed: spent, never a hit
            RecordedCall("CC(=O)Nc1ccc(O)cc1", 0.6, 3, scores={"qed": 0.6}, raw={"qed": 0.6})]


def test_rows_are_numbered_in_order_and_read_back(tmp_path: Path) -> None:
    assert write_oracle_log(tmp_path, ["qed"], _calls()) == 4
    log = read_oracle_log(tmp_path)
    assert log.df["call"].tolist() == [1, 2, 3, 4] and log.df["step"].tolist() == [1, 1, 2, 3]
    assert log.df["smiles"].tolist() == ["CCO", "c1ccccc1O", "CCN", "CC(=O)Nc1ccc(O)cc1"]
    scores = log.df["score"].tolist()
    assert scores[0] == pytest.approx(0.25) and math.isnan(scores[2]) and scores[3] == pytest.approx(0.6)
    assert log.df["qed_raw"].tolist()[0] == pytest.approx(0.4)
    assert log.df["reason"].fillna("").tolist() == ["", "", "tool: no score", ""]


def test_metrics_count_a_failed_call_as_spent_and_no_hit(tmp_path: Path) -> None:
    write_oracle_log(tmp_path, ["qed"], _calls())
    metrics = compute_metrics(tmp_path, [0.5, 0.8])
    assert metrics["log"]["n_calls"] == 4
    assert [t["yield"] for t in metrics["thresholds"]] == [2, 1]


def test_an_existing_log_is_refused_untouched(tmp_path: Path) -> None:
    write_oracle_log(tmp_path, ["qed"], _calls()[:1])
    before = (tmp_path / "oracle_log.csv").read_text()
    with pytest.raises(OracleLogError, match="written once"):
        write_oracle_log(tmp_path, ["qed"], _calls())
    assert (tmp_path / "oracle_log.csv").read_text() == before
