"""Opening a file of molecules as text: plain or gzip by its first bytes, binary files refused by name."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import IO


class SmilesFileError(ValueError):
    """A SMILES file that is not one (binary, mislabelled gzip); the message names the file and line."""


GZIP_MAGIC = b"\x1f\x8b"


def open_text(path: str | Path) -> IO[str]:
    """A text handle on a plain or gzip file, decided by the file's first bytes (not its name); a file named
    ``.gz`` that is not gzip, or a binary file, is refused naming the file."""
    path = Path(path)
    with open(path, "rb") as handle:
        head = handle.read(4096)
    if head.startswith(GZIP_MAGIC):
        return gzip.open(path, "rt", encoding="utf-8")
    if path.suffix == ".gz":
        raise SmilesFileError(f"{path} is named .gz but is not a gzip file; rename it or compress it")
    if b"\0" in head:
        raise SmilesFileError(f"{path} is a binary file, not a text file of SMILES")
    return open(path, encoding="utf-8", newline="")
