"""Where a run's time goes: named functions wrapped with a timer in this process, each phase's time exclusive
of the phases nested in it, so that the phases add up to the time of the outermost ones.

The profilers (``benchmarks/step_phases.py``, ``benchmarks/reinvent_side_by_side.py``) wrap functions by name,
inside mara-chem or REINVENT, because a phase is a part of someone else's loop; a name a tree does not have is
reported as missing (:attr:`PhaseClock.missing`) instead of failing, so the same script measures an older or
a refactored tree.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any


class PhaseClock:
    """Accumulates exclusive time per phase label; ``timer`` is ``time.perf_counter`` (wall) or
    ``time.process_time`` (CPU)."""

    def __init__(self, timer: Callable[[], float] = time.perf_counter) -> None:
        self.timer = timer
        self.totals: dict[str, float] = defaultdict(float)
        self.missing: list[str] = []
        self._nested: list[float] = []  # time of the phases nested in each open phase

    def timed(self, function: Callable, label: str | Callable[[], str]) -> Callable:
        """``function`` wrapped so that its exclusive time is added to ``label`` (a label function is asked
        at each call: one function can count to different phases)."""
        clock = self

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = label() if callable(label) else label
            clock._nested.append(0.0)
            start = clock.timer()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = clock.timer() - start
                clock.totals[key] += elapsed - clock._nested.pop()
                if clock._nested:
                    clock._nested[-1] += elapsed

        return wrapper

    def wrap(self, owner: Any, name: str, label: str | Callable[[], str]) -> bool:
        """Replace ``owner.name`` by its timed wrapper; False (and recorded in :attr:`missing`) when absent."""
        if not hasattr(owner, name):
            self.missing.append(f"{getattr(owner, '__name__', owner)}.{name}")
            return False
        setattr(owner, name, self.timed(getattr(owner, name), label))
        return True

    def wrap_everywhere(self, function: Callable, label: str, package: str) -> int:
        """Time ``function`` wherever a module of ``package`` has bound it (``from m import f`` copies the
        name into each importer, so wrapping it in its own module alone would miss those calls); returns the
        number of bindings wrapped."""
        wrapper, count = self.timed(function, label), 0
        for module_name, module in list(sys.modules.items()):
            if module is None or not (module_name == package or module_name.startswith(package + ".")):
                continue
            for attribute, value in list(vars(module).items()):
                if value is function:
                    setattr(module, attribute, wrapper)
                    count += 1
        if not count:
            self.missing.append(f"{package}: {getattr(function, '__name__', function)}")
        return count
