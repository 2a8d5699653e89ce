"""``mara-chem report RUN_DIR [--threshold 0.8] [--budget B] [--top 24]``: write RUN_DIR/report.html."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mara_chem.metrics.cli import add_fingerprint_args, options_from_args, positive_int, unit_interval


def cmd_report(args: argparse.Namespace) -> int:
    from mara_chem.report.build import write_report

    try:
        out = write_report(args.run_dir, args.threshold, args.budget, args.top, options_from_args(args))
    except (FileNotFoundError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {out}, {out.parent / 'hits.sdf'}, {out.parent / 'hits.csv'}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``report`` sub-command."""
    p = sub.add_parser("report", help="self-contained HTML run report, hits.sdf and hits.csv")
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR")
    p.add_argument("--threshold", type=unit_interval, default=0.8, help="score threshold τ in [0, 1] (default 0.8)")
    p.add_argument("--budget", type=positive_int, default=None, help="oracle-call budget B (default as for `metrics`)")
    p.add_argument("--top", type=positive_int, default=24, help="hits drawn in the grid (default 24)")
    p.add_argument("--n", type=positive_int, default=100, help="N of OB_N (default 100)")
    add_fingerprint_args(p)
    p.set_defaults(func=cmd_report)
