"""vina_docking with real Vina, Meeko and RDKit on small inputs (exhaustiveness 1, small boxes).

Timings on 2 busy cores: the whole file runs in about a minute, Ray's local start being the largest part.
"""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from rdkit import Chem

from tests.paths import REPO

pytest.importorskip("vina")
pytest.importorskip("meeko")
pytest.importorskip("dimorphite_dl")  # the default protonation tool
pytest.importorskip("dockstring")

from mara_chem.scoring.components.docking import VinaDocking  # noqa: E402
from mara_chem.scoring.docking.targets import dockstring_target  # noqa: E402
from mara_chem.scoring.docking.vina_runner import DockingSettings, VinaWorker  # noqa: E402
from mara_chem.scoring.workers.executors import build_executor  # noqa: E402

CLPP = REPO.parent / "shared" / "data" / "receptors" / "clpp_7uvu"

DRD2_SITE = [9.25, 6.167, -7.0]
SMALL_BOX = [10.0, 10.0, 10.0]  # maps in ~1 s; enough room for fragment-sized ligands
FRAGMENTS = ["c1ccc2[nH]ccc2c1", "CCCNC1CCc2nc(N)sc2C1", "OC(=O)c1ccccc1O"]  # indole, pramipexole, salicylic acid
HALOPERIDOL = "OC1(CCN(CCCC(=O)c2ccc(F)cc2)CC1)c1ccc(Cl)cc1"


def small_box(**overrides) -> dict:
    return dict(target="DRD2", center=DRD2_SITE, size=SMALL_BOX, exhaustiveness=1, seed=1) | overrides


@pytest.fixture(scope="module")
def serial_small(tmp_path_factory) -> VinaDocking:
    folder = tmp_path_factory.mktemp("dock")
    comp = VinaDocking(small_box(executor="serial", cache_path=str(folder / "cache.sqlite"), pose_sdf=str(folder / "poses.sdf")))
    yield comp
    comp.close()


@pytest.fixture(scope="module")
def serial_scores(serial_small) -> np.ndarray:
    return serial_small(FRAGMENTS).values


def test_known_ligand_plausible_score_on_its_dockstring_target():
    """Risperidone against DRD2 with dockstring's own receptor and box (exhaustiveness 1)."""
    comp = VinaDocking({"target": "DRD2", "exhaustiveness": 1, "executor": "serial"})
    try:
        result = comp(["Cc1nc2n(c(=O)c1CCN1CCC(c3noc4cc(F)ccc34)CC1)CCCC2"])
    finally:
        comp.close()
    assert result.reasons == [None]
    assert -13.0 < result.values[0] < -8.0  # kcal/mol (exhaustiveness 1, seed 1, pH 7.4; pka_rules, dimorphite and molscrub give the same state)


def test_failures_are_nan_with_reasons(serial_small):
    smiles = ["not a smiles", "CC(=O)[O-].[Na+]", "C1#CC#CC#C1", "C[Se]C", "OB(O)c1ccccc1"]
    result = serial_small(smiles)
    assert np.isnan(result.values).all()
    reasons = result.reasons
    assert reasons[0] == "vina_docking: invalid SMILES"
    assert "2 fragments" in reasons[1]
    assert "no conformer" in reasons[2]
    assert reasons[3].startswith("vina_docking: meeko: ")
    assert reasons[4].startswith("vina_docking: vina: ") and "Atom type B" in reasons[4]  # Meeko types B, Vina refuses it


def test_scores_cache_and_poses(serial_small, serial_scores, monkeypatch):
    assert np.isfinite(serial_scores).all() and (serial_scores < -3).all() and (serial_scores > -10).all()
    # a repeated batch is answered from the cache: the executor is not asked again
    monkeypatch.setattr(serial_small.executor, "map", lambda smiles: pytest.fail(f"re-docked {smiles}"))
    again = serial_small(FRAGMENTS[::-1]).values
    assert list(again) == list(serial_scores[::-1])
    # a new component on the same cache file (a resumed run) docks nothing: its executor is never started
    resumed = VinaDocking(small_box(executor="pool", cache_path=serial_small.params.cache_path))
    assert list(resumed(FRAGMENTS + ["C[Se]C"]).values[:3]) == list(serial_scores)
    assert resumed._executor is None
    resumed.close()
    # the best pose of each docked molecule, once, with its score
    poses = [m for m in Chem.SDMolSupplier(serial_small.params.pose_sdf, removeHs=False)]
    assert [m.GetProp("SMILES") for m in poses] == FRAGMENTS
    assert [m.GetDoubleProp("vina_score") for m in poses] == pytest.approx(list(serial_scores))
    assert all(m.GetNumConformers() == 1 and m.GetConformer().Is3D() for m in poses)


