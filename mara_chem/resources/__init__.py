"""Files shipped inside the package (scoring files, the example QSAR model, the bundled prior), found by name.

They live here, not in top-level folders of the checkout, so that an installed wheel has them too. A run file
may name them the short way (``filename = "similar_to_references.toml"``, ``prior_file = "moses-gru-2x256"``)
or by the old checkout paths (``priors/moses-gru-2x256.prior``): a path that exists always wins; only a path
that does not exist is looked up here, by its file name.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Literal

Kind = Literal["scoring", "models", "priors"]
SUFFIXES: dict[str, tuple[str, ...]] = {"scoring": (".toml", ".json"), "models": (".json",), "priors": (".prior",)}


def resource_dir(kind: Kind) -> Path:
    """The installed folder holding one kind of bundled file (a real folder: wheels are installed unzipped)."""
    return Path(str(files(__name__) / kind))


def bundled_names(kind: Kind) -> list[str]:
    return sorted(p.name for p in resource_dir(kind).iterdir() if p.suffix in SUFFIXES[kind])


def bundled(kind: Kind, name: str | Path) -> Path | None:
    """The bundled file of this kind named like ``name`` (its file name, with or without suffix), or None."""
    base = Path(name).name
    folder = resource_dir(kind)
    for candidate in (base, *(base + s for s in SUFFIXES[kind])):
        path = folder / candidate
        if candidate and path.is_file():
            return path
    return None


def resolve(kind: Kind, name: str | Path) -> Path:
    """``name`` itself when it exists, else the bundled file of that name, else ``name`` (for the caller's error)."""
    path = Path(name)
    if path.exists():
        return path
    return bundled(kind, name) or path


def bundled_prior() -> Path:
    """The prior that ships with the package (GRU 2 x 256 trained on MOSES; see priors/moses-gru-2x256.md)."""
    path = bundled("priors", "moses-gru-2x256")
    assert path is not None, "the package was installed without its bundled prior"
    return path
