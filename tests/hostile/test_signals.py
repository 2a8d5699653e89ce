"""A second Ctrl-C stops the run at once and never becomes a molecule's score.

The second SIGINT's handler raises ``RunInterrupted`` wherever the main thread is; before the fix it subclassed
``Exception``, so when it landed inside a scoring component, the component's per-molecule guard turned it into
that molecule's failed score, which the oracle log (the cache) kept for good. The unit tests raise it from
inside a real QED component, as the handler would; the slow stress test sends real double SIGINTs at random
moments to `mara-chem run` and re-scores every logged molecule.
"""

from __future__ import annotations

import copy
import csv
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from tests.hostile.conftest import QED, REPO, staged, to_toml

from mara_chem.run_folder.oracle_log import OracleLog
from mara_chem.rl.loop import RunInterrupted
from mara_chem.rl.oracle import Oracle
from mara_chem.scoring.scorer import Scorer
from mara_chem.scoring.spec import ScoringSpec


def test_run_interrupted_is_not_an_exception() -> None:
    """``except Exception`` (components, guacamol's scoring functions) must let it through."""
    assert not isinstance(RunInterrupted("SIGINT", 0), Exception)
    assert isinstance(RunInterrupted("SIGINT", 0), BaseException)


def _interrupting_scorer(after: int) -> Scorer:
    """A real QED scorer whose component is interrupted (as by the signal handler) at its ``after``-th molecule."""
    scorer = Scorer(ScoringSpec(**copy.deepcopy(QED)))
    component = scorer.endpoints[0].component
    real = component.score_mol
    seen = [0]

    def score_mol(mol):
        seen[0] += 1
        if seen[0] > after:
            raise RunInterrupted("SIGINT", 0)
        return real(mol)

    component.score_mol = score_mol
    return scorer


def test_an_interrupt_inside_a_component_is_not_a_failed_score() -> None:
    scorer = _interrupting_scorer(after=1)
    with pytest.raises(RunInterrupted):
        scorer(["CCO", "c1ccccc1O", "CCN"])


def test_an_interrupt_inside_scoring_logs_nothing_of_that_batch(tmp_path: Path) -> None:
    log = OracleLog(tmp_path / "oracle_log.csv", ["QED"])
    oracle = Oracle(Scorer(ScoringSpec(**copy.deepcopy(QED))), log, stage=1, budget=None)
    oracle.score(["CCO", "CCN"], step=1)
    before = log.path.read_bytes()
    oracle.scorer = _interrupting_scorer(after=2)
    with pytest.raises(RunInterrupted):
        oracle.score(["c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "c1ccncc1"], step=2)
    assert log.path.read_bytes() == before  # no row of the interrupted batch, and no false "failed" score


# --- the stress test ------------------------------------------------------------------------------------------
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO)}


def _logged(run: Path) -> list[dict[str, str]]:
    path = run / "oracle_log.csv"
    if not path.exists():
        return []
    text = path.read_text()
    return list(csv.DictReader(text[: text.rfind("\n") + 1].splitlines()))


def _double_sigint(tmp: Path, rng: random.Random) -> tuple[int, list[dict[str, str]]]:
    tmp.mkdir(parents=True)
    run = tmp / "run"
    cfg = staged(run, steps=400, budget=None, batch=32)
    toml = tmp / "run.toml"
    toml.write_text(to_toml(cfg))
    proc = subprocess.Popen([sys.executable, "-m", "mara_chem.cli", "run", str(toml)], env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while len(_logged(run)) < 32 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.02)
    time.sleep(rng.uniform(0.0, 0.5))  # anywhere in a step: sampling, scoring, the update, the summary
    proc.send_signal(signal.SIGINT)
    time.sleep(rng.uniform(0.0, 0.08))
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert "Traceback" not in err, err[-2000:]
    assert proc.returncode == 128 + signal.SIGINT.value, err[-2000:]
    return proc.returncode, _logged(run)


@pytest.mark.slow
def test_double_sigint_never_logs_a_false_score(tmp_path: Path) -> None:
    """40 runs, each stopped by two SIGINTs at random moments: every logged score is the molecule's true QED."""
    rng = random.Random(23)
    attempts, rows_checked = 40, 0
    scorer = Scorer(ScoringSpec(**copy.deepcopy(QED)))
    for attempt in range(attempts):
        _, rows = _double_sigint(tmp_path / f"a{attempt}", rng)
        assert [int(r["call"]) for r in rows] == list(range(1, len(rows) + 1))
        assert all(r["reason"] == "" for r in rows), [r for r in rows if r["reason"]]
        true = scorer([r["smiles"] for r in rows]).total
        assert np.array_equal(np.array([float(r["score"]) for r in rows]), true)
        rows_checked += len(rows)
    print(f"\n{attempts} double-SIGINT runs, {rows_checked} logged calls re-scored: 0 false scores")
