"""Benchmark tasks (``benchmarks/tasks/*.toml``) and the high-scoring region each hit belongs to."""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

TASK_DIR = Path(__file__).resolve().parents[1] / "tasks"


@dataclass(frozen=True)
class Task:
    """A benchmark task: a scoring section, (lenient, strict) hit thresholds and its high-scoring regions.

    ``sha256`` is the digest of the task file's text: a finished run is reused only for the same file."""

    name: str
    description: str
    thresholds: tuple[float, float]
    scoring: dict[str, Any]
    region_kind: str
    regions: list[dict[str, Any]] = field(default_factory=list)
    path: Path | None = None
    sha256: str = ""

    @property
    def lenient(self) -> float:
        return self.thresholds[0]

    @property
    def strict(self) -> float:
        return self.thresholds[1]


def load_task(path: str | Path) -> Task:
    """Read a task TOML file (``[task]`` metadata and ``[scoring]``)."""
    path = Path(path)
    text = path.read_text()
    data = tomllib.loads(text)
    meta = data["task"]
    lenient, strict = (float(t) for t in meta["thresholds"])
    if not lenient < strict:
        raise ValueError(f"{path}: thresholds must be [lenient, strict] with lenient < strict")
    return Task(meta["name"], meta.get("description", ""), (lenient, strict), data["scoring"],
                meta.get("regions", "none"), list(meta.get("region", [])), path,
                hashlib.sha256(text.encode()).hexdigest())


def available_tasks(task_dir: Path = TASK_DIR) -> dict[str, Task]:
    """Every task file in ``task_dir``, by task name."""
    tasks = [load_task(p) for p in sorted(task_dir.glob("*.toml"))]
    return {t.name: t for t in tasks}


def resolve_tasks(names: Sequence[str], task_dir: Path = TASK_DIR) -> list[Task]:
    """Task names (or ``all``, or paths to task files) to Task objects."""
    known = available_tasks(task_dir)
    if list(names) == ["all"]:
        return list(known.values())
    out = []
    for name in names:
        if name in known:
            out.append(known[name])
        elif Path(name).is_file():
            out.append(load_task(name))
        else:
            raise SystemExit(f"unknown task {name!r}; valid: {', '.join(known)} or a path to a task file")
    return out


def region_assigner(task: Task) -> Callable[[list[str]], list[str]]:
    """A function mapping SMILES to region names ('other' when none applies): a collapse diagnostic."""
    from rdkit import Chem, DataStructs
    from rdkit.Chem import rdMolDescriptors

    from mara_chem.chem.fingerprints import morgan_fingerprint

    names = [r["name"] for r in task.regions]
    if task.region_kind == "nearest_reference":
        refs = [morgan_fingerprint(r["smiles"], 2, 2048) for r in task.regions]

        def nearest(smiles: list[str]) -> list[str]:
            out = []
            for s in smiles:
                sims = DataStructs.BulkTanimotoSimilarity(morgan_fingerprint(s, 2, 2048), refs)
                out.append(names[int(np.argmax(sims))])
            return out

        return nearest
    if task.region_kind == "smarts":
        patterns = [Chem.MolFromSmarts(r["smarts"]) for r in task.regions]

        def first_match(smiles: list[str]) -> list[str]:
            out = []
            for s in smiles:
                mol = Chem.MolFromSmiles(s)
                hit = next((n for n, p in zip(names, patterns) if mol is not None and mol.HasSubstructMatch(p)), None)
                out.append(hit or "other")
            return out

        return first_match
    if task.region_kind == "ring_counts":
        table = {(int(r["aromatic"]), int(r["aliphatic"])): r["name"] for r in task.regions}

        def island(smiles: list[str]) -> list[str]:
            out = []
            for s in smiles:
                mol = Chem.MolFromSmiles(s)
                key = (rdMolDescriptors.CalcNumAromaticRings(mol), rdMolDescriptors.CalcNumAliphaticRings(mol)) if mol else None
                out.append(table.get(key, "other"))
            return out

        return island
    return lambda smiles: ["all"] * len(smiles)
