"""One writer per run folder: an exclusive OS file lock (``fcntl.flock``) that a killed process releases."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

LOCK_NAME = "run.lock"


class RunFolderBusy(RuntimeError):
    """Another process holds the run folder; the message names it (pid, host, start time)."""


class RunLock:
    """``acquire`` takes the lock (non-blocking) and writes who holds it; ``release`` (or exit) frees it."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / LOCK_NAME
        self._handle: IO[str] | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = _describe(handle.read())
            handle.close()
            raise RunFolderBusy(f"run folder {self.path.parent} is in use by another run ({holder}); "
                                "wait for it to finish or stop it first") from None
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                 "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                 "command": " ".join(sys.argv)}) + "\n")
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def _describe(text: str) -> str:
    try:
        holder = json.loads(text)
        return f"pid {holder['pid']} on host {holder['host']}, started {holder['started']}"
    except (ValueError, KeyError, TypeError):
        return "holder unknown"
