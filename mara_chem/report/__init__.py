"""The HTML run report and curve helpers (reusable by a multi-seed benchmark runner).

Names are imported lazily (PEP 562) so that building the CLI parser does not load matplotlib.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "write_report": "build",
    "call_grid": "curves", "circles_curve": "curves", "hits_curve": "curves", "molecules_of": "curves",
    "score_per_step": "curves",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'mara_chem.report' has no attribute {name!r}")
    return getattr(importlib.import_module(f"mara_chem.report.{_EXPORTS[name]}"), name)