def test_pool_matches_serial_and_survives_a_timeout(serial_scores):
    comp = VinaDocking(small_box(executor="pool", n_workers=2))
    try:
        assert list(comp(FRAGMENTS).values) == list(serial_scores)  # same seed: identical, not just close
        executor = comp.executor
        executor.timeout_s = 0.05
        timed_out = comp([HALOPERIDOL])
        assert math.isnan(timed_out.values[0]) and timed_out.reasons[0] == "vina_docking: timeout after 0.05 CPU s"
        executor.timeout_s = 120.0  # the killed worker was replaced; the pool goes on
        assert comp(FRAGMENTS[:1]).values[0] == serial_scores[0]
    finally:
        comp.close()


def test_a_dead_worker_costs_one_ligand_and_is_replaced(serial_scores):
    settings = VinaDocking(small_box(executor="serial")).settings
    with build_executor("pool", settings, n_workers=1, timeout_s=120.0, worker_cls=VinaWorker) as executor:
        executor.start()
        (worker,) = executor._state
        threading.Timer(0.5, worker.process.kill).start()  # dies while docking haloperidol
        (outcome,) = executor.map([HALOPERIDOL])
        assert outcome.score is None and outcome.reason == "worker died (exit code -9)" and not outcome.cacheable
        assert executor.map(FRAGMENTS[:1])[0].score == serial_scores[0]


def test_ray_local_cluster_matches_serial(serial_scores):
    ray = pytest.importorskip("ray")
    settings = VinaDocking(small_box(executor="serial")).settings
    with build_executor("ray", settings, n_workers=2, timeout_s=120.0, worker_cls=VinaWorker) as executor:
        outcomes = executor.map(FRAGMENTS)
    assert [o.score for o in outcomes] == list(serial_scores)
    assert not ray.is_initialized()  # the executor shut down the Ray it started


def test_broken_receptor_fails_loudly_at_start(tmp_path):
    """A bad receptor is a configuration error for the whole run, not a NaN per molecule."""
    bad = tmp_path / "bad.pdbqt"
    bad.write_text("ATOM      1  C   XXX A   1       0.000   0.000   0.000  1.00  0.00     0.000 Qq\n")
    settings = DockingSettings("bad", bad.read_text(), (0.0, 0.0, 0.0), (8.0, 8.0, 8.0), exhaustiveness=1)
    with pytest.raises(RuntimeError, match="could not start"):
        build_executor("pool", settings, n_workers=1, worker_cls=VinaWorker).map(["CCO"])


@pytest.mark.skipif(not CLPP.is_dir(), reason=f"ClpP receptor folder {CLPP} absent (shared/ must sit beside the repo)")
def test_clpp_7uvu_box_docks():
    """The SYNTH protocol's receptor and box, read from ../shared (never copied into the repo)."""
    comp = VinaDocking(
        {
            "receptor": str(CLPP / "7uvu-2-monomers-pdbfixer.pdbqt"),
            "center": [-29.497, 72.553, 15.125],
            "size": [20, 20, 20],
            "exhaustiveness": 1,
            "executor": "serial",
        }
    )
    try:
        result = comp(["CCCN(CCC)CCc1cccc2NC(=O)Cc12"])  # ropinirole, a small drug-like probe
    finally:
        comp.close()
    assert result.reasons == [None] and -11.0 < result.values[0] < -5.0


def test_dockstring_receptor_is_used_in_place():
    target = dockstring_target("DRD2")
    assert "site-packages" in str(target.receptor) or "dockstring" in str(target.receptor)


def test_pose_records_carry_the_input_id_and_plain_numbers(tmp_path):
    """A scoring run names its molecules; the pose SDF then says which compound each pose is."""
    poses = tmp_path / "poses.sdf"
    comp = VinaDocking(small_box(executor="serial", pose_sdf=str(poses)))
    try:
        comp.name_molecules({FRAGMENTS[0]: "IND-7"})
        score = comp([FRAGMENTS[0]]).values[0]
    finally:
        comp.close()
    (pose,) = Chem.SDMolSupplier(str(poses), removeHs=False)
    assert pose.GetProp("_Name") == "IND-7" and pose.GetProp("id") == "IND-7"
    assert pose.GetProp("vina_score") == f"{score:.3f}"  # Vina's 3 decimals, not -8.7859999999999996
    assert float(pose.GetProp("vina_score")) == pytest.approx(score, abs=5e-4)


def test_pose_count_is_part_of_the_cache_key():
    """A cache filled with another n_poses (the old default of 1 missed poses) is not reused."""
    settings = DockingSettings("DRD2", "ATOM", (0.0, 0.0, 0.0), (10.0, 10.0, 10.0))
    assert settings.n_poses == 9
    assert settings.fingerprint() != DockingSettings("DRD2", "ATOM", (0.0, 0.0, 0.0), (10.0, 10.0, 10.0),
                                                     n_poses=20).fingerprint()
