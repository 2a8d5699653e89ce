"""``mara-chem metrics RUN_DIR --threshold 0.8 0.85 --budget 10000``: print the table, write metrics.json."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path


def unit_interval(text: str) -> float:
    """An argparse type: a finite number in [0, 1] (a score threshold, a Tanimoto distance)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise argparse.ArgumentTypeError(f"{text} must be a number in [0, 1]")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least 1")
    return value


def add_fingerprint_args(parser: argparse.ArgumentParser) -> None:
    """--radius/--bits (Morgan) and the #Circles knobs, shared with ``report``."""
    parser.add_argument("--fingerprint", choices=["default", "moses"], default="default",
                        help="preset: default = Morgan r2/2048 bits, moses = Morgan r2/1024 bits as MOSES's IntDiv")
    parser.add_argument("--radius", type=int, default=None, help="Morgan radius (default: the preset's, 2)")
    parser.add_argument("--bits", type=int, default=None,
                        help="Morgan fingerprint size (default: the preset's, 2048 or 1024)")
    parser.add_argument("--circle-distance", type=unit_interval, default=0.75,
                        help="#Circles Tanimoto distance t in [0, 1] (default 0.75)")
    parser.add_argument("--seed", type=int, default=None,
                        help="#Circles: visit the hits in a random order with this seed (default: discovery order)")


def options_from_args(args: argparse.Namespace):
    from mara_chem.metrics.options import FINGERPRINT_PRESETS, FingerprintSpec, MetricOptions

    preset = FINGERPRINT_PRESETS[args.fingerprint]
    spec = FingerprintSpec(preset.radius if args.radius is None else args.radius,
                           preset.n_bits if args.bits is None else args.bits)
    if spec.radius < 0 or spec.n_bits < 1:
        raise ValueError(f"--radius must be >= 0 and --bits >= 1, got {spec.radius} and {spec.n_bits}")
    return MetricOptions(n=getattr(args, "n", 100), fingerprint=spec,
                         circle_distance=args.circle_distance, seed=args.seed)


def cmd_metrics(args: argparse.Namespace) -> int:
    from mara_chem.metrics.compute import compute_metrics
    from mara_chem.metrics.table import format_table

    try:
        metrics = compute_metrics(args.run_dir, args.threshold, args.budget, options_from_args(args))
    except (FileNotFoundError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    out = args.json or Path(args.run_dir) / "metrics.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(metrics, indent=2) + "\n")
    print(format_table(metrics))
    print(f"wrote {out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``metrics`` sub-command."""
    p = sub.add_parser("metrics", help="Yield, OB_N, IntDiv1, #Circles, AUC top-10 from a run's oracle log")
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR")
    p.add_argument("--threshold", type=unit_interval, nargs="+", default=[0.8],
                   help="score thresholds τ in [0, 1] (default 0.8)")
    p.add_argument("--budget", type=positive_int, default=None,
                   help="oracle-call budget B (default: run.json stages' max_oracle_calls, else calls in the log)")
    p.add_argument("--n", type=positive_int, default=100, help="N of OB_N (default 100)")
    add_fingerprint_args(p)
    p.add_argument("--json", type=Path, default=None, help="output path (default RUN_DIR/metrics.json)")
    p.set_defaults(func=cmd_metrics)
