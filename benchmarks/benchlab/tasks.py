"""Benchmark tasks and the high-scoring region each hit belongs to.

Task files live in ``benchmarks/tasks``: the project's own tasks at the top (group ``project``), external
suites one folder each (``tasks/pmo/*.toml``: group ``pmo``). ``--tasks`` takes group names (``project``,
``pmo``, ``all``), task names, ``group/name`` or paths to task files.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchlab.paths import TASK_DIR

PROJECT_GROUP = "project"
ALL = "all"


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
    group: str = PROJECT_GROUP

    @property
    def lenient(self) -> float:
        return self.thresholds[0]

    @property
    def strict(self) -> float:
        return self.thresholds[1]


def load_task(path: str | Path, group: str = PROJECT_GROUP) -> Task:
    """Read a task TOML file (``[task]`` metadata and ``[scoring]``); ``group`` is the suite it belongs to."""
    path = Path(path)
    text = path.read_text()
    data = tomllib.loads(text)
    meta = data["task"]
    lenient, strict = (float(t) for t in meta["thresholds"])
    if not lenient < strict:
        raise ValueError(f"{path}: thresholds must be [lenient, strict] with lenient < strict")
    return Task(meta["name"], meta.get("description", ""), (lenient, strict), data["scoring"],
                meta.get("regions", "none"), list(meta.get("region", [])), path,
                hashlib.sha256(text.encode()).hexdigest(), group)


def available_tasks(task_dir: Path = TASK_DIR) -> dict[str, Task]:
    """Every task file in ``task_dir`` (group ``project``) and in its sub-folders (group = folder name), by task
    name; names are unique over all groups because run folders and figures are named after them."""
    paths = [(p, PROJECT_GROUP) for p in sorted(task_dir.glob("*.toml"))]
    paths += [(p, p.parent.name) for p in sorted(task_dir.glob("*/*.toml"))]
    tasks: dict[str, Task] = {}
    for path, group in paths:
        task = load_task(path, group)
        if task.name in tasks:
            raise ValueError(f"task name {task.name!r} is used by {tasks[task.name].path} and {path}")
        tasks[task.name] = task
    return tasks


def task_groups(known: dict[str, Task]) -> dict[str, list[Task]]:
    """Group name → its tasks (``project``, one per sub-folder, and ``all``)."""
    groups: dict[str, list[Task]] = {}
    for task in known.values():
        groups.setdefault(task.group, []).append(task)
    return {**groups, ALL: list(known.values())}


def resolve_tasks(names: Sequence[str], task_dir: Path = TASK_DIR) -> list[Task]:
    """Group names (``project``, ``pmo``, ``all``), task names, ``group/name`` or paths to task files, to Task
    objects in the order given, each once."""
    known = available_tasks(task_dir)
    groups = task_groups(known)
    out: dict[str, Task] = {}
    for name in names:
        group, _, bare = name.rpartition("/")
        if name in groups:
            out.update((t.name, t) for t in groups[name])
        elif name in known:
            out[name] = known[name]
        elif group in groups and bare in known and known[bare].group == group:
            out[bare] = known[bare]
        elif Path(name).is_file():
            path = Path(name).resolve()
            inside = path.parent.parent == task_dir.resolve()  # a file of one of the suites' folders
            task = load_task(path, path.parent.name if inside else PROJECT_GROUP)
            out[task.name] = task
        else:
            raise SystemExit(f"unknown task {name!r}; valid: a group ({', '.join(groups)}), a task name "
                             f"({', '.join(known)}), group/name, or a path to a task file")
    return list(out.values())


def region_assigner(task: Task) -> Callable[[list[str]], list[str]]:
    """A function mapping SMILES to region names ('other' when none applies): a collapse diagnostic. A task
    with ``regions = "none"`` puts every molecule in the one region ``all``."""
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
