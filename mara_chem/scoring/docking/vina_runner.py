"""A docking worker: one Vina object whose receptor maps are computed once, then many ligands docked.

``DockingSettings`` carries the receptor *text*, not its path, so a worker on another machine (a Ray node)
needs no shared filesystem. ``VinaWorker.run`` never raises for a molecule: it returns a ``DockOutcome``
with a score or a reason. Vina's own seed makes each docking a function of (ligand, seed) alone, whatever
the worker has docked before, so serial, pool and Ray runs agree.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mara_chem.scoring.docking.ligand_prep import LigandPrepError, prepare_ligand
from mara_chem.scoring.workers.worker import Worker
from mara_chem.text import first_line

# Bump when ligand preparation changes in a way that changes scores (it invalidates persistent caches).
PREP_VERSION = 1


@dataclass(frozen=True)
class DockingSettings:
    """Everything that determines a score, plus what a worker needs to run (picklable)."""

    receptor_name: str
    receptor_pdbqt: str = field(repr=False)
    center: tuple[float, float, float]
    size: tuple[float, float, float]
    exhaustiveness: int = 8
    n_poses: int = 1
    seed: int = 1
    ph: float | None = 7.4
    protonation: str = "dimorphite"
    scoring_function: str = "vina"
    spacing: float = 0.375
    cpu_per_worker: int = 1
    want_pose: bool = False

    def fingerprint(self) -> str:
        """Hash of the settings that change a score (not pose output or worker layout) and library versions."""
        keys = ("center", "size", "exhaustiveness", "seed", "ph", "protonation", "scoring_function", "spacing")
        payload: dict[str, Any] = {k: asdict(self)[k] for k in keys}
        payload["receptor_sha256"] = hashlib.sha256(self.receptor_pdbqt.encode()).hexdigest()
        payload["prep_version"] = PREP_VERSION
        payload["versions"] = {p: _version(p) for p in ("vina", "meeko", "rdkit", _tool_package(self.protonation))}
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]


@dataclass
class DockOutcome:
    """One ligand's result: ``score`` (kcal/mol, lower is better) or ``reason``; ``cacheable`` is False for
    failures that depend on the machine (timeouts, dead workers) rather than the molecule."""

    smiles: str
    score: float | None = None
    reason: str | None = None
    pose_molblock: str | None = None
    seconds: float = 0.0
    cacheable: bool = True

    @property
    def ok(self) -> bool:
        return self.score is not None


class VinaWorker(Worker[DockingSettings, DockOutcome]):
    """Holds one Vina object with precomputed maps; ``run`` prepares and docks one SMILES."""

    kind = "docking worker"

    def __init__(self, settings: DockingSettings):
        from vina import Vina

        self.settings = settings
        self.vina = Vina(sf_name=settings.scoring_function, cpu=settings.cpu_per_worker, seed=settings.seed, verbosity=0)
        with tempfile.TemporaryDirectory(prefix="mara_vina_") as tmp:
            path = os.path.join(tmp, f"{settings.receptor_name}.pdbqt")
            with open(path, "w") as handle:
                handle.write(settings.receptor_pdbqt)
            self.vina.set_receptor(path)
        self.vina.compute_vina_maps(center=list(settings.center), box_size=list(settings.size), spacing=settings.spacing)

    @classmethod
    def failure(cls, smiles: str, reason: str, seconds: float) -> DockOutcome:
        return DockOutcome(smiles, reason=reason, seconds=seconds, cacheable=False)

    @classmethod
    def label(cls, settings: DockingSettings) -> str:
        return f"receptor {settings.receptor_name}"

    def run(self, smiles: str) -> DockOutcome:
        start = time.perf_counter()
        s = self.settings
        try:
            ligand = prepare_ligand(smiles, s.ph, s.protonation, s.seed)
        except LigandPrepError as exc:
            return DockOutcome(smiles, reason=str(exc), seconds=time.perf_counter() - start)
        try:
            self.vina.set_ligand_from_string(ligand.pdbqt)
            self.vina.dock(exhaustiveness=s.exhaustiveness, n_poses=s.n_poses)
            score = float(self.vina.energies(n_poses=1)[0][0])
        except Exception as exc:  # Vina reports bad atom types etc. as TypeError/RuntimeError
            return DockOutcome(smiles, reason=f"vina: {first_line(str(exc))}", seconds=time.perf_counter() - start)
        pose = self._best_pose() if s.want_pose else None
        return DockOutcome(smiles, score=score, pose_molblock=pose, seconds=time.perf_counter() - start)

    def _best_pose(self) -> str | None:
        """The best pose as an MDL molblock with hydrogens (None if Meeko cannot rebuild it)."""
        from meeko import PDBQTMolecule, RDKitMolCreate
        from rdkit import Chem

        try:
            pdbqt = PDBQTMolecule(self.vina.poses(n_poses=1), skip_typing=True)
            mols = RDKitMolCreate.from_pdbqt_mol(pdbqt)
            return Chem.MolToMolBlock(mols[0]) if mols and mols[0] is not None else None
        except Exception:
            return None


def check_receptor_parses(receptor_pdbqt: str, label: str) -> None:
    """Let Vina itself read the receptor (about 0.1 s) so a file it rejects is named before any worker starts.

    Skipped when vina is not installed here (a Ray head node whose workers have it).
    """
    try:
        from vina import Vina
    except ImportError:
        return
    vina = Vina(sf_name="vina", cpu=1, verbosity=0)
    with tempfile.TemporaryDirectory(prefix="mara_vina_") as tmp:
        path = os.path.join(tmp, "receptor.pdbqt")
        with open(path, "w") as handle:
            handle.write(receptor_pdbqt)
        try:
            vina.set_receptor(path)
        except Exception as exc:  # Vina raises RuntimeError/TypeError with its parser's message
            raise ValueError(f"Vina cannot read receptor {label!r}: {first_line(str(exc))}") from None


def _tool_package(protonation: str) -> str:
    return {"dimorphite": "dimorphite_dl"}.get(protonation, protonation)


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "absent"
