"""Registers the sub-commands that live next to their own code: ``run``/``validate`` and the run modes
(``runmodes``), ``metrics``, ``report``, ``plugins``, and the REINVENT commands (``reinvent``). A module that is
not installed is left out; a dependency missing inside one is raised."""

from __future__ import annotations

import argparse
import importlib

_MODULES = ("mara_chem.runmodes.cli", "mara_chem.metrics.cli", "mara_chem.report.cli", "mara_chem.plugins",
            "mara_chem.reinvent.cli")


def register(sub: argparse._SubParsersAction) -> None:
    for name in _MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # a real missing dependency inside the module: surface it
                raise
            continue
        module.register(sub)
