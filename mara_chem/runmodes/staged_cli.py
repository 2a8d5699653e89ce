"""The staged-learning run mode's ``describe`` and ``run`` (its record in ``runmodes/modes.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def describe(cfg) -> str:  # noqa: ANN001  (RunConfig)
    n_ep = sum(len(spec.endpoint) for st in cfg.stage for e in st.scoring.component for spec in e.values())
    genetic = (f", genetic exploration {cfg.genetic.generations} x {cfg.genetic.offspring} offspring a step"
               if cfg.genetic_on else "")
    return (f"{len(cfg.stage)} stage(s), {n_ep} scoring endpoint(s), strategy {cfg.learning_strategy['type']}"
            f"{genetic}, run folder {cfg.run_dir}")


def run(cfg, args: argparse.Namespace) -> int:  # noqa: ANN001  (RunConfig, checked by the preflight)
    import signal

    from mara_chem.rl.loop import (COLLAPSE_STEPS, VALIDITY_COLLAPSED, AgentDiverged, RunDirError, RunInterrupted,
                                   StagedLearning)

    try:  # json_out_config is written by the run once the folder is locked and the resume checked
        runner = StagedLearning(cfg, overwrite=args.overwrite, quiet=args.quiet, restart=args.restart)
    except RunDirError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    resume = f"resume with: mara-chem run {args.run_file}"
    try:
        result = runner.run(stop_on_signals=True)
    except AgentDiverged as exc:
        print(f"error: {exc}; change the run file and start again from step 0 keeping them with: "
              f"mara-chem run {args.run_file} --restart", file=sys.stderr)
        return 3
    except RunInterrupted as exc:
        _ignore_stop_signals()
        print(f"{exc}; every paid oracle call is in the log; {resume}", file=sys.stderr)
        return 128 + signal.Signals[exc.signal_name].value
    if result.interrupted_by:
        _ignore_stop_signals()
        print(f"stopped by {result.interrupted_by} after step {result.steps} ({result.oracle_calls} oracle calls); "
              f"{resume}", file=sys.stderr)
        return 128 + signal.Signals[result.interrupted_by].value
    if result.stop_reason == VALIDITY_COLLAPSED:
        print(f"error: stopped after step {result.steps}: the agent no longer samples valid SMILES "
              f"({COLLAPSE_STEPS} steps in a row); lower learning_strategy.rate and start again with --overwrite",
              file=sys.stderr)
        return 3
    print(f"run finished ({result.stop_reason}): {result.steps} steps, {result.oracle_calls} oracle calls, "
          f"{result.hits} hits >= {cfg.parameters.hit_threshold:g} in {result.hit_scaffolds} scaffolds")
    print(f"results in {result.run_dir}/ (oracle_log.csv, summary_*.csv, checkpoint.pt, run.json)")
    if args.report:
        _finish_with_report(result.run_dir, cfg.parameters.hit_threshold)
    return 0


def _ignore_stop_signals() -> None:
    """The run has stopped on a signal and its state is on disk: one more Ctrl-C while the interpreter shuts
    down would only print a KeyboardInterrupt traceback from some atexit hook."""
    import signal

    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_IGN)


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
