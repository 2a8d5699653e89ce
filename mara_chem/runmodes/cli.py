"""`mara-chem run FILE` and `mara-chem validate FILE`: every run mode through its record in ``modes.py``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _mode(path: Path):
    """The file's run mode: by its ``run_type``; a file without one (or unreadable) is staged learning, whose
    loader then says what is wrong; an unknown ``run_type`` raises ConfigError naming the valid ones."""
    from mara_chem.runmodes.config import load_any_config, peek_run_type
    from mara_chem.runmodes.modes import RUN_MODES

    run_type = peek_run_type(path) or "staged_learning"
    if run_type not in RUN_MODES:
        load_any_config(path)  # raises: "[run_type] must be one of ..."
    return RUN_MODES[run_type]


def _load_or_report(path: Path, device: str | None = None, load_models: bool = True):
    """(mode, validated config whose files and device were checked), or None after printing why not."""
    from mara_chem.rl.config import ConfigError, device_name

    try:
        mode = _mode(path)
        cfg = mode.load(path)
        if device:
            try:
                cfg.device = device_name(device)
            except ValueError as exc:
                raise ConfigError(f"--device: {exc}") from None
        mode.preflight(cfg, load_models=load_models, run_file=path)
        return mode, cfg
    except ConfigError as exc:
        print(f"{path}: invalid run file:\n{exc}", file=sys.stderr)
        return None


def cmd_validate(args: argparse.Namespace) -> int:
    loaded = _load_or_report(args.run_file)
    if loaded is None:
        return 2
    mode, cfg = loaded
    print(f"{args.run_file}: OK ({mode.describe(cfg)})")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from mara_chem.runmodes.errors import RunModeError

    loaded = _load_or_report(args.run_file, args.device, load_models=False)  # the run loads them itself
    if loaded is None:
        return 2
    mode, cfg = loaded
    if args.report and not mode.reports:
        print(f"error: --report applies to staged_learning runs, not {mode.run_type}", file=sys.stderr)
        return 2
    if args.restart and not mode.restarts:
        print(f"error: --restart applies to staged_learning runs, not {mode.run_type}", file=sys.stderr)
        return 2
    if args.restart and args.overwrite:
        print("error: --restart keeps the oracle log's paid calls and --overwrite deletes them; choose one",
              file=sys.stderr)
        return 2
    try:
        return mode.run(cfg, args)
    except RunModeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def register(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="run a TOML run file: staged_learning, transfer_learning, sampling or scoring "
                                     "(staged learning, transfer learning and scoring resume after a kill)")
    run.add_argument("run_file", type=Path)
    run.add_argument("--overwrite", action="store_true", help="discard earlier outputs of this run file")
    run.add_argument("--restart", action="store_true",
                     help="staged learning: start again from step 0 with this (changed) run file, keeping the "
                          "folder's oracle log: its paid calls are reused, not paid again")
    run.add_argument("--device", default=None, help="override the run file's device (auto|cpu|cuda)")
    run.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                     help="no per-step progress lines")
    run.add_argument("--report", action="store_true",
                     help="staged learning: print metrics and write the HTML report at the end")
    run.set_defaults(func=cmd_run)
    val = sub.add_parser("validate", help="check a run file of any run_type without running it")
    val.add_argument("run_file", type=Path)
    val.set_defaults(func=cmd_validate)
