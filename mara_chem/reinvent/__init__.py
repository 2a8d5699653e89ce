"""mara-chem inside REINVENT 4: learning strategies in REINVENT's loop, components as REINVENT plugins.

    from mara_chem.reinvent import main
    main(["run.toml"])               # = `mara-chem reinvent run.toml`: REINVENT's own run, mara-chem's strategies

Importing this package does not import REINVENT (nor torch); :func:`install` does, checks it (``compat``)
and wires mara-chem in (``learning``). REINVENT's own ``reinvent`` command gets the same through an import
hook an environment opts into (``mara-chem reinvent-hook on``, :mod:`mara_chem.reinvent.hook`).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: exported names and their modules, imported on first use: :mod:`mara_chem.reinvent.hook` runs at every start-up
#: of an environment where REINVENT's own command was given mara-chem's strategies, and must stay light
_EXPORTS = {"ReinventIncompatible": "compat", "check_reinvent": "compat", "stub_torchvision": "compat",
            "install": "runner", "main": "runner"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
