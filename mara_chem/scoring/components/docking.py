"""``vina_docking``: AutoDock Vina score (kcal/mol, lower is better) of each molecule's best pose.

The raw value is Vina's score; the run file's transform (e.g. reverse_sigmoid low -16, high 0, k 0.15)
turns it into [0, 1]. Ligands are prepared with RDKit (ETKDG + MMFF) and Meeko, protonated at ``ph``;
each failure (bad molecule, no conformer, Meeko or Vina error, timeout) is NaN with its reason. Workers
compute the receptor maps once and dock many ligands (all cores by default; ``executor = "ray"`` for a
cluster). With ``cache_path`` a repeated or resumed run never docks a molecule twice.
Importing this module is cheap: vina, meeko and ray are imported by the workers that use them.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from mara_chem.output_paths import check_output_file
from mara_chem.scoring.component import ComponentParams, Failure
from mara_chem.scoring.docking.cache import DockingCache
from mara_chem.scoring.docking.protonation import check_available, list_protonators
from mara_chem.scoring.docking.targets import check_target, list_dockstring_targets, resolve_target
from mara_chem.scoring.docking.vina_runner import (
    MIN_POSES,
    DockingSettings,
    DockOutcome,
    VinaWorker,
    check_receptor_parses,
)
from mara_chem.scoring.pooled_component import PooledComponent
from mara_chem.scoring.workers.executors import Executor, build_executor, list_executors

Vec3 = tuple[float, float, float]


class VinaDockingParams(ComponentParams):
    """Endpoint ``params`` of ``vina_docking`` (REINVENT-style). Paths are relative to the working directory."""

    target: str | None = Field(None, description="dockstring target name, e.g. 'DRD2' (receptor + curated box)")
    receptor: str | None = Field(None, description="receptor PDBQT path; then center and size are required")
    center: Vec3 | None = Field(None, strict=False, description="box centre (Angstrom); overrides a target's box")
    size: Vec3 | None = Field(None, strict=False, description="box edge lengths (Angstrom); overrides a target's box")
    exhaustiveness: int = Field(8, ge=1)
    n_poses: int = Field(MIN_POSES,
                         description="poses Vina keeps (at least its own default, 9: fewer can miss the best pose); "
                                     "the score is the best one's")
    seed: int = Field(1, ge=1, description="Vina and ETKDG seed (Vina treats 0 as 'random', so 0 is refused)")
    timeout_s: float = Field(120.0, gt=0, allow_inf_nan=False,
                             description="per ligand (preparation + docking), in seconds of timeout_clock; overrun = "
                             "NaN. The pool and Ray stop an overrunning ligand; the serial executor cannot, it "
                             "reports the overrun afterwards")
    timeout_clock: Literal["cpu", "wall"] = Field(
        "cpu", description="cpu: the ligand's CPU seconds per Vina thread (a busy machine slows a docking but never "
                           "times it out; 10 x the limit in wall seconds still ends a stuck worker; Ray counts wall "
                           "seconds) | wall: wall-clock seconds")
    ph: float | None = Field(7.4, description="protonation pH; None docks the molecule as written")
    protonation: str = Field("pka_rules", description="pH tool: pka_rules (RDKit rule layer, validated on 86 drugs) | "
                                                      "dimorphite | molscrub (GPL-3) | openbabel (GPL-2)")
    scoring_function: str = Field("vina", pattern="^(vina|vinardo)$")
    spacing: float = Field(0.375, gt=0, description="grid spacing of the receptor maps (Angstrom)")
    n_workers: int | None = Field(None, ge=1, description="None: all cores (Ray with an address: all cluster CPUs)")
    cpu_per_worker: int = Field(1, ge=1, description="Vina threads per worker")
    executor: str = Field("pool", description="serial | pool | ray")
    address: str | None = Field(None, description="Ray cluster address ('auto', 'ray://host:10001'); None: local")
    cache_path: str | None = Field(None, description="sqlite file of docked molecules, reused across runs")
    pose_sdf: str | None = Field(None, description="append each docked molecule's best pose to this SDF")
    pose_score_max: float | None = Field(None, description="only write poses scoring at most this (kcal/mol)")

    @field_validator("executor")
    @classmethod
    def _executor(cls, value: str) -> str:
        if value.lower() not in list_executors():
            raise ValueError(f"unknown executor {value!r}; valid: {list_executors()}")
        if value.lower() == "ray" and importlib.util.find_spec("ray") is None:
            raise ValueError('executor "ray" needs the ray package: pip install "mara-chem[ray]"')
        return value.lower()

    @field_validator("protonation")
    @classmethod
    def _protonation(cls, value: str) -> str:
        if value.lower() not in list_protonators():
            raise ValueError(f"unknown protonation tool {value!r}; valid: {list_protonators()}")
        check_available(value.lower())
        return value.lower()

    @field_validator("n_poses")
    @classmethod
    def _n_poses(cls, value: int) -> int:
        if value < MIN_POSES:
            raise ValueError(f"n_poses must be at least {MIN_POSES} (Vina's default): with fewer kept poses Vina "
                             f"can miss the best pose by several kcal/mol; got {value}")
        return value

    @field_validator("size")
    @classmethod
    def _size(cls, value: Vec3 | None) -> Vec3 | None:
        if value is not None and not all(math.isfinite(v) for v in value):
            raise ValueError(f"box size must be finite, got {value}")
        if value is not None and min(value) <= 0:
            raise ValueError(f"box size must be positive, got {value}")
        return value

    @field_validator("center")
    @classmethod
    def _center(cls, value: Vec3 | None) -> Vec3 | None:
        if value is not None and not all(math.isfinite(v) for v in value):
            raise ValueError(f"box centre must be finite, got {value}")
        return value

    @field_validator("cache_path")
    @classmethod
    def _cache_file(cls, value: str | None) -> str | None:
        """An existing cache must be an SQLite file: a text file here would fail at the first docked batch."""
        if value is not None and Path(value).is_file() and Path(value).stat().st_size:
            with open(value, "rb") as handle:
                if handle.read(16) != b"SQLite format 3\x00":
                    raise ValueError(f"cache_path {value!r} exists and is not an SQLite docking cache; "
                                     "move it away or name a new file")
        problem = check_output_file("cache_path", value, "docking cache") if value is not None else None
        if problem:
            raise ValueError(problem.removeprefix("[cache_path] "))
        return value

    @field_validator("pose_sdf")
    @classmethod
    def _pose_file(cls, value: str | None) -> str | None:
        """Checked before any docking: a directory here lost three docked ligands' scores at the first write."""
        problem = check_output_file("pose_sdf", value, "pose SDF") if value is not None else None
        if problem:
            raise ValueError(problem.removeprefix("[pose_sdf] "))
        return value

    @model_validator(mode="after")
    def _target_or_receptor(self) -> "VinaDockingParams":
        if (self.target is None) == (self.receptor is None):
            raise ValueError("give exactly one of 'target' (a dockstring name) or 'receptor' (a PDBQT path)")
        if self.receptor is not None and (self.center is None or self.size is None):
            raise ValueError("'receptor' needs the box: 'center' and 'size'")
        if self.target is not None:
            names = list_dockstring_targets()
            if self.target.upper() not in {n.upper() for n in names}:
                raise ValueError(f"unknown dockstring target {self.target!r}; valid: {names}")
        return self


