"""Docking machinery that needs no Vina maps: targets, parameters, protonation, ligand preparation, cache."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from rdkit import Chem

pytest.importorskip("meeko")
pytest.importorskip("dimorphite_dl")  # the default protonation tool
pytest.importorskip("dockstring")

from mara_chem.scoring.components.docking import VinaDocking, VinaDockingParams  # noqa: E402
from mara_chem.scoring.docking.cache import DockingCache  # noqa: E402
from mara_chem.scoring.workers.executors import list_executors  # noqa: E402
from mara_chem.scoring.docking.ligand_prep import LigandPrepError, prepare_ligand  # noqa: E402
from mara_chem.scoring.docking.protonation import list_protonators, protonate  # noqa: E402
from mara_chem.scoring.docking.targets import dockstring_target, list_dockstring_targets, resolve_target  # noqa: E402
from mara_chem.scoring.docking.vina_runner import DockingSettings, DockOutcome  # noqa: E402


def _settings(**overrides) -> DockingSettings:
    base = dict(receptor_name="toy", receptor_pdbqt="ATOM\n", center=(0.0, 0.0, 0.0), size=(10.0, 10.0, 10.0))
    return DockingSettings(**(base | overrides))


def test_registry_names_pinned():
    assert list_executors() == ["pool", "ray", "serial"]
    assert list_protonators() == ["dimorphite", "molscrub", "openbabel", "pka_rules"]


def test_dockstring_targets_and_box():
    names = list_dockstring_targets()
    assert len(names) == 58 and "DRD2" in names
    target = dockstring_target("drd2")
    assert target.name == "DRD2" and target.receptor.is_file()
    assert target.center == (9.25, 6.167, -7.0) and target.size == (30.0, 30.0, 32.0)
    # a target's box may be overridden, e.g. to a small box around the site
    small = resolve_target("DRD2", None, center=(1.0, 2.0, 3.0), size=(10.0, 10.0, 10.0))
    assert small.receptor == target.receptor and small.size == (10.0, 10.0, 10.0)
    with pytest.raises(ValueError, match="valid: .*DRD2"):
        dockstring_target("NOT_A_TARGET")


def test_receptor_path_must_exist(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.pdbqt"):
        resolve_target(None, tmp_path / "missing.pdbqt", (0, 0, 0), (10, 10, 10))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "exactly one of 'target'"),
        ({"target": "DRD2", "receptor": "x.pdbqt"}, "exactly one of 'target'"),
        ({"receptor": "x.pdbqt", "center": [0, 0, 0]}, "needs the box"),
        ({"target": "NOPE"}, "unknown dockstring target 'NOPE'"),
        ({"target": "DRD2", "executor": "threads"}, r"unknown executor 'threads'; valid: \['pool', 'ray', 'serial'\]"),
        ({"target": "DRD2", "protonation": "magic"}, "unknown protonation tool"),
        ({"target": "DRD2", "seed": 0}, "greater than or equal to 1"),
        ({"target": "DRD2", "n_poses": 1}, "n_poses must be at least 9"),
        ({"target": "DRD2", "size": [10, 0, 10]}, "box size must be positive"),
        ({"target": "DRD2", "exhaustivness": 8}, "exhaustivness"),
    ],
)
def test_params_errors_name_the_problem(params, message):
    with pytest.raises(ValidationError, match=message):
        VinaDockingParams(**params)


def test_params_defaults():
    p = VinaDockingParams(target="DRD2")
    assert (p.exhaustiveness, p.n_poses, p.seed, p.timeout_s, p.ph) == (8, 9, 1, 120.0, 7.4)
    assert (p.protonation, p.executor, p.n_workers, p.cache_path, p.pose_sdf) == ("pka_rules", "pool", None, None, None)


def test_component_builds_without_starting_workers():
    comp = VinaDocking({"target": "DRD2", "exhaustiveness": 1})
    assert comp._executor is None  # workers start on first scoring, so validating a run is cheap
    assert comp.settings.receptor_pdbqt.startswith(("REMARK", "ATOM", "HETATM"))
    comp.close()


@pytest.mark.parametrize("tool", ["molscrub", "dimorphite", "openbabel", "pka_rules"])
def test_protonation_tools_charge_amines_and_acids(tool):
    pytest.importorskip({"dimorphite": "dimorphite_dl", "pka_rules": "rdkit"}.get(tool, tool))
    mol = protonate(Chem.MolFromSmiles("CCN(CC)CCC(=O)O"), 7.4, tool)
    assert Chem.MolToSmiles(mol) == "CC[NH+](CC)CCC(=O)[O-]"


def test_molscrub_keeps_phenols_neutral():
    """Why molscrub is offered: paracetamol's phenol (pKa ~9.5) stays neutral at 7.4 (dimorphite ionises it)."""
    pytest.importorskip("molscrub")
    mol = protonate(Chem.MolFromSmiles("CC(=O)Nc1ccc(O)cc1"), 7.4, "molscrub")
    assert Chem.MolToSmiles(mol) == "CC(=O)Nc1ccc(O)cc1"


