"""One writer per run folder: an exclusive OS lock (``fcntl.flock``) on the folder that a killed process releases."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
from datetime import datetime, timezone
from pathlib import Path

LOCK_NAME = "run.lock"


class RunFolderBusy(RuntimeError):
    """Another process holds the run folder; the message names it (pid, host, start time)."""


class RunLock:
    """``acquire`` takes the lock (non-blocking) and writes who holds it; ``release`` (or exit) frees it.

    The lock is held on the run folder itself (an open descriptor of the directory), not on ``run.lock``: a lock
    file deleted by hand while a run is live let a second run in, and a folder cannot vanish under an open
    descriptor. ``run.lock`` only says who holds the folder."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / LOCK_NAME
        self._folder: int | None = None

    def acquire(self) -> None:
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            try:
                holder = _describe(self.path.read_text())
            except OSError:
                holder = "holder unknown: its run.lock was removed"
            raise RunFolderBusy(f"run folder {folder} is in use by another run ({holder}); "
                                "wait for it to finish or stop it first") from None
        self._folder = fd
        self.path.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                         "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                         "command": " ".join(sys.argv)}) + "\n")

    def release(self) -> None:
        if self._folder is not None:
            fcntl.flock(self._folder, fcntl.LOCK_UN)
            os.close(self._folder)
            self._folder = None


def _describe(text: str) -> str:
    try:
        holder = json.loads(text)
        return f"pid {holder['pid']} on host {holder['host']}, started {holder['started']}"
    except (ValueError, KeyError, TypeError):
        return "holder unknown"