class VinaDocking(PooledComponent[DockOutcome]):
    """Best Vina score per molecule; the executor and cache live as long as the component (``close`` ends them)."""

    name = "vina_docking"
    aliases = ("VinaDocking", "MaraVinaDocking")  # MaraVinaDocking: its REINVENT plugin name (reinvent_plugins/)
    raw_range = (-math.inf, math.inf)  # kcal/mol: always needs a transform
    required_by_default = True  # a failed docking must not let QED/SA alone carry the score
    Params = VinaDockingParams
    # dockstring's DRD2 receptor, a 10 Å box at the site (maps in ~1 s), exhaustiveness 1
    example_params = {"target": "DRD2", "center": [9.25, 6.167, -7.0], "size": [10.0, 10.0, 10.0],
                      "exhaustiveness": 1, "executor": "serial"}
    params: VinaDockingParams
    computed = "docked"

    def __init__(self, params: VinaDockingParams | dict | None = None):
        super().__init__(params)
        p = self.params
        self.target = resolve_target(p.target, p.receptor, p.center, p.size)
        check_target(self.target, p.spacing)  # atoms present, box over the receptor, maps fit in memory
        self.settings = DockingSettings(
            receptor_name=self.target.name,
            receptor_pdbqt=self.target.receptor.read_text(),
            center=tuple(float(x) for x in self.target.center),  # type: ignore[arg-type]
            size=tuple(float(x) for x in self.target.size),  # type: ignore[arg-type]
            exhaustiveness=p.exhaustiveness,
            n_poses=p.n_poses,
            seed=p.seed,
            ph=p.ph,
            protonation=p.protonation,
            scoring_function=p.scoring_function,
            spacing=p.spacing,
            cpu_per_worker=p.cpu_per_worker,
            want_pose=p.pose_sdf is not None,
        )
        check_receptor_parses(self.settings.receptor_pdbqt, str(self.target.receptor))
        self.cache = DockingCache(p.cache_path, self.settings) if p.cache_path else None
        self._poses_written: set[str] = set()

    def _start_executor(self) -> Executor[DockingSettings, DockOutcome]:
        p = self.params
        return build_executor(p.executor, self.settings, n_workers=p.n_workers, timeout_s=p.timeout_s,
                              address=p.address, timeout_clock=p.timeout_clock, worker_cls=VinaWorker)

    def _counts(self, outcomes: Sequence[DockOutcome]) -> str:
        return f"{sum(1 for o in outcomes if not o.ok)} failed"

    def _value(self, outcome: DockOutcome | None) -> float | Failure:
        if outcome is None:
            return Failure("invalid SMILES")
        if outcome.ok:
            return float(outcome.score)  # type: ignore[arg-type]
        return Failure(outcome.reason or "unknown docking failure")

    def _write_outcomes(self, outcomes: Sequence[DockOutcome]) -> None:
        """With ``pose_sdf``, append the best pose of every newly seen docked molecule (below ``pose_score_max``
        if set)."""
        if not self.params.pose_sdf:
            return
        from rdkit import Chem

        limit = self.params.pose_score_max
        todo = [
            o for o in outcomes
            if o.ok and o.pose_molblock and o.smiles not in self._poses_written and (limit is None or o.score <= limit)
        ]
        if not todo:
            return
        path = Path(self.params.pose_sdf)  # type: ignore[arg-type]
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as handle:
            writer = Chem.SDWriter(handle)
            for o in todo:
                mol = Chem.MolFromMolBlock(o.pose_molblock, removeHs=False)
                if mol is None:
                    continue
                ident = self._ids.get(o.smiles)
                mol.SetProp("_Name", ident or o.smiles)
                if ident:
                    mol.SetProp("id", ident)
                mol.SetProp("SMILES", o.smiles)
                mol.SetProp("vina_score", f"{float(o.score):.3f}")  # type: ignore[arg-type]  # no float noise
                mol.SetProp("receptor", self.settings.receptor_name)
                writer.write(mol)
                self._poses_written.add(o.smiles)
            writer.close()


__all__: list[Any] = ["VinaDocking", "VinaDockingParams"]
