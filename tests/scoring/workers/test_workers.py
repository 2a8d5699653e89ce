"""The machinery every expensive oracle shares (mara_chem/scoring/workers): one executor family typed by the
worker's settings and outcome, one outcome cache, and the caches earlier versions wrote still read.

The worker is the example plugin's (examples/mara_chem_example_plugin/conformer_worker.py): lowest MMFF94
energy over ETKDG conformers, a real computed job, so a third oracle plugs in without a new pool or cache.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
import time
from pathlib import Path

import pytest

from mara_chem.scoring.workers.cache import OutcomeCache, json_fields
from mara_chem.scoring.workers.executors import build_executor, map_with_cache
from tests.paths import EXAMPLE_PLUGIN

sys.path.insert(0, str(EXAMPLE_PLUGIN))
from mara_chem_example_plugin.conformer_worker import (  # noqa: E402
    ConformerEnergyWorker,
    ConformerOutcome,
    ConformerSettings,
    conformer_cache,
)

SETTINGS = ConformerSettings(n_conformers=3, seed=11)
MOLECULES = ["CCO", "CC(=O)Nc1ccc(O)cc1", "not a smiles", "[Se]"]  # [Se]: RDKit parses it, MMFF has no type
#: 40 heavy atoms, 30 rotatable bonds: 20 conformers take seconds, long enough to kill its worker mid-job
FLEXIBLE = "CCCCCCCCCCCCCCCCC(=O)OCC(COC(=O)CCCCCCC)OC(=O)CCCCC"


def _serial(**options):
    return build_executor("serial", SETTINGS, worker_cls=ConformerEnergyWorker, **options)


def test_the_serial_executor_runs_the_worker_and_its_failures_are_its_own_outcomes():
    with _serial() as executor:
        ethanol, paracetamol, bad, selenium = executor.map(MOLECULES)
    direct = ConformerEnergyWorker(SETTINGS).run("CCO")
    assert ethanol.energy == direct.energy and ethanol.energy is not None  # the executor adds nothing
    assert paracetamol.energy is not None and paracetamol.energy != ethanol.energy
    assert bad.reason == "invalid SMILES" and bad.energy is None and bad.cacheable
    assert selenium.reason == "no MMFF94 parameters" and selenium.cacheable
    with _serial(timeout_s=1e-9) as executor:  # every molecule overruns: the worker's own failure type
        (late,) = executor.map(["CCO"])
    assert type(late) is ConformerOutcome and late.reason == "timeout after 1e-09 CPU s" and not late.cacheable


def test_the_pool_agrees_with_serial_and_a_dead_worker_costs_one_molecule():
    settings = ConformerSettings(n_conformers=20, seed=11)  # FLEXIBLE takes ~10 s here: killed well before
    with build_executor("serial", settings, worker_cls=ConformerEnergyWorker) as serial:
        expected = [o.energy for o in serial.map(MOLECULES[:2])]
    with build_executor("pool", settings, n_workers=1, timeout_s=120.0, worker_cls=ConformerEnergyWorker) as pool:
        assert [o.energy for o in pool.map(MOLECULES[:2])] == expected  # same seed: identical
        (worker,) = pool._state
        threading.Timer(0.5, worker.process.kill).start()
        (dead,) = pool.map([FLEXIBLE])
        assert type(dead) is ConformerOutcome and dead.reason == "worker died (exit code -9)" and not dead.cacheable
        assert [o.energy for o in pool.map(MOLECULES[:1])] == expected[:1]  # replaced, and goes on


def test_map_with_cache_serves_repeats_from_the_cache_and_keeps_machine_failures_out(tmp_path):
    path = tmp_path / "conformers.sqlite"
    cache = conformer_cache(str(path), SETTINGS)
    with _serial() as executor:
        first, n_cached = map_with_cache(MOLECULES, cache, lambda: executor)
        assert n_cached == 0 and len(cache) == 4
        again, n_cached = map_with_cache(MOLECULES, cache, lambda: pytest.fail("nothing left to compute"))
        assert n_cached == 4 and again == first
    cache.close()
    reopened = conformer_cache(str(path), SETTINGS)
    assert reopened.get(["CCO"])["CCO"] == first["CCO"]
    assert reopened.put([ConformerEnergyWorker.failure("CCN", "timeout after 1 s", 1.0)]) == 0
    assert conformer_cache(str(path), ConformerSettings(n_conformers=4, seed=11)).get(["CCO"]) == {}  # new key


def test_a_file_that_is_not_a_cache_is_refused_with_its_name(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n" * 20)
    with pytest.raises(ValueError, match=r"cache file .*notes.sqlite is not a usable sqlite database"):
        OutcomeCache(path, "f", json_fields, str)


# -- caches written before the outcome cache was shared ------------------------------------------------------

OLD_DOCKING_SCHEMA = """
CREATE TABLE settings (fingerprint TEXT PRIMARY KEY, description TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE docking (fingerprint TEXT NOT NULL, smiles TEXT NOT NULL, score REAL, reason TEXT, pose TEXT,
                      seconds REAL, created REAL NOT NULL, PRIMARY KEY (fingerprint, smiles));
"""
OLD_ROUTES_SCHEMA = """
CREATE TABLE routes (fingerprint TEXT NOT NULL, smiles TEXT NOT NULL, outcome TEXT NOT NULL, created REAL NOT NULL,
                     PRIMARY KEY (fingerprint, smiles));
"""


def _old_file(path: Path, schema: str, table: str, rows: list[tuple]) -> None:
    db = sqlite3.connect(path)
    db.executescript(schema)
    with db:
        db.executemany(f"INSERT INTO {table} VALUES ({','.join('?' * len(rows[0]))})", rows)
    db.close()


def test_a_docking_cache_written_by_the_earlier_version_is_read(tmp_path):
    from mara_chem.scoring.docking.cache import DockingCache
    from mara_chem.scoring.docking.vina_runner import DockingSettings

    settings = DockingSettings("r", "ATOM 1\n", (0.0, 0.0, 0.0), (8.0, 8.0, 8.0), exhaustiveness=1)
    key = settings.fingerprint()
    path = tmp_path / "dock.sqlite"
    _old_file(path, OLD_DOCKING_SCHEMA, "docking", [(key, "CCO", -3.5, None, "pose", 1.25, 0.0),
                                                  (key, "C[Se]C", None, "meeko: no type", None, None, 0.0),
                                                  ("other", "CCO", -9.0, None, None, 1.0, 0.0)])
    cache = DockingCache(path, settings)
    found = cache.get(["CCO", "C[Se]C", "CCN"])
    assert (found["CCO"].score, found["CCO"].pose_molblock, found["CCO"].seconds) == (-3.5, "pose", 1.25)
    assert found["C[Se]C"].reason == "meeko: no type" and found["C[Se]C"].score is None
    assert found["C[Se]C"].seconds == 0.0 and "CCN" not in found and len(cache) == 2
    cache.put([type(found["CCO"])("CCO", score=-4.0)])  # a new answer wins over the copied one ...
    cache.close()
    assert DockingCache(path, settings).get(["CCO"])["CCO"].score == -4.0  # ... and the copy is made once


def test_a_route_cache_written_by_the_earlier_version_is_read(tmp_path):
    from mara_chem.scoring.retro.cache import RouteCache

    path = tmp_path / "routes.sqlite"
    old = {"smiles": "CC(=O)NC", "solved": True, "steps": 1, "n_routes": 1, "seconds": 0.5, "cpu_seconds": 0.4,
           "route": [{"product": "CC(=O)NC"}], "reason": None, "cacheable": True}
    _old_file(path, OLD_ROUTES_SCHEMA, "routes", [("fp", "CC(=O)NC", json.dumps(old), 0.0)])
    outcome = RouteCache(path, "fp").get(["CC(=O)NC"])["CC(=O)NC"]
    assert (outcome.solved, outcome.steps, outcome.route) == (True, 1, [{"product": "CC(=O)NC"}])


def test_a_retrosynthesis_timeout_is_a_route_outcome_and_scores_as_a_failure():
    pytest.importorskip("syntheseus")
    from mara_chem.scoring.components.retrosynthesis import Retrosynthesis
    from mara_chem.scoring.retro.search import RouteOutcome

    component = Retrosynthesis({"executor": "serial", "reactions": "amide_only", "time_limit_s": 5,
                                "hard_timeout_s": 1e-9})
    try:
        (outcome,) = component.executor.map(["CC(=O)NC"])
        assert type(outcome) is RouteOutcome and outcome.reason == "timeout after 1e-09 CPU s" and not outcome.cacheable
        result = component(["CC(=O)NC"])
        assert result.reasons[0] == "retrosynthesis: timeout after 1e-09 CPU s"
    finally:
        component.close()


def test_a_cpu_clock_timeout_outlasts_a_busy_machine_and_a_wall_clock_one_does_not():
    """A molecule that costs its worker well under the limit in CPU seconds, run at a tenth of a core (so it
    takes longer than the limit in wall seconds): the CPU clock lets it finish with the serial answer, the
    wall clock times it out."""
    from tests.cpu_throttle import Throttle

    settings = ConformerSettings(n_conformers=1, seed=11)
    with build_executor("serial", settings, worker_cls=ConformerEnergyWorker) as serial:
        cpu_start = time.process_time()
        (expected,) = serial.map([FLEXIBLE])
        cost_s = time.process_time() - cpu_start
    # FLEXIBLE, one conformer: ~0.3 CPU s on a 2-core dev machine, up to 2x that at a tenth of a core (a CPU
    # second stretches under stop/continue); the limit scales with this machine's own cost
    limit = round(max(1.0, 4 * cost_s), 2)
    for clock in ("cpu", "wall"):
        with build_executor("pool", settings, n_workers=1, timeout_s=limit, timeout_clock=clock,
                            worker_cls=ConformerEnergyWorker) as pool:
            pool.start()
            (worker,) = pool._state
            with Throttle(worker.process.pid, share=0.1):
                time.sleep(0.2)
                (outcome,) = pool.map([FLEXIBLE])
        if clock == "cpu":
            assert outcome.energy == expected.energy and outcome.reason is None
        else:
            assert outcome.reason == f"timeout after {limit:g} s" and not outcome.cacheable


def test_an_unknown_timeout_clock_is_refused():
    with pytest.raises(ValueError, match="unknown timeout clock 'gpu'"):
        _serial(timeout_clock="gpu")
