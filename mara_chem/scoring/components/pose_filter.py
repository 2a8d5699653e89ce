"""``vina_salt_bridge``: does the docked pose make the salt bridge the target's ligands make? (a pose filter)

A Vina score ranks poses by an empirical energy; it does not ask whether the pose is the one the target's
ligands adopt. For aminergic GPCRs that pose has the ligand's protonated amine next to the aspartate of
helix 3 (DRD2: Asp114, D3.32): only 3 of 10 known D2 actives make it in their best Vina pose, so a
molecule that scores well without it is a weaker claim. This component docks as ``vina_docking`` does
(same parameters, same workers and cache format) and scores the best pose 1 when a cationic nitrogen of
the ligand (as protonated for docking) lies within ``max_distance`` of the residue's named atoms, else 0,
with the distance in the reason column. Its role is a penalty, so by default a hit without the salt
bridge scores 0 (``weight`` as for any penalty). A ligand with no cationic nitrogen at the docking pH
scores 0 with that reason; a failed docking is NaN and leaves the total alone.

Docking twice is avoided by giving the ``vina_docking`` endpoint the same ``cache_path`` and a ``pose_sdf``
(so its outcomes keep their poses); a cached outcome without a pose is a failure that says so.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field, model_validator

from mara_chem.scoring.component import Failure, Scored
from mara_chem.scoring.components.docking import VinaDocking, VinaDockingParams
from mara_chem.scoring.docking.vina_runner import DockOutcome

#: the salt-bridge residue of the benchmark targets that have one (receptor residue name + number)
SALT_BRIDGE_RESIDUES = {"DRD2": "ASP114"}


class VinaSaltBridgeParams(VinaDockingParams):
    """``vina_docking``'s parameters and the contact the pose must make."""

    residue: str | None = Field(None, description="receptor residue, name + number as in the PDBQT ('ASP114'); "
                                                  "None: the target's own (DRD2: ASP114)")
    receptor_atoms: tuple[str, ...] = Field(("OD1", "OD2"), strict=False,
                                            description="atom names of the residue (the carboxylate oxygens)")
    max_distance: float = Field(4.0, gt=0, description="cationic N to receptor atom, Angstrom")

    @model_validator(mode="after")
    def _residue(self) -> "VinaSaltBridgeParams":
        if self.residue is None:
            known = SALT_BRIDGE_RESIDUES.get((self.target or "").upper())
            if known is None:
                raise ValueError(f"give 'residue' (e.g. 'ASP114'): no salt-bridge residue is known for "
                                 f"{self.target or 'this receptor'}; known: {SALT_BRIDGE_RESIDUES}")
            self.residue = known
        return self


def residue_atoms(receptor_pdbqt: str, residue: str, names: tuple[str, ...]) -> np.ndarray:
    """Coordinates of the named atoms of ``residue`` ('ASP114') in a PDBQT; a missing residue is an error."""
    resname, number = residue[:3].upper(), residue[3:]
    coords = [(float(line[30:38]), float(line[38:46]), float(line[46:54]))
              for line in receptor_pdbqt.splitlines()
              if line.startswith(("ATOM", "HETATM")) and line[17:20].strip() == resname
              and line[22:26].strip() == number and line[12:16].strip() in names]
    if not coords:
        raise ValueError(f"the receptor has no atoms {list(names)} in residue {residue}")
    return np.array(coords)


def nearest_cation(pose_molblock: str, partners: np.ndarray) -> float | None:
    """Distance (Angstrom) from the pose's nearest cationic nitrogen to a partner atom; None: no cation."""
    from rdkit import Chem

    mol = Chem.MolFromMolBlock(pose_molblock, removeHs=False, sanitize=False)
    if mol is None:
        raise ValueError("the pose could not be read")
    nitro = {i for match in mol.GetSubstructMatches(Chem.MolFromSmarts("[N+](=O)[O-]")) for i in match}
    cations = [a.GetIdx() for a in mol.GetAtoms() if a.GetSymbol() == "N" and a.GetFormalCharge() > 0
               and a.GetIdx() not in nitro]
    if not cations:
        return None
    xyz = mol.GetConformer().GetPositions()[cations]
    return float(np.min(np.linalg.norm(xyz[:, None, :] - partners[None, :, :], axis=-1)))


class VinaSaltBridge(VinaDocking):
    """1 when the best Vina pose makes the salt bridge, 0 when it does not (a penalty: the filter)."""

    name = "vina_salt_bridge"
    aliases = ("pose_filter",)
    role = "penalty"
    required_by_default = False
    raw_range = (0.0, 1.0)
    Params = VinaSaltBridgeParams
    params: VinaSaltBridgeParams
    example_params = {**VinaDocking.example_params}

    def __init__(self, params: VinaSaltBridgeParams | dict | None = None):
        super().__init__(params)
        from dataclasses import replace

        self.settings = replace(self.settings, want_pose=True)
        p = self.params
        self.partners = residue_atoms(self.settings.receptor_pdbqt, p.residue, tuple(p.receptor_atoms))  # type: ignore[arg-type]

    def score_batch(self, smiles: list[str]) -> list[float | Failure | Scored]:
        from mara_chem.chem.smiles import to_mol
        from mara_chem.scoring.workers.executors import map_with_cache

        valid = [s for s in dict.fromkeys(smiles) if to_mol(s) is not None]
        outcomes, _ = map_with_cache(valid, self.cache, lambda: self.executor)
        return [self._contact(outcomes.get(s)) for s in smiles]

    def _contact(self, outcome: DockOutcome | None) -> float | Failure | Scored:
        if outcome is None:
            return Failure("invalid SMILES")
        if not outcome.ok:
            return Failure(outcome.reason or "docking failed")
        if not outcome.pose_molblock:
            return Failure("the cached docking outcome has no pose (give the vina_docking endpoint a pose_sdf)")
        distance = nearest_cation(outcome.pose_molblock, self.partners)
        residue = self.params.residue
        if distance is None:
            return Scored(0.0, f"no cationic nitrogen at pH {self.params.ph} (no salt bridge to {residue})")
        if distance <= self.params.max_distance:
            return Scored(1.0, f"salt bridge to {residue}: cationic N {distance:.1f} A")
        return Scored(0.0, f"no salt bridge to {residue}: nearest cationic N {distance:.1f} A "
                           f"(> {self.params.max_distance:g} A)")


__all__: list[Any] = ["VinaSaltBridge", "VinaSaltBridgeParams", "SALT_BRIDGE_RESIDUES"]
