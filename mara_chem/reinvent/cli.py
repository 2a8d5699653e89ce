"""`mara-chem reinvent` (REINVENT's own run with mara-chem's strategies) and `mara-chem export-reinvent`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def cmd_reinvent(args: argparse.Namespace) -> int:
    from mara_chem.reinvent import main

    return main([str(args.run_file), *args.reinvent_args])


#: mara-chem's own flags on `mara-chem reinvent`; everything else is REINVENT's command line
OWN_FLAGS = {"-q": "quiet", "--quiet": "quiet", "-v": "verbose", "--verbose": "verbose"}
LOG_OPTIONS = ("-l", "--log-filename", "--log-level")


def reinvent_command(argv: list[str]) -> int:
    """`mara-chem reinvent ARGS`: ARGS in REINVENT's own order and spelling (``-l LOG FILE`` as well as
    ``FILE -l LOG``), parsed by REINVENT. ``-q`` keeps REINVENT's log out of the terminal: it lowers
    REINVENT's level to errors unless the log goes to a file (``-l``) or its level is given."""
    from mara_chem.reinvent import main

    flags = {OWN_FLAGS[a] for a in argv if a in OWN_FLAGS}
    rest = [a for a in argv if a not in OWN_FLAGS]
    if "quiet" in flags and not any(a.split("=")[0] in LOG_OPTIONS for a in rest):
        rest += ["--log-level", "error"]
    return main(rest)


def cmd_reinvent_hook(args: argparse.Namespace) -> int:
    from mara_chem.reinvent import hook

    if args.action == "on":
        print(f"wrote {hook.enable(args.site_dir)}: REINVENT's own `reinvent` command now runs mara-chem's strategies")
    elif args.action == "off":
        removed = hook.disable(args.site_dir)
        print(f"removed {removed}" if removed else f"no {hook.PTH_NAME} in {args.site_dir or hook.site_packages()}")
    else:
        path = (args.site_dir or hook.site_packages()) / hook.PTH_NAME
        print(f"{'on' if path.exists() else 'off'}: {path}")
    return 0


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
                         description="Everything but -q/-v goes to REINVENT's own command line, in its own order "
                                     "(e.g. `mara-chem reinvent -l run.log run.toml`, --log-level, -d cuda); "
                                     "-q keeps REINVENT's log out of the terminal.")
    run.add_argument("run_file", type=Path)
    run.add_argument("reinvent_args", nargs=argparse.REMAINDER)
    run.set_defaults(func=cmd_reinvent)
    hook = sub.add_parser("reinvent-hook", help="let REINVENT's own `reinvent` command run mara-chem's strategies",
                          description="on: write mara_chem_reinvent.pth into this environment's site-packages (one "
                                      "import line: mara-chem is wired into REINVENT when REINVENT starts a run); "
                                      "off: remove it; status: say which.")
    hook.add_argument("action", choices=["on", "off", "status"])
    hook.add_argument("--site-dir", type=Path, default=None, help="another site directory (default: this environment's)")
    hook.set_defaults(func=cmd_reinvent_hook)
    export = sub.add_parser("export-reinvent", help="write the REINVENT-valid subset of a mara-chem run file")
    export.add_argument("run_file", type=Path)
    export.add_argument("--out", type=Path, required=True, help="the REINVENT run file to write (TOML)")
    export.add_argument("--keep-strategy", action="store_true",
                        help="keep a mara-chem [learning_strategy] (for `mara-chem reinvent`) instead of REINVENT's dap")
    export.set_defaults(func=cmd_export_reinvent)
