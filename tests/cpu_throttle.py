"""Run a process at a fraction of a core (SIGSTOP/SIGCONT duty cycle): a busy machine, made on purpose."""

from __future__ import annotations

import os
import signal
import threading
import time


class Throttle:
    """While active, ``pid`` runs ``share`` of every ``period`` seconds and is stopped the rest."""

    def __init__(self, pid: int, share: float = 0.1, period: float = 0.1):
        self.pid, self.on, self.off = pid, share * period, (1 - share) * period
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                os.kill(self.pid, signal.SIGSTOP)
                time.sleep(self.off)
                os.kill(self.pid, signal.SIGCONT)
            except ProcessLookupError:
                return
            time.sleep(self.on)

    def __enter__(self) -> "Throttle":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        try:
            os.kill(self.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
