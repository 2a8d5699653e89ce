"""Output paths checked before any work: each one writable where it points, and none of them an input.

A run that finds out at its first write that an output path is a directory, lies under a file, or is one of
its own inputs has already paid for oracle calls (or destroyed the input); these checks run in the preflight
of every run mode and say which key is wrong, in one line each.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(".")


def _creatable(key: str, path: Path, what: str) -> str | None:
    """Why ``path`` (absent) cannot be created: the first existing folder above it is a file or not writable."""
    above = _nearest_existing(path.parent)
    if not above.is_dir():
        return f"[{key}] {what} {str(path)!r} lies under {str(above)!r}, which is a file, not a folder"
    if not os.access(above, os.W_OK | os.X_OK):
        return f"[{key}] {what} {str(path)!r} cannot be created: {str(above)!r} is not writable"
    return None


def check_output_file(key: str, path: str | Path, what: str = "output file") -> str | None:
    """Why a file cannot be written at ``path`` (a directory there, a file above it, no permission), or None."""
    p = Path(path).expanduser()
    if str(path).endswith(("/", os.sep)) or p.name in ("", ".", ".."):
        return f"[{key}] {what} {str(path)!r} names a folder, not a file"
    if p.is_dir():
        return f"[{key}] {what} {str(path)!r} is a directory, not a file"
    if p.exists():
        return None if os.access(p, os.W_OK) else f"[{key}] {what} {str(path)!r} is not writable (permissions)"
    return _creatable(key, p, what)


def check_output_dir(key: str, path: str | Path, what: str = "output folder") -> str | None:
    """Why a folder cannot be used or created at ``path``, or None."""
    p = Path(path).expanduser()
    if p.exists():
        if not p.is_dir():
            return f"[{key}] {what} {str(path)!r} is a file, not a folder"
        return None if os.access(p, os.W_OK | os.X_OK) else f"[{key}] {what} {str(path)!r} is not writable"
    return _creatable(key, p, what)


def same_path(a: str | Path, b: str | Path) -> bool:
    """True when both name the same file (the same inode where both exist, else the same absolute path)."""
    pa, pb = Path(a).expanduser(), Path(b).expanduser()
    try:
        if pa.exists() and pb.exists():
            return os.path.samefile(pa, pb)
    except OSError:
        pass
    return pa.resolve() == pb.resolve()


def check_not_inputs(outputs: Mapping[str, str | Path], inputs: Mapping[str, str | Path]) -> list[str]:
    """One line per output path that is also an input (writing it would destroy what the run reads)."""
    problems = []
    for out_key, out in outputs.items():
        for in_key, source in inputs.items():
            if same_path(out, source):
                problems.append(f"[{out_key}] {str(out)!r} is also {in_key}: the run would overwrite its own input; "
                                "choose another path")
                break
    return problems
