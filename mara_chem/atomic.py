"""Whole-or-nothing file replacement: a record that a kill can leave old or new, never empty or torn."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def naming(exc: OSError, path: str | Path) -> OSError:
    """``exc`` naming ``path`` (a failed write names no file; a full disk must say which file's disk is full)."""
    return exc if exc.filename else OSError(exc.errno, exc.strerror, str(path))


def write_text_atomic(path: str | Path, text: str) -> None:
    """Replace ``path`` with ``text``: written to a temporary file beside it, fsynced, renamed over it, and the
    folder fsynced, so that a kill or power loss at any moment leaves either the old file or the new one."""
    write_bytes_atomic(path, text.encode("utf-8"), mode=None)


def write_bytes_atomic(path: str | Path, data: bytes, mode: int | None = 0o644) -> None:
    """:func:`write_text_atomic` for bytes; ``mode``: the file's permissions (None: the temporary file's 0600)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise naming(exc, path) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def save_torch_atomic(payload: object, path: str | Path) -> None:
    """``torch.save`` whole or not at all. The bytes are made in memory and written by :func:`write_bytes_atomic`,
    so a full disk is an OSError naming the file, not torch's "enforce fail" from its zip writer."""
    import io

    import torch

    buffer = io.BytesIO()
    torch.save(payload, buffer)
    write_bytes_atomic(path, buffer.getvalue())
