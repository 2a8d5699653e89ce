"""``write_report`` / ``mara-chem report``: one HTML page with table and images, hits.sdf and hits.csv."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from rdkit import Chem

from mara_chem.cli import main
from mara_chem.run_folder.oracle_log import read_oracle_log
from mara_chem.report import circles_curve, hits_curve, score_per_step, write_report

HEADER = "call,step,smiles,score,qed,qed_raw,reason\n"
ROWS = ["1,1,CCO,0.9,0.9,0.4,", "2,1,c1ccccc1O,0.5,0.5,0.5,", "3,1,C1CC,0.95,0.95,0.9,", "4,2,CCO,0.95,0.9,0.4,",
        '5,2,CC(=O)Nc1ccc(O)cc1,,,,"docking failed"', "6,2,OCC,0.99,0.9,0.4,", "7,3,c1ccncc1,0.85,0.85,0.5,",
        "8,3,CC(=O)Nc1ccc(O)cc1,0.92,0.9,0.4,", "9,3,CCN,0.81,0.8,0.4,", "10,4,CCCl,0.99,0.9,0.4,"]
SUMMARY = "Agent,Prior,Target,Score,SMILES,SMILES_state,Scaffold,QED,step\n" + "".join(
    f"-1,-1,-1,0.5,CCO,{s},,0.5,{step}\n" for step, s in [(1, 1), (1, 2), (2, 1), (2, 1)])


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    (tmp_path / "oracle_log.csv").write_text(HEADER + "".join(r + "\n" for r in ROWS))
    (tmp_path / "summary_1.csv").write_text(SUMMARY)
    return tmp_path


def _sdf(path: Path) -> list[Chem.Mol]:
    if path.stat().st_size == 0:  # an SDF with no records is an empty file
        return []
    return [m for m in Chem.SDMolSupplier(str(path)) if m is not None]


def test_write_report(run_dir: Path) -> None:
    page = write_report(run_dir, threshold=0.8, budget=20)
    assert page == run_dir / "report.html"
    text = page.read_text()
    assert '<table class="metrics">' in text and "<td>4</td>" in text  # Yield 4 at τ 0.8
    assert text.count("data:image/png;base64,") == 5  # 4 plots + the hit grid
    assert "radius 2, 2048 bits" in text and "mean 0.250" in text
    mols = _sdf(run_dir / "hits.sdf")
    assert len(mols) == 4
    assert [m.GetDoubleProp("score") for m in mols] == [0.99, 0.9, 0.85, 0.81]
    assert mols[0].GetIntProp("call") == 10 and mols[0].GetProp("_Name") == "CCCl"
    csv = pd.read_csv(run_dir / "hits.csv")
    assert csv["smiles"].tolist() == ["CCCl", "CCO", "c1ccncc1", "CCN"]
    assert {"qed", "qed_raw", "scaffold"} <= set(csv.columns)


def test_report_cli_without_hits(run_dir: Path) -> None:
    assert main(["report", str(run_dir), "--threshold", "1.0", "--budget", "20"]) == 0
    text = (run_dir / "report.html").read_text()
    assert "No hits" in text and text.count("data:image/png;base64,") == 4
    assert _sdf(run_dir / "hits.sdf") == []


def test_report_cli_budget_and_top(run_dir: Path) -> None:
    assert main(["report", str(run_dir), "--threshold", "0.8", "--budget", "8", "--top", "1"]) == 0
    assert [m.GetProp("_Name") for m in _sdf(run_dir / "hits.sdf")] == ["CCO", "c1ccncc1"]


def test_hits_and_circles_curves(run_dir: Path) -> None:
    log = read_oracle_log(run_dir)
    calls, n_hits = hits_curve(log, 0.8, budget=10, points=10)
    assert calls.tolist() == list(range(11))
    assert n_hits.tolist() == [0, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4]
    assert hits_curve(log.df, 0.8, budget=8, points=4)[1].tolist() == [0, 1, 1, 1, 2]
    c_calls, circles = circles_curve(log, 0.8, budget=10, points=10)
    assert c_calls.tolist() == list(range(11)) and circles[0] == 0 and circles[1] == 1
    from mara_chem.metrics.compute import compute_metrics

    assert circles[-1] == compute_metrics(run_dir, [0.8], 10)["thresholds"][0]["n_circles"]


def test_score_per_step(run_dir: Path) -> None:
    per_step = score_per_step(read_oracle_log(run_dir))
    assert per_step["step"].tolist() == [1, 2, 3, 4]
    assert per_step["best"].tolist() == [0.95, 0.99, 0.92, 0.99]
    assert per_step["mean"].tolist() == pytest.approx([(0.9 + 0.5 + 0.95) / 3, (0.95 + 0.99) / 2,
                                                       (0.85 + 0.92 + 0.81) / 3, 0.99])
