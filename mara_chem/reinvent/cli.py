"""`mara-chem reinvent` (REINVENT's own run with mara-chem's strategies) and `mara-chem export-reinvent`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def cmd_reinvent(args: argparse.Namespace) -> int:
    from mara_chem.reinvent import main

    return main([str(args.run_file), *args.reinvent_args])


def cmd_export_reinvent(args: argparse.Namespace) -> int:
    from mara_chem.reinvent.export import export_run_file

    try:
        changes = export_run_file(args.run_file, args.out, keep_strategy=args.keep_strategy)
    except ValueError as exc:
        print(f"{args.run_file}: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} (REINVENT 4.8 staged_learning)")
    for line in changes:
        print(line)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("reinvent", help="run a REINVENT 4 run file in REINVENT with mara-chem's strategies installed",
                         description="Everything after the run file goes to REINVENT (e.g. --log-level, -d cuda).")
    run.add_argument("run_file", type=Path)
    run.add_argument("reinvent_args", nargs=argparse.REMAINDER)
    run.set_defaults(func=cmd_reinvent)
    export = sub.add_parser("export-reinvent", help="write the REINVENT-valid subset of a mara-chem run file")
    export.add_argument("run_file", type=Path)
    export.add_argument("--out", type=Path, required=True, help="the REINVENT run file to write (TOML)")
    export.add_argument("--keep-strategy", action="store_true",
                        help="keep a mara-chem [learning_strategy] (for `mara-chem reinvent`) instead of REINVENT's dap")
    export.set_defaults(func=cmd_export_reinvent)
