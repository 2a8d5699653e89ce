"""Metrics refuse logs no run can write; a SMILES that would crash RDKit is rejected before it is parsed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rdkit import DataStructs
from rdkit.Chem import AllChem

from mara_chem.chem.smiles import MAX_ATOMS, MAX_SMILES_LENGTH, canonicalize, to_mol
from mara_chem.cli import main
from mara_chem.metrics.compute import compute_metrics
from mara_chem.metrics.diversity import FINGERPRINT_PRESETS, int_div1
from mara_chem.run_folder.oracle_log import OracleLogError, read_oracle_log
from tests.paths import REPO

HEADER = "call,step,smiles,score,qed,qed_raw,reason\n"
GOOD = ["1,1,CCO,0.9,0.9,0.4,", "2,1,c1ccccc1O,0.5,0.5,0.5,", "3,1,CCN,,,,failed"]


def _log(tmp: Path, rows: list[str]) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "oracle_log.csv").write_text(HEADER + "".join(r + "\n" for r in rows))
    return tmp


@pytest.mark.parametrize("row,line,expected", [
    ("3,2,CCCl,1.7,0.9,0.4,", 4, "score 1.7 lies outside [0, 1]"),
    ("3,2,CCCl,-0.2,0.9,0.4,", 4, "outside [0, 1]"),
    ("3,2,CCCl,inf,0.9,0.4,", 4, "not a finite number"),
    ("-3,2,CCCl,0.5,0.9,0.4,", 4, "below 1"),
    ("0,2,CCCl,0.5,0.9,0.4,", 4, "below 1"),
])
def test_impossible_rows_name_file_and_line(tmp_path: Path, row: str, line: int, expected: str) -> None:
    run = _log(tmp_path, GOOD[:2] + [row])
    with pytest.raises(OracleLogError, match=rf"oracle_log.csv line {line}: .*{re.escape(expected)}"):
        read_oracle_log(run)


def test_valid_log_with_failed_score_still_reads(tmp_path: Path) -> None:
    assert read_oracle_log(_log(tmp_path, GOOD)).counts()["failed_scores"] == 1


def test_metrics_cli_reports_the_row_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _log(tmp_path, GOOD + ["4,2,CCCl,166,0.9,0.4,"])
    assert main(["metrics", str(run)]) != 0
    err = capsys.readouterr().err
    assert "oracle_log.csv line 5" in err and "166" in err and "Traceback" not in err


@pytest.mark.parametrize("budget", [0, -5])
def test_non_positive_budget_refused(tmp_path: Path, budget: int) -> None:
    run = _log(tmp_path, GOOD)
    with pytest.raises(ValueError, match="budget"):
        compute_metrics(run, [0.8], budget=budget)
    (run / "run.json").write_text(json.dumps({"stage": [{"max_oracle_calls": budget}]}))
    with pytest.raises(ValueError, match="run.json: stage 0 max_oracle_calls"):
        compute_metrics(run, [0.8])


def test_huge_chain_is_rejected_without_crashing() -> None:
    """A 20,000-atom chain segfaults RDKit's SMILES writer; run in a child so a regression fails, not crashes."""
    code = ("from mara_chem.chem.smiles import canonicalize, to_mol\n"
            "import mara_chem.scoring.components\n"
            "from mara_chem.scoring.component import build_component\n"
            "from mara_chem.run_folder.oracle_log import unique_molecules\n"
            "s = 'C' * 20000\n"
            "assert to_mol(s) is None and canonicalize(s) is None\n"
            "r = build_component('QED')([s, 'CCO'])\n"
            "assert r.reasons[0] and r.values[1] > 0\n"
            "assert [m.smiles for m in unique_molecules([1, 2], [s, 'CCO'], [0.5, 0.5])] == ['CCO']\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=None, cwd=REPO)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


#: sampled by the ZINC prior on amlodipine_mpo: RDKit reads this spelling, but not its own canonical SMILES of it
#: ("Can't kekulize mol"), so every oracle and fingerprint downstream would fail on the canonical form
READ_BUT_NOT_READ_BACK = "COC(=O)C1=c2ccn(C(=O)COc3ccccc3Cl)=C2[C@@H](c2ccccc2Cl)C=C1C(=O)OCCOC"


def test_a_molecule_whose_canonical_smiles_rdkit_cannot_read_back_is_invalid() -> None:
    assert to_mol(READ_BUT_NOT_READ_BACK) is not None
    assert canonicalize(READ_BUT_NOT_READ_BACK) is None
    assert canonicalize(READ_BUT_NOT_READ_BACK, isomeric=False) is None
    assert canonicalize("C1=CC=CC=C1O") == "Oc1ccccc1" == canonicalize("Oc1ccccc1")


def test_guard_leaves_ordinary_large_molecules_alone() -> None:
    cyclosporin = ("CC[C@H]1C(=O)N(CC(=O)N([C@H](C(=O)N[C@H](C(=O)N([C@H](C(=O)N[C@H](C(=O)N[C@@H](C(=O)N([C@H]"
                   "(C(=O)N([C@H](C(=O)N([C@H](C(=O)N([C@H](C(=O)N1)[C@@H]([C@H](C)C/C=C/C)O)C)C(C)C)C)CC(C)C)C)"
                   "CC(C)C)C)C)C)CC(C)C)C)C(C)C)CC(C)C)C)C")
    assert canonicalize(cyclosporin) is not None
    assert to_mol("C" * MAX_ATOMS) is not None and to_mol("C" * (MAX_ATOMS + 1)) is None
    assert to_mol("[CH3]" + "[CH2]" * (MAX_SMILES_LENGTH // 5)) is None  # too long, refused before parsing


def test_moses_preset_is_morgan_r2_1024_bits() -> None:
    smiles = ["CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "CCN(CC)CC", "c1ccncc1"]
    fps = [AllChem.GetMorganFingerprintAsBitVect(to_mol(s), 2, nBits=1024) for s in smiles]
    n = len(fps)
    expected = 1 - sum(DataStructs.TanimotoSimilarity(a, b) for a in fps for b in fps) / n**2
    assert int_div1(smiles, FINGERPRINT_PRESETS["moses"]) == pytest.approx(expected, abs=1e-12)
    assert int_div1(smiles, FINGERPRINT_PRESETS["default"]) != pytest.approx(expected, abs=1e-6)


def test_metrics_cli_moses_preset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _log(tmp_path, GOOD)
    assert main(["metrics", str(run), "--fingerprint", "moses", "--threshold", "0.4"]) == 0
    fp = json.loads((run / "metrics.json").read_text())["fingerprint"]
    assert (fp["radius"], fp["n_bits"]) == (2, 1024)
