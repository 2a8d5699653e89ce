"""Docking targets: a dockstring receptor by name, or any receptor PDBQT with an explicit box."""

from __future__ import annotations

import importlib.util
import math
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


#: resident memory of Vina 1.2's maps per grid point (all atom types): DRD2 boxes of 20 and 40 A at spacing
#: 0.375 grew the RSS by 361 and 698 MiB, 331 bytes per point (``benchmarks/vina_map_memory.py 20 40``)
VINA_MAP_BYTES_PER_POINT = 330


class ReceptorError(ValueError):
    """A receptor or box that cannot give a meaningful docking score; the message names the file."""


def receptor_coordinates(path: Path) -> list[Vec3]:
    """Coordinates of the ATOM/HETATM records of a PDBQT (fixed columns 31-54); refuses unreadable lines."""
    try:
        text = path.read_text(encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise ReceptorError(f"receptor {str(path)!r} is not a text (PDBQT) file") from None
    except OSError as exc:
        raise ReceptorError(f"receptor {str(path)!r} cannot be read ({exc.strerror})") from None
    coords: list[Vec3] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(("ATOM", "HETATM")):
            try:
                coords.append((float(line[30:38]), float(line[38:46]), float(line[46:54])))
            except ValueError:
                raise ReceptorError(f"receptor {str(path)!r} line {number}: no coordinates in columns 31-54 "
                                    f"(not a PDBQT atom record): {line.strip()[:60]!r}") from None
    if not coords:
        raise ReceptorError(f"receptor {str(path)!r} holds no ATOM/HETATM records (empty or not a PDBQT file)")
    return coords


def map_memory_bytes(size: Vec3, spacing: float) -> int:
    """Vina's map memory for one worker: grid points times the measured bytes per point."""
    points = 1
    for edge in size:
        points *= int(math.ceil(edge / spacing)) + 1
    return points * VINA_MAP_BYTES_PER_POINT


def available_memory_bytes() -> int | None:
    """MemAvailable from /proc/meminfo (Linux), else None (then the memory check is skipped)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_target(target: DockingTarget, spacing: float) -> None:
    """Refuse a receptor without atoms, a box that holds no receptor atom, and maps that cannot fit in memory.

    Each of these used to dock every ligand at exactly 0.0 kcal/mol (or kill the workers) and pay for it.
    """
    coords = receptor_coordinates(target.receptor)
    half = [s / 2 for s in target.size]
    inside = any(all(abs(a[k] - target.center[k]) <= half[k] for k in range(3)) for a in coords)
    if not inside:
        nearest = min(math.dist(a, target.center) for a in coords)
        raise ReceptorError(
            f"box centred at {tuple(target.center)} with size {tuple(target.size)} holds no atom of receptor "
            f"{str(target.receptor)!r} (nearest atom {nearest:.1f} A from the centre); check center/size"
        )
    need = map_memory_bytes(target.size, spacing)
    have = available_memory_bytes()
    if have is not None and need > have:
        raise ReceptorError(
            f"box size {tuple(target.size)} at spacing {spacing:g} A is too large for the memory: Vina's maps need "
            f"about {need / 2**30:.1f} GiB per worker, {have / 2**30:.1f} GiB is available; use a smaller box"
        )
