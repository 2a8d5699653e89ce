"""`mara-chem run` and `mara-chem validate`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _load_or_report(path: Path, device: str | None = None, load_models: bool = True):
    """The validated run config whose files and device were checked, or None after printing why not."""
    from mara_chem.rl.config import ConfigError, load_run_config
    from mara_chem.rl.preflight import check_run

    try:
        cfg = load_run_config(path)
        if device:
            cfg.device = device
        check_run(cfg, load_models=load_models)
        return cfg
    except ConfigError as exc:
        print(f"{path}: invalid run file:\n{exc}", file=sys.stderr)
        return None


def cmd_validate(args: argparse.Namespace) -> int:
    cfg = _load_or_report(args.run_file)
    if cfg is None:
        return 2
    n_ep = sum(len(spec.endpoint) for st in cfg.stage for e in st.scoring.component for spec in e.values())
    print(f"{args.run_file}: OK ({len(cfg.stage)} stage(s), {n_ep} scoring endpoint(s), "
          f"strategy {cfg.learning_strategy['type']}, run folder {cfg.run_dir})")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    import signal

    from mara_chem.rl.loop import RunDirError, RunInterrupted, StagedLearning

    cfg = _load_or_report(args.run_file, args.device, load_models=False)  # the run loads them itself
    if cfg is None:
        return 2
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


def register(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="run a staged-learning TOML file (resumes from its checkpoint if present)")
    run.add_argument("run_file", type=Path)
    run.add_argument("--overwrite", action="store_true", help="discard earlier outputs in the run folder")
    run.add_argument("--device", default=None, help="override the run file's device (auto|cpu|cuda)")
    run.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                     help="no per-step progress lines")
    run.add_argument("--report", action="store_true", help="print metrics and write the HTML report at the end")
    run.set_defaults(func=cmd_run)
    val = sub.add_parser("validate", help="check a run file without running it")
    val.add_argument("run_file", type=Path)
    val.set_defaults(func=cmd_validate)
