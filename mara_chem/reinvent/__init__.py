"""mara-chem inside REINVENT 4: learning strategies in REINVENT's loop, components as REINVENT plugins.

    from mara_chem.reinvent import main
    main(["run.toml"])               # = `mara-chem reinvent run.toml`: REINVENT's own run, mara-chem's strategies

Importing this package does not import REINVENT; :func:`install` does, checks it (``compat``) and wires
mara-chem in (``learning``).
"""

from __future__ import annotations

from mara_chem.reinvent.compat import ReinventIncompatible, check_reinvent, stub_torchvision
from mara_chem.reinvent.runner import install, main

__all__ = ["ReinventIncompatible", "check_reinvent", "install", "main", "stub_torchvision"]
