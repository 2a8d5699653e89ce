"""Wire mara-chem into REINVENT (:func:`install`) and hand a run file to REINVENT's entry point (:func:`main`)."""

from __future__ import annotations

import sys
from pathlib import Path

from mara_chem.reinvent.compat import ReinventIncompatible, check_reinvent
from mara_chem.reinvent.model_files import RunFileError
from mara_chem.rl.strategies import list_strategies

_installed = False


def install() -> str:
    """Check REINVENT, register every mara-chem strategy type where REINVENT looks strategies up, and wrap
    the points listed in :mod:`mara_chem.reinvent.learning`. Idempotent; returns REINVENT's version."""
    global _installed
    version = check_reinvent()
    if _installed:
        return version
    from reinvent.runmodes import RL
    from reinvent.runmodes.RL import run_staged_learning
    from reinvent.runmodes.RL.learning import Learning
    from reinvent.runmodes.RL.reinvent import ReinventLearning

    from mara_chem.reinvent import learning

    for name in list_strategies():
        if not hasattr(RL, f"{name}_strategy"):  # REINVENT's own "dap" stays REINVENT's
            setattr(RL, f"{name}_strategy", learning.MaraStrategyType(name))
    run_staged_learning.RLConfig = learning.MaraRLConfig
    run_staged_learning.setup_reward_strategy = learning.setup_reward_strategy_factory(
        run_staged_learning.setup_reward_strategy)
    run_staged_learning.create_adapter = learning.create_adapter_keeping_agent_state(run_staged_learning.create_adapter)
    ReinventLearning.update = learning.update_with_context(ReinventLearning.update)
    Learning.get_state_dict = learning.state_dict_with_strategy(Learning.get_state_dict)
    _installed = True
    return version


def preflight(config: dict) -> None:
    """Validate a staged-learning run file with the extended model before REINVENT loads any model (the model
    checks the model files and builds mara-chem's plugin components, :class:`MaraRLConfig`)."""
    if config.get("run_type") != "staged_learning":
        return
    from pydantic import ValidationError
    from reinvent.utils import extract_sections

    from mara_chem.reinvent.learning import MaraRLConfig

    try:
        MaraRLConfig(**extract_sections(config))
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"])
            message = err["msg"].removeprefix("Value error, ")
            lines.append(f"[{where}] {message}" if where else message)
        raise RunFileError("; ".join(lines)) from None


def main(argv: list[str] | None = None) -> int:
    """``mara-chem reinvent RUN.toml [REINVENT's options]``: REINVENT's own run with mara-chem installed."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        version = install()
    except ImportError as exc:
        print(f"error: REINVENT 4 is not importable ({exc}); install REINVENT 4.8 with its dependencies first "
              "(torchvision included)", file=sys.stderr)
        return 2
    except ReinventIncompatible as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from reinvent import Reinvent
    from reinvent.utils import config_parse, parse_command_line

    saved, sys.argv = sys.argv, ["reinvent", *argv]
    try:
        args = parse_command_line()
    finally:
        sys.argv = saved
    if args.config_filename is None:
        print("error: give a REINVENT run file (TOML or JSON)", file=sys.stderr)
        return 2
    path = Path(args.config_filename)
    if not path.is_file():
        print(f"error: run file {path} does not exist", file=sys.stderr)
        return 2
    fmt = path.suffix[1:] if path.suffix[1:] in config_parse.INPUT_FORMAT_CHOICES else args.config_format
    try:
        preflight(config_parse.read_config(path, fmt))
    except RunFileError as exc:
        print(f"{path}: invalid run file for REINVENT {version} with mara-chem: {exc}", file=sys.stderr)
        return 2
    Reinvent.main(args)
    return 0
