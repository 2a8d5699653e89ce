"""vina_salt_bridge: the DRD2 pose filter with real Vina and Meeko (exhaustiveness 1, a small box)."""

from __future__ import annotations

import numpy as np
import pytest
from rdkit import Chem
from rdkit.Chem import AllChem

pytest.importorskip("vina")
pytest.importorskip("meeko")
pytest.importorskip("dockstring")

from mara_chem.scoring.components.pose_filter import (  # noqa: E402
    VinaSaltBridge,
    nearest_cation,
    residue_atoms,
)
from mara_chem.scoring.docking.targets import dockstring_target  # noqa: E402

SMALL = dict(target="DRD2", center=[9.25, 6.167, -7.0], size=[10.0, 10.0, 10.0], exhaustiveness=1, seed=1,
             executor="serial")


def test_the_residue_and_the_cation_distance_are_read_from_the_files():
    receptor = dockstring_target("DRD2").receptor.read_text()
    oxygens = residue_atoms(receptor, "ASP114", ("OD1", "OD2"))
    assert oxygens.tolist() == [[5.829, 7.343, -7.691], [7.058, 8.277, -9.184]]  # the PDBQT's ATOM lines
    with pytest.raises(ValueError, match="no atoms"):
        residue_atoms(receptor, "ASP999", ("OD1",))
    ammonium = Chem.AddHs(Chem.MolFromSmiles("C[NH3+]"))
    AllChem.EmbedMolecule(ammonium, randomSeed=1)
    n = next(a.GetIdx() for a in ammonium.GetAtoms() if a.GetSymbol() == "N")
    where = ammonium.GetConformer().GetAtomPosition(n)
    partner = np.array([[where.x + 3.0, where.y + 4.0, where.z]])  # 5 A away
    assert nearest_cation(Chem.MolToMolBlock(ammonium), partner) == pytest.approx(5.0, abs=1e-3)
    nitro = Chem.AddHs(Chem.MolFromSmiles("C[N+](=O)[O-]"))  # a nitro group's N+ is no cation
    AllChem.EmbedMolecule(nitro, randomSeed=1)
    assert nearest_cation(Chem.MolToMolBlock(nitro), partner) is None


def test_the_filter_scores_the_best_pose_and_says_how_far_the_cation_is():
    comp = VinaSaltBridge(SMALL)
    try:
        result = comp(["CCCNC1CCc2nc(N)sc2C1", "OC(=O)c1ccccc1O"])  # pramipexole (a cation), salicylic acid
        pramipexole, salicylic = result.values.tolist()
        assert pramipexole in (0.0, 1.0) and salicylic == 0.0
        assert result.reasons[1] == "vina_salt_bridge: no cationic nitrogen at pH 7.4 (no salt bridge to ASP114)"
        distance = float(result.reasons[0].rsplit("N ", 1)[1].split(" A")[0])
        assert (pramipexole == 1.0) == (distance <= 4.0)
    finally:
        comp.close()
    assert VinaSaltBridge.role == "penalty"


def test_a_receptor_without_a_known_residue_must_name_one(tmp_path):
    receptor = tmp_path / "r.pdbqt"
    receptor.write_text(dockstring_target("DRD2").receptor.read_text())
    with pytest.raises(ValueError, match="give 'residue'"):
        VinaSaltBridge({"receptor": str(receptor), "center": [9.25, 6.167, -7.0], "size": [10, 10, 10]})
    comp = VinaSaltBridge({"receptor": str(receptor), "center": [9.25, 6.167, -7.0], "size": [10, 10, 10],
                           "residue": "ASP114"})
    assert comp.partners.shape == (2, 3)
