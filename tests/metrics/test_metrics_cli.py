"""``compute_metrics`` and ``mara-chem metrics`` on a small synthetic run folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mara_chem.cli import main
from mara_chem.metrics.compute import compute_metrics
from mara_chem.metrics.diversity import int_div1
from mara_chem.metrics.table import format_table

HEADER = "call,step,smiles,score,qed,qed_raw,reason\n"
ROWS = ["1,1,CCO,0.9,0.9,0.4,", "2,1,c1ccccc1O,0.5,0.5,0.5,", "3,1,C1CC,0.95,0.95,0.9,", "4,2,CCO,0.95,0.9,0.4,",
        '5,2,CC(=O)Nc1ccc(O)cc1,,,,"docking failed"', "6,2,OCC,0.99,0.9,0.4,", "7,3,c1ccncc1,0.85,0.85,0.5,",
        "8,3,CC(=O)Nc1ccc(O)cc1,0.92,0.9,0.4,", "9,3,CCN,0.81,0.8,0.4,", "10,4,CCCl,0.99,0.9,0.4,"]


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    (tmp_path / "oracle_log.csv").write_text(HEADER + "".join(r + "\n" for r in ROWS) + "11,4,CC")
    return tmp_path


def test_compute_metrics(run_dir: Path) -> None:
    m = compute_metrics(run_dir, [0.8, 0.95], budget=9)
    low, high = m["thresholds"]
    assert (low["yield"], low["ob_n"], low["n"]) == (3, None, 100)
    assert low["intdiv1"] == pytest.approx(int_div1(["CCO", "c1ccncc1", "CCN"]))
    assert (high["yield"], high["ob_n"], high["intdiv1"], high["n_circles"]) == (0, None, None, 0)
    assert m["budget"] == 9 and m["log"]["n_calls"] == 9 and m["unique_molecules"] == 5
    assert m["fingerprint"] == {"type": "morgan", "radius": 2, "n_bits": 2048,
                                "description": "RDKit Morgan (rdFingerprintGenerator), radius 2, 2048 bits, Tanimoto"}
    assert m["batch_duplicates"]["available"] is False
    text = format_table(m)
    assert "not reached" in text and "radius 2, 2048 bits" in text and "n/a" in text


def test_budget_from_run_json(run_dir: Path) -> None:
    (run_dir / "run.json").write_text(json.dumps({"stage": [{"max_oracle_calls": 6}, {"max_oracle_calls": 5}]}))
    m = compute_metrics(run_dir, [0.8])  # 10 calls spent of 11 (a log beyond its budget is refused: tests/hostile)
    assert (m["budget"], m["budget_source"], m["thresholds"][0]["yield"]) == (11, "run.json", 4)
    (run_dir / "run.json").unlink()
    m = compute_metrics(run_dir, [0.8])
    assert (m["budget"], m["budget_source"], m["thresholds"][0]["yield"]) == (10, "calls in log", 4)


def test_cli_writes_metrics_json(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["metrics", str(run_dir), "--threshold", "0.8", "0.85", "--budget", "10", "--n", "2"]) == 0
    m = json.loads((run_dir / "metrics.json").read_text())
    assert [(t["threshold"], t["yield"], t["ob_n"]) for t in m["thresholds"]] == [(0.8, 4, 7), (0.85, 3, 7)]
    assert m["auc"]["k"] == 10 and 0 < m["auc"]["value"] < 1
    out = capsys.readouterr().out
    assert "OB2" in out and "metrics.json" in out


def test_cli_json_path_and_fingerprint_options(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "elsewhere" / "m.json"
    assert main(["metrics", str(run_dir), "--budget", "10", "--radius", "1", "--bits", "512", "--json", str(out)]) == 0
    m = json.loads(out.read_text())
    assert (m["fingerprint"]["radius"], m["fingerprint"]["n_bits"]) == (1, 512)
    assert not (run_dir / "metrics.json").exists()


def test_cli_missing_log_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["metrics", str(tmp_path)]) == 2
    assert "no oracle log" in capsys.readouterr().err
