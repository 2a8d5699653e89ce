"""Scoring a library that was sampled (or scored) with the same objective writes each column once: the
objective's result columns are scored again, the sampling's own columns (NLL, valid) are carried."""

from __future__ import annotations

import csv
from pathlib import Path

from mara_chem.cli import main
from mara_chem.runmodes.scoring import carried_columns, score_columns
from tests.paths import REPO

PRIOR = REPO / "priors" / "moses-gru-2x256.prior"
SCORING = """[scoring]
[[scoring.component]]
[scoring.component.QED]
[[scoring.component.QED.endpoint]]
name = "QED"
[[scoring.component]]
[scoring.component.MolecularWeight]
[[scoring.component.MolecularWeight.endpoint]]
name = "MW"
transform = {type = "double_sigmoid", low = 200, high = 450, coef_div = 450, coef_si = 20, coef_se = 20}
"""


def _header_and_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def test_a_scored_sampling_file_keeps_each_column_once(tmp_path: Path) -> None:
    library, scores = tmp_path / "lib.csv", tmp_path / "scores.csv"
    (tmp_path / "sample.toml").write_text(
        f'run_type = "sampling"\nseed = 0\n[parameters]\nmodel_file = "{PRIOR}"\nnum_smiles = 20\n'
        f'output_file = "{library}"\n' + SCORING)
    (tmp_path / "score.toml").write_text(
        f'run_type = "scoring"\n[parameters]\nsmiles_file = "{library}"\noutput_csv = "{scores}"\n' + SCORING)
    assert main(["run", str(tmp_path / "sample.toml")]) == 0
    assert main(["run", str(tmp_path / "score.toml")]) == 0
    sampled_header, sampled = _header_and_rows(library)
    header, rows = _header_and_rows(scores)
    assert header == ["row", "id", "input_SMILES", "SMILES", "NLL", "valid", *score_columns(["QED", "MW"])]
    assert len(set(header)) == len(header) and not [c for c in header if c.startswith("input_") and c != "input_SMILES"]
    assert [r["NLL"] for r in rows] == [r["NLL"] for r in sampled]  # carried
    assert [r["score"] for r in rows] == [r["score"] for r in sampled]  # the same objective, the same numbers
    assert len(sampled_header) == 3 + len(score_columns(["QED", "MW"]))


def test_another_objectives_results_are_kept_beside_the_new_ones() -> None:
    """A library scored with another objective keeps its score and reason as input_* (they mean something else)."""
    extra = ["NLL", "score", "docking", "docking_raw", "reason"]
    own = ["row", "id", "input_SMILES", "SMILES", *score_columns(["QED"])]
    assert carried_columns(extra, ["QED"], own) == {
        "NLL": "NLL", "score": "input_score", "docking": "docking", "docking_raw": "docking_raw",
        "reason": "input_reason"}
    same = ["NLL", *score_columns(["QED"])]
    assert carried_columns(same, ["QED"], own) == {"NLL": "NLL"}
