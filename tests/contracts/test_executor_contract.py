"""Contract of every registered executor, with every kind of worker: one outcome per SMILES, in input order,
each naming its own SMILES and of the worker's own outcome type; an unparsable SMILES is a failed outcome
with a reason, not an exception; an empty batch starts nothing.

Two real workers: Vina on dockstring's DRD2 receptor in a 10 Å box (exhaustiveness 1), and the example
plugin's MMFF conformer-energy worker (examples/mara_chem_example_plugin: a computed job, not canned
numbers); the pool and Ray cases are slow."""

from __future__ import annotations

import os
import sys

import pytest
from tests.contracts.contract_helpers import implementations

from mara_chem.plugins import EXECUTORS
from tests.paths import EXAMPLE_PLUGIN

PLUGIN = str(EXAMPLE_PLUGIN)
sys.path.insert(0, PLUGIN)  # pool workers inherit sys.path
from mara_chem_example_plugin.conformer_worker import (  # noqa: E402
    ConformerEnergyWorker,
    ConformerOutcome,
    ConformerSettings,
)

SMILES = ["c1ccc2[nH]ccc2c1", "not a smiles", "OC(=O)c1ccccc1O"]


def _vina(monkeypatch):
    for module in ("vina", "meeko", "dockstring", "dimorphite_dl"):
        pytest.importorskip(module)
    from mara_chem.scoring.components.docking import VinaDocking
    from mara_chem.scoring.docking.vina_runner import DockOutcome, VinaWorker

    return VinaDocking(VinaDocking.example_params).settings, VinaWorker, DockOutcome, "score"


def _conformer(monkeypatch):
    # a Ray worker process sees the plugin the way an installed plugin is seen: on its import path
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (PLUGIN, os.environ.get("PYTHONPATH")) if p))
    return ConformerSettings(n_conformers=2), ConformerEnergyWorker, ConformerOutcome, "energy"


@pytest.mark.parametrize("worker", [_vina, _conformer], ids=["vina", "conformer"])
@pytest.mark.parametrize("executor_cls", implementations(EXECUTORS))
def test_one_outcome_per_smiles_in_order(executor_cls, worker, monkeypatch):
    settings, worker_cls, outcome_cls, value = worker(monkeypatch)
    with executor_cls(settings, n_workers=1, timeout_s=120.0, worker_cls=worker_cls) as executor:
        assert executor.map([]) == []
        assert executor.n_workers >= 1
        outcomes = executor.map(SMILES)
    assert [o.smiles for o in outcomes] == SMILES
    assert all(type(o) is outcome_cls for o in outcomes)
    assert getattr(outcomes[1], value) is None and outcomes[1].reason
    assert getattr(outcomes[0], value) is not None and getattr(outcomes[2], value) is not None
    if worker is _vina:
        assert outcomes[0].score < 0 and outcomes[2].score < 0  # kcal/mol
