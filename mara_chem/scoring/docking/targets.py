"""Docking targets: a dockstring receptor by name, or any receptor PDBQT with an explicit box."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class DockingTarget:
    """A receptor file and the search box (centre and edge lengths, Angstrom) Vina computes maps for."""

    name: str
    receptor: Path
    center: Vec3
    size: Vec3


@lru_cache(maxsize=1)
def dockstring_targets_dir() -> Path | None:
    """The ``resources/targets`` folder of the installed dockstring package, found without importing it."""
    spec = importlib.util.find_spec("dockstring")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "resources" / "targets"
    return path if path.is_dir() else None


def list_dockstring_targets() -> list[str]:
    """Names of the receptors dockstring ships (58 in dockstring 0.3), e.g. ``DRD2``; empty if not installed."""
    folder = dockstring_targets_dir()
    if folder is None:
        return []
    return sorted(p.name[: -len("_target.pdbqt")] for p in folder.glob("*_target.pdbqt"))


def parse_box_conf(path: Path) -> tuple[Vec3, Vec3]:
    """Read a Vina config file's ``center_x`` .. ``size_z`` lines (dockstring's ``*_conf.txt``)."""
    values: dict[str, float] = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = float(value)
    try:
        center = (values["center_x"], values["center_y"], values["center_z"])
        size = (values["size_x"], values["size_y"], values["size_z"])
    except KeyError as exc:
        raise ValueError(f"{path}: no {exc.args[0]} line") from None
    return center, size


def dockstring_target(name: str) -> DockingTarget:
    """The dockstring receptor and its curated box; the name is case-insensitive (``drd2`` = ``DRD2``)."""
    folder = dockstring_targets_dir()
    if folder is None:
        raise ValueError(f"docking target {name!r} needs the dockstring package (pip install dockstring)")
    names = {n.upper(): n for n in list_dockstring_targets()}
    if name.upper() not in names:
        raise ValueError(f"unknown dockstring target {name!r}; valid: {sorted(names.values())}")
    canonical = names[name.upper()]
    center, size = parse_box_conf(folder / f"{canonical}_conf.txt")
    return DockingTarget(canonical, folder / f"{canonical}_target.pdbqt", center, size)


def resolve_target(
    target: str | None,
    receptor: str | Path | None,
    center: Vec3 | None = None,
    size: Vec3 | None = None,
) -> DockingTarget:
    """A dockstring name (whose box ``center``/``size`` may override) or a receptor path with both box fields.

    A relative receptor path is taken from the current directory, as the run file's other paths are.
    """
    if (target is None) == (receptor is None):
        raise ValueError("give exactly one of 'target' (a dockstring name) or 'receptor' (a PDBQT path)")
    if target is not None:
        base = dockstring_target(target)
        return DockingTarget(base.name, base.receptor, tuple(center or base.center), tuple(size or base.size))
    if center is None or size is None:
        raise ValueError("a 'receptor' needs the box: 'center' and 'size' (Angstrom)")
    path = Path(receptor).expanduser()  # type: ignore[arg-type]
    if not path.is_file():
        raise FileNotFoundError(f"receptor PDBQT {str(receptor)!r} not found (resolved to {path.resolve()})")
    return DockingTarget(path.stem, path.resolve(), tuple(center), tuple(size))  # type: ignore[arg-type]