def test_dimorphite_caveat_is_as_documented():
    """The protonation module's docstring: with dimorphite plain and alkyl phenols stay neutral, substituted
    ones ionise; the default (pka_rules) keeps paracetamol neutral."""
    dimorphite = lambda smi: Chem.MolToSmiles(protonate(Chem.MolFromSmiles(smi), 7.4, "dimorphite"))  # noqa: E731
    assert dimorphite("Cc1ccc(O)cc1") == "Cc1ccc(O)cc1"
    assert dimorphite("CC(=O)Nc1ccc(O)cc1") == "CC(=O)Nc1ccc([O-])cc1"
    assert Chem.MolToSmiles(protonate(Chem.MolFromSmiles("CC(=O)Nc1ccc(O)cc1"), 7.4)) == "CC(=O)Nc1ccc(O)cc1"


def test_missing_gpl_tool_names_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "molscrub" else real(name, *a))
    with pytest.raises(ValidationError, match=r"needs the 'molscrub' package: pip install \"mara-chem\[gpl-protonation\]\""):
        VinaDockingParams(target="DRD2", protonation="molscrub")


def test_prepare_ligand_is_deterministic_and_typed():
    a = prepare_ligand("CCCNC1CCc2nc(N)sc2C1", ph=7.4, seed=3)
    b = prepare_ligand("CCCNC1CCc2nc(N)sc2C1", ph=7.4, seed=3)
    assert a.pdbqt == b.pdbqt
    assert "[NH2+]" in a.protonated  # the secondary amine is charged at pH 7.4
    assert "TORSDOF" in a.pdbqt and "ROOT" in a.pdbqt
    assert prepare_ligand("CCCNC1CCc2nc(N)sc2C1", ph=None).protonated == "CCCNC1CCc2nc(N)sc2C1"


@pytest.mark.parametrize(
    ("smiles", "reason"),
    [
        ("not a smiles", "invalid SMILES"),
        ("CC(=O)[O-].[Na+]", "2 fragments"),
        ("C1#CC#CC#C1", "no conformer"),  # RDKit parses it; no 3D embedding exists
        ("C[Se]C", "meeko: "),  # no AutoDock type for selenium
    ],
)
def test_prepare_ligand_failures_have_reasons(smiles, reason):
    with pytest.raises(LigandPrepError, match=reason):
        prepare_ligand(smiles)


def test_cache_roundtrip_and_settings_key(tmp_path):
    path = tmp_path / "dock.sqlite"
    settings = _settings(exhaustiveness=1)
    cache = DockingCache(path, settings)
    stored = cache.put(
        [
            DockOutcome("CCO", score=-3.5, pose_molblock="pose", seconds=1.0),
            DockOutcome("C[Se]C", reason="meeko: no type"),
            DockOutcome("CCN", reason="timeout after 1 s", cacheable=False),  # machine-dependent: not kept
        ]
    )
    assert stored == 2 and len(cache) == 2
    cache.close()
    again = DockingCache(path, settings).get(["CCO", "C[Se]C", "CCN"])
    assert again["CCO"].score == -3.5 and again["CCO"].pose_molblock == "pose"
    assert again["C[Se]C"].reason == "meeko: no type" and "CCN" not in again
    # anything that changes a score changes the key; worker layout and pose output do not
    assert DockingCache(path, _settings(exhaustiveness=8)).get(["CCO"]) == {}
    assert DockingCache(path, _settings(exhaustiveness=1, receptor_pdbqt="ATOM 2\n")).get(["CCO"]) == {}
    assert "CCO" in DockingCache(path, _settings(exhaustiveness=1, cpu_per_worker=4, want_pose=True)).get(["CCO"])
