"""``mara-chem report PATH [--threshold T] [--budget B] [--top 1000] [--known FILE ...] [--cluster-similarity 0.6]``.

PATH is a run folder (writes RUN_DIR/report.html, hits.sdf, hits.csv) or the CSV of a sampling or scoring
run, or a folder holding one (writes STEM_report.html, STEM_hits.sdf, STEM_hits.csv beside it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mara_chem.metrics.cli import add_fingerprint_args, options_from_args, positive_int, unit_interval
from mara_chem.report.defaults import DEFAULT_CLUSTER_SIMILARITY, DEFAULT_TOP


def cmd_report(args: argparse.Namespace) -> int:
    from mara_chem.report.build import report_input, write_report, write_table_report

    try:
        kind, path = report_input(args.run_dir)
        if kind == "run":
            out = write_report(path, args.threshold, args.budget, args.top, options_from_args(args), args.known,
                               args.cluster_similarity)
            prefix = ""
        else:
            out = write_table_report(path, args.threshold, args.top, args.known, args.cluster_similarity)
            prefix = f"{path.stem}_"
    except (FileNotFoundError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {out}, {out.parent / (prefix + 'hits.sdf')}, {out.parent / (prefix + 'hits.csv')}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``report`` sub-command."""
    p = sub.add_parser("report", help="self-contained HTML report (run folder or sampling/scoring CSV), hits.sdf, hits.csv")
    p.add_argument("run_dir", type=Path, metavar="PATH", help="run folder, or a sampling/scoring CSV (or its folder)")
    p.add_argument("--threshold", type=unit_interval, default=None,
                   help="score threshold τ in [0, 1] (default: the run's hit_threshold, else 0.8; a CSV: every molecule)")
    p.add_argument("--budget", type=positive_int, default=None, help="oracle-call budget B (default as for `metrics`)")
    p.add_argument("--top", type=positive_int, default=DEFAULT_TOP,
                   help=f"best hits in the page's paged table (default {DEFAULT_TOP}; hits.csv/.sdf hold all)")
    p.add_argument("--cluster-similarity", type=unit_interval, default=DEFAULT_CLUSTER_SIMILARITY, metavar="T",
                   help="Tanimoto at which a hit joins a cluster (leader clustering, best hit first; "
                        f"default {DEFAULT_CLUSTER_SIMILARITY})")
    p.add_argument("--known", type=Path, action="append", default=[], metavar="FILE",
                   help="reference SMILES file whose molecules are marked known (repeatable; the run's own "
                        "KnownCompounds files and tuning series are always used)")
    p.add_argument("--n", type=positive_int, default=100, help="N of OB_N (default 100)")
    add_fingerprint_args(p)
    p.set_defaults(func=cmd_report)
