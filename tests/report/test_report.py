"""``write_report`` / ``mara-chem report``: one HTML page with table and images, hits.sdf and hits.csv."""

from __future__ import annotations

import json
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
    assert text.count("data:image/png;base64,") == 4  # 4 plots; the hits are a table with SVG structures
    assert '<table class="hits">' in text and text.count("<svg") == 4
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
    assert "No hits" in text and text.count("data:image/png;base64,") == 4 and "<svg" not in text
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


# --- what a chemist chooses by: properties, clusters, novelty, routes, the flags line -----------------------

def test_properties_match_textbook_values() -> None:
    """Ertl TPSA of ethanol 20.23 Å², of acetic acid 37.30; paracetamol 2 donors, 2 acceptors; Fsp3 of
    cyclohexane 1 and of benzene 0; at pH 7.4 a carboxylic acid is an anion and N-methylpiperidine a cation;
    SA score 1 for benzene (the easiest); unparsable SMILES give empty cells."""
    from mara_chem.report.properties import molecule_properties

    p = molecule_properties(["CCO", "CC(=O)Nc1ccc(O)cc1", "C1CCCCC1", "c1ccccc1", "CC(=O)O", "CN1CCCCC1", "x"])
    assert p["TPSA"].tolist()[:1] == pytest.approx([20.23], abs=0.01)
    assert p["TPSA"][4] == pytest.approx(37.30, abs=0.01)
    assert (p["HBD"][1], p["HBA"][1], p["rot_bonds"][1]) == (2, 2, 1)
    assert (p["Fsp3"][2], p["Fsp3"][3]) == (pytest.approx(1.0), pytest.approx(0.0))
    assert p["charge_7.4"].tolist()[:6] == [0, 0, 0, 0, -1, 1]
    assert p["MW"][0] == pytest.approx(46.069, abs=1e-3) and p["SA_score"][3] == pytest.approx(1.0, abs=1e-6)
    assert p["HBD"][6] is None and pd.isna(p["cLogP"][6])


def test_clusters_join_the_most_similar_leader_at_the_chosen_tanimoto() -> None:
    from mara_chem.report.similarity import similarity_clusters

    acid, hexyl, pentyl, naphthalene = "O=C(O)c1ccncc1", "CCCCCCOc1ccccc1", "CCCCCOc1ccccc1", "c1ccc2ccccc2c1"
    assert similarity_clusters([acid, hexyl, pentyl, "x", naphthalene], 0.5) == [1, 2, 2, None, 3]
    assert similarity_clusters([acid, hexyl, pentyl, naphthalene], 0.0) == [1, 1, 1, 1]
    assert similarity_clusters([acid, hexyl, pentyl, naphthalene], 0.99) == [1, 2, 3, 4]  # 0.95 < 0.99


def test_nearest_reference_names_its_file(tmp_path: Path) -> None:
    from mara_chem.chem.known import KnownCompounds
    from mara_chem.report.similarity import nearest_references

    known = KnownCompounds()
    (tmp_path / "series.smi").write_text("SMILES\nCCCCCCOc1ccccc1\n")
    (tmp_path / "drugs.smi").write_text("CC(=O)Nc1ccc(O)cc1\n")
    known.add_file(tmp_path / "series.smi")
    known.add_file(tmp_path / "drugs.smi")
    near = nearest_references(["CCCCCCOc1ccccc1", "CC(=O)Nc1ccc(OC)cc1", "x"], known)
    assert near[0] == (pytest.approx(1.0), "series.smi") and near[1][1] == "drugs.smi" and 0.3 < near[1][0] < 1.0
    assert near[2] == (None, "") and nearest_references(["CCO"], KnownCompounds()) == [(None, "")]


def _scored_table(tmp_path: Path) -> Path:
    """A scoring run's CSV and its record, as ``run_type = "scoring"`` writes them (objective with a series)."""
    series = tmp_path / "series.smi"
    series.write_text("SMILES\nCCCCCCOc1ccccc1\n")
    routes = tmp_path / "routes.jsonl"
    routes.write_text('{"smiles": "Nc1ccc(C#CCCCCCCCCC)cc1", "solved": true, "steps": 2, "n_routes": 1, '
                      '"seconds": 0.5, "route": [], "bloom_only": ["C#CCCCCCCCCC", "Nc1ccc(I)cc1"]}\n'
                      '{"smiles": "CCCCCOc1ccccc1", "solved": false, "steps": null, "n_routes": 0, "seconds": 1.0, '
                      '"route": []}\n')
    csv_path = tmp_path / "scores.csv"
    csv_path.write_text("row,id,input_SMILES,SMILES,score,reason\n1,A,x,Nc1ccc(C#CCCCCCCCCC)cc1,0.9,\n"
                        "2,B,x,CCCCCOc1ccccc1,0.8,\n3,C,x,CCCCCCOc1ccccc1,0.7,\n")
    scoring = {"type": "geometric_mean", "component": [
        {"KnownCompounds": {"endpoint": [{"name": "novel", "params": {"smiles_file": str(series)}}]}},
        {"Retrosynthesis": {"endpoint": [{"name": "route", "params": {"routes_file": str(routes)}}]}}]}
    (tmp_path / "scores.csv.run.json").write_text(json.dumps({"scoring": scoring}))
    return csv_path


def test_table_report_reads_the_objective_beside_the_csv(tmp_path: Path) -> None:
    """The scoring record names the series (checked, its member marked known) and the routes file (route
    length and the Bloom-only blocks per molecule); alert names are joined once, with no spaces."""
    from mara_chem.report.build import write_table_report

    page = write_table_report(_scored_table(tmp_path)).read_text()
    hits = pd.read_csv(tmp_path / "scores_hits.csv", keep_default_na=False).set_index("id")
    assert hits.loc["C", "known_in"] == "series.smi" and hits.loc["A", "known_in"] == ""
    assert float(hits.loc["C", "nearest_known"]) == pytest.approx(1.0) and hits.loc["B", "nearest_known_in"] == "series.smi"
    assert hits.loc["A", "alert_names"] == "Aliphatic_long_chain;aniline;triple_bond"
    assert (hits.loc["A", "route_steps"], hits.loc["B", "route_steps"], hits.loc["C", "route_steps"]) == ("2", "", "")
    assert hits.loc["A", "bloom_only"] == "C#CCCCCCCCCC;Nc1ccc(I)cc1" and hits.loc["B", "bloom_only"] == ""
    assert {"cLogP", "TPSA", "HBD", "HBA", "rot_bonds", "Fsp3", "SA_score", "charge_7.4", "cluster"} <= set(hits.columns)
    assert "1 of them known (in series.smi; shaded), checked against series.smi" in page
    assert 'class="text alerts soft"' in page  # soft alerts only: orange, not red


def test_flags_line_says_which_sets_were_checked(run_dir: Path, tmp_path: Path) -> None:
    """No known hit is not 'no reference set': the line names the file checked, and says so when none was."""
    write_report(run_dir, threshold=0.8, budget=20)
    assert "none checked against a reference set" in (run_dir / "report.html").read_text()
    other = tmp_path / "others.smi"
    other.write_text("c1ccccc1Br\n")
    write_report(run_dir, threshold=0.8, budget=20, known_files=[other])
    text = (run_dir / "report.html").read_text()
    assert "0 of them known" in text and "checked against others.smi" in text and "no reference set" not in text
