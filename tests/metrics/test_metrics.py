"""Oracle-log reading, Yield, OB_N, PMO AUC top-k and collapse diagnostics against hand-computed values."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mara_chem.metrics.auc import top_k_auc, top_k_mean
from mara_chem.metrics.collapse import batch_duplicates, duplicate_fraction, scaffold_stats
from mara_chem.run_folder.oracle_log import LoggedMolecule, read_oracle_log, unique_molecules
from mara_chem.metrics.yield_ob import hits, oracle_burden, yield_count

HEADER = "call,step,smiles,score,qed,qed_raw,reason\n"
# Hits at τ = 0.8, counted once at the first call: CCO@1 (0.9), pyridine@7, CCN@9, CCCl@10.
ROWS = [
    "1,1,CCO,0.9,0.9,0.4,",
    "2,1,c1ccccc1O,0.5,0.5,0.5,",
    "3,1,C1CC,0.95,0.95,0.9,",                      # invalid SMILES (unclosed ring): skipped, still a call
    "4,2,CCO,0.95,0.9,0.4,",                        # repeat of call 1: ignored
    '5,2,CC(=O)Nc1ccc(O)cc1,,,,"docking failed, timeout"',  # failed score: a call, never a hit
    "6,2,OCC,0.99,0.9,0.4,",                        # ethanol again, non-canonical: ignored
    "7,3,c1ccncc1,0.85,0.85,0.5,",
    "8,3,CC(=O)Nc1ccc(O)cc1,0.92,0.9,0.4,",         # repeat of the failed call 5: first call rules
    "9,3,CCN,0.81,0.8,0.4,",
    "10,4,CCCl,0.99,0.9,0.4,",
]
PARTIAL = "11,4,CCC"  # a line the writer had not finished


def write_log(run_dir: Path, rows: list[str] = ROWS, partial: str = PARTIAL) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "oracle_log.csv").write_text(HEADER + "".join(r + "\n" for r in rows) + partial)
    return run_dir


@pytest.fixture
def molecules(tmp_path: Path) -> list[LoggedMolecule]:
    return read_oracle_log(write_log(tmp_path)).molecules()


def test_reader_drops_partial_line_and_counts_skips(tmp_path: Path) -> None:
    log = read_oracle_log(write_log(tmp_path))
    assert log.counts() == {"rows": 10, "n_calls": 10, "invalid_smiles": 1, "duplicates": 3,
                            "failed_scores": 1, "dropped_lines": 1}
    assert log.endpoints == ["qed"]
    assert log.counts(budget=5) == {"rows": 5, "n_calls": 5, "invalid_smiles": 1, "duplicates": 1,
                                    "failed_scores": 1, "dropped_lines": 1}


def test_reader_keeps_complete_last_line(tmp_path: Path) -> None:
    log = read_oracle_log(write_log(tmp_path, partial=""))
    assert log.n_rows == 10 and log.n_dropped_lines == 0


def test_unique_molecules_first_call_and_score(molecules: list[LoggedMolecule]) -> None:
    assert [(m.call, m.smiles) for m in molecules] == [
        (1, "CCO"), (2, "Oc1ccccc1"), (5, "CC(=O)Nc1ccc(O)cc1"), (7, "c1ccncc1"), (9, "CCN"), (10, "CCCl")]
    assert molecules[0].score == 0.9 and molecules[0].step == 1
    assert math.isnan(molecules[2].score)


def test_unique_molecules_pure_lists() -> None:
    mols = unique_molecules([3, 1, 2, 4], ["OCC", "CCO", "xx", "CCN"], [0.1, 0.7, 0.9, float("nan")], budget=3)
    assert [(m.call, m.smiles, m.score) for m in mols] == [(1, "CCO", 0.7)]


def test_yield_and_ob(molecules: list[LoggedMolecule]) -> None:
    assert yield_count(molecules, 0.8) == 4
    assert [oracle_burden(molecules, 0.8, n) for n in (1, 2, 3, 4, 5)] == [1, 7, 9, 10, None]
    assert [m.smiles for m in hits(molecules, 0.8)] == ["CCO", "c1ccncc1", "CCN", "CCCl"]


def test_yield_counts_duplicates_at_first_call_only(molecules: list[LoggedMolecule]) -> None:
    # CCO scored 0.95 and 0.99 on repeats, paracetamol 0.92 after failing: neither counts at τ = 0.92.
    assert [m.smiles for m in hits(molecules, 0.92)] == ["CCCl"]


def test_budget_cut_off(molecules: list[LoggedMolecule]) -> None:
    assert yield_count(molecules, 0.8, budget=9) == 3
    assert oracle_burden(molecules, 0.8, 3, budget=9) == 9
    assert yield_count(molecules, 0.8, budget=8) == 2
    assert oracle_burden(molecules, 0.8, 3, budget=8) is None


def test_no_hits(molecules: list[LoggedMolecule]) -> None:
    assert yield_count(molecules, 1.0) == 0
    assert oracle_burden(molecules, 1.0, 1) is None
    assert yield_count([], 0.5) == 0


def test_nan_is_never_a_hit() -> None:
    mols = [LoggedMolecule(1, 0, "CCO", float("nan")), LoggedMolecule(2, 0, "CCN", 0.0)]
    assert yield_count(mols, 0.0) == 1
    assert oracle_burden(mols, 0.0, 1) == 2


def _mols(scores: list[float]) -> list[LoggedMolecule]:
    return [LoggedMolecule(i + 1, 0, f"m{i}", s) for i, s in enumerate(scores)]


def test_auc_hand_computed() -> None:
    # freq 2, k 2, budget 6: top-2 means 0.4 at call 2, 0.7 at call 4, held flat to call 6.
    # area = 2*(0+0.4)/2 + 2*(0.4+0.7)/2 + 2*0.7 = 2.9
    mols = _mols([0.2, 0.6, 0.4, 0.8])
    assert top_k_auc(mols, budget=6, k=2, freq=2) == pytest.approx(2.9 / 6)
    assert top_k_auc(mols, budget=6, k=2, freq=2, finish=False) == pytest.approx(1.5 / 6)


def test_auc_top10_default_frequency() -> None:
    # 250 calls, score = call/250; top-10 mean 0.382 @100, 0.782 @200, 0.982 @250 (partial), flat to 1000.
    mols = _mols([(i + 1) / 250 for i in range(250)])
    expected = (100 * 0.382 / 2 + 100 * (0.382 + 0.782) / 2 + 50 * (0.782 + 0.982) / 2 + 750 * 0.982) / 1000
    assert top_k_auc(mols, budget=1000) == pytest.approx(expected)


def test_auc_matches_trapezoid_reference_and_ignores_nan() -> None:
    rng = np.random.default_rng(1)
    scores = rng.random(537).tolist()
    scores[5] = float("nan")
    spent, budget = 537, 800
    xs = list(range(0, spent, 100)) + [spent, budget]
    finite = [s if not math.isnan(s) else -1.0 for s in scores]
    ys = [0.0] + [np.mean(sorted(finite[:x], reverse=True)[:10]) for x in xs[1:-1]]
    ys.append(ys[-1])
    assert top_k_auc(_mols(scores), budget=budget) == pytest.approx(np.trapezoid(ys, xs) / budget)


def test_auc_n_calls_counts_calls_without_molecules() -> None:
    # 4 molecules but 10 calls spent (invalid/repeats): the curve is flat from call 4 to 10 then to the budget.
    mols = _mols([0.2, 0.6, 0.4, 0.8])
    with_calls = top_k_auc(mols, budget=10, n_calls=10, k=2, freq=100)
    assert with_calls == pytest.approx(10 * 0.7 / 2 / 10)  # one trapezoid 0 -> 0.7 over 10 calls, no flat part
    assert top_k_auc([], budget=10) == 0.0


def test_top_k_mean() -> None:
    assert top_k_mean([0.1, float("nan"), 0.5], k=10) == pytest.approx(0.3)
    assert top_k_mean([], k=10) == 0.0


def test_auc_from_log(molecules: list[LoggedMolecule]) -> None:
    # finite scores 0.9, 0.5, 0.85, 0.81, 0.99 (mean 0.81) after 10 calls, flat to 20.
    assert top_k_auc(molecules, budget=20, n_calls=10) == pytest.approx((10 * 0.81 / 2 + 10 * 0.81) / 20)


def test_scaffold_stats() -> None:
    stats = scaffold_stats(["c1ccccc1O", "Nc1ccccc1", "CCO", "c1ccncc1"])
    assert stats == {"n_scaffolds": 3, "top_scaffold": "c1ccccc1", "top_scaffold_count": 2,
                     "top_scaffold_share": 0.5}
    assert scaffold_stats([])["top_scaffold_share"] is None


SUMMARY_HEADER = "Agent,Prior,Target,Score,SMILES,SMILES_state,Scaffold,QED,step\n"


def _summary(states_by_step: dict[int, list[int]], partial: str = "") -> str:
    rows = [f"-1,-1,-1,0.5,CCO,{s},,0.5,{step}\n" for step, states in states_by_step.items() for s in states]
    return SUMMARY_HEADER + "".join(rows) + partial


def test_batch_duplicates(tmp_path: Path) -> None:
    assert duplicate_fraction([1, 1, 2, 0]) == 0.25
    assert batch_duplicates(tmp_path)["available"] is False
    (tmp_path / "summary_1.csv").write_text(_summary({1: [1, 1, 2, 0], 2: [2, 2, 1, 1]}))
    (tmp_path / "summary_2.csv").write_text(_summary({1: [1, 1, 1, 1]}, partial="-1,-1,-1,0.5,CC"))
    dup = batch_duplicates(tmp_path)
    assert dup["available"] is True
    assert [(d["stage"], d["step"], d["fraction"]) for d in dup["per_step"]] == [(1, 1, 0.25), (1, 2, 0.5), (2, 1, 0.0)]
    assert dup["mean"] == pytest.approx(0.25) and dup["last"] == 0.0 and dup["max"] == 0.5


def test_reads_the_rl_loop_log_format(tmp_path: Path) -> None:
    """Contract with mara_chem.rl.oracle.OracleLog (adds a ``stage`` column; NaN written as '')."""
    rl_oracle = pytest.importorskip("mara_chem.rl.oracle")
    writer = rl_oracle.OracleLog(tmp_path / "oracle_log.csv", ["qed"])
    row = {"qed": "0.5", "qed_raw": "0.5", "reason": ""}
    writer.append([{**row, "call": 1, "step": 0, "stage": 1, "smiles": "CCO", "score": "0.9"},
                   {**row, "call": 2, "step": 0, "stage": 1, "smiles": "CCN", "score": "", "reason": "failed"},
                   {**row, "call": 3, "step": 1, "stage": 2, "smiles": "c1ccncc1", "score": "0.85"}])
    log = read_oracle_log(tmp_path)
    assert log.endpoints == ["qed"] and log.df["stage"].tolist() == [1, 1, 2]
    mols = log.molecules()
    assert [(m.call, m.smiles) for m in mols] == [(1, "CCO"), (2, "CCN"), (3, "c1ccncc1")]
    assert oracle_burden(mols, 0.8, 2) == 3 and math.isnan(mols[1].score)
