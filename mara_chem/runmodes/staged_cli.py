"""The staged-learning run mode's ``describe`` and ``run`` (its record in ``runmodes/modes.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def describe(cfg) -> str:  # noqa: ANN001  (RunConfig)
    n_ep = sum(len(spec.endpoint) for st in cfg.stage for e in st.scoring.component for spec in e.values())
    return (f"{len(cfg.stage)} stage(s), {n_ep} scoring endpoint(s), strategy {cfg.learning_strategy['type']}, "
            f"run folder {cfg.run_dir}")


def run(cfg, args: argparse.Namespace) -> int:  # noqa: ANN001  (RunConfig, checked by the preflight)
    import signal

    from mara_chem.rl.loop import RunDirError, RunInterrupted, StagedLearning

    if cfg.json_out_config:
        out = Path(cfg.json_out_config)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(cfg.model_dump_json(indent=2) + "\n")
    try:
        runner = StagedLearning(cfg, overwrite=args.overwrite, quiet=args.quiet)
    except RunDirError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    resume = f"resume with: mara-chem run {args.run_file}"
    try:
        result = runner.run(stop_on_signals=True)
    except RunInterrupted as exc:
        print(f"{exc}; every paid oracle call is in the log; {resume}", file=sys.stderr)
        return 128 + signal.Signals[exc.signal_name].value
    if result.interrupted_by:
        print(f"stopped by {result.interrupted_by} after step {result.steps} ({result.oracle_calls} oracle calls); "
              f"{resume}", file=sys.stderr)
        return 128 + signal.Signals[result.interrupted_by].value
    print(f"run finished ({result.stop_reason}): {result.steps} steps, {result.oracle_calls} oracle calls, "
          f"{result.hits} hits >= {cfg.parameters.hit_threshold:g} in {result.hit_scaffolds} scaffolds")
    print(f"results in {result.run_dir}/ (oracle_log.csv, summary_*.csv, checkpoint.pt, run.json)")
    if args.report:
        _finish_with_report(result.run_dir, cfg.parameters.hit_threshold)
    return 0


def _finish_with_report(run_dir: Path, threshold: float) -> None:
    """Metrics table and HTML report at the end of a run (the README's main job ends here)."""
    try:
        from mara_chem.metrics import compute_metrics, format_table
        from mara_chem.report import write_report
    except ImportError as exc:  # pragma: no cover - partial install
        print(f"(metrics/report unavailable: {exc})")
        return
    metrics = compute_metrics(run_dir, thresholds=[threshold], budget=None)
    print(format_table(metrics))
    print(f"report: {write_report(run_dir, threshold=threshold, budget=None)}")
