"""REINVENT's own ``reinvent`` command with mara-chem's strategies: an import hook an environment opts into.

REINVENT 4.8 validates ``[learning_strategy]`` before it loads any plugin, so mara-chem has to be wired in
before REINVENT's staged-learning module runs. ``mara-chem reinvent-hook on`` writes one line,
``import mara_chem.reinvent.hook``, into ``mara_chem_reinvent.pth`` in the environment's site-packages;
Python reads it at every start-up, and this module (which imports nothing heavy: no torch, no REINVENT) puts
a finder on ``sys.meta_path`` that calls :func:`mara_chem.reinvent.install` as soon as REINVENT has imported
``reinvent.runmodes.RL.run_staged_learning``. Nothing happens in a process that never imports REINVENT.
``mara-chem reinvent-hook off`` removes the file.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: this module runs at every start-up of the environment
    from pathlib import Path
    from types import ModuleType

PTH_NAME = "mara_chem_reinvent.pth"
#: silent when mara-chem is gone (uninstalled with the hook still on): the line looks the package up first
#: (a top-level find_spec imports nothing) and imports the hook only when it is there
PTH_LINE = ("import importlib.util as _mara_chem_util; "
            "_mara_chem_util.find_spec('mara_chem') is None or __import__('mara_chem.reinvent.hook')\n")
#: installed once this REINVENT module has run (its package, ``reinvent.runmodes.RL``, is complete by then)
TARGET = "reinvent.runmodes.RL.run_staged_learning"


class _InstallAfterImport:
    """A meta-path finder (``find_spec``; importlib.abc is not imported for it, to keep start-up light): finds
    ``TARGET`` as the path finder does and wraps its loader to install mara-chem after it ran."""

    def find_spec(self, name: str, path=None, target: ModuleType | None = None):
        if name != TARGET:
            return None
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader, run = spec.loader, spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            _remove_finder()
            from mara_chem.reinvent.compat import ReinventIncompatible
            from mara_chem.reinvent.runner import install

            try:
                install()
            except ReinventIncompatible as exc:  # REINVENT runs on, without mara-chem's strategies
                print(f"mara-chem: {exc}; REINVENT runs without mara-chem's strategies", file=sys.stderr)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


FINDER = _InstallAfterImport()


def _remove_finder() -> None:
    if FINDER in sys.meta_path:
        sys.meta_path.remove(FINDER)


def site_packages() -> Path:
    """This environment's site-packages (where pip puts mara-chem)."""
    import sysconfig
    from pathlib import Path

    return Path(sysconfig.get_paths()["purelib"])


def enable(site_dir: Path | None = None) -> Path:
    """Write the ``.pth`` file (``site_dir``: default this environment's site-packages); returns its path."""
    path = (site_dir or site_packages()) / PTH_NAME
    path.write_text(PTH_LINE)
    return path


def disable(site_dir: Path | None = None) -> Path | None:
    """Remove the ``.pth`` file; returns its path, or None when there was none."""
    path = (site_dir or site_packages()) / PTH_NAME
    if not path.exists():
        return None
    path.unlink()
    return path


if TARGET not in sys.modules and FINDER not in sys.meta_path:
    sys.meta_path.insert(0, FINDER)
