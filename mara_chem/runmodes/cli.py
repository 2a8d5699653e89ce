"""`mara-chem run FILE` and `mara-chem validate FILE`: one entry point that dispatches on ``run_type``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mara_chem.runmodes import staged_cli


def _is_staged(path: Path) -> bool:
    """Staged-learning files go to ``mara_chem.runmodes.staged_cli`` whole (its validation and preflight checks)."""
    from mara_chem.runmodes.config import peek_run_type

    return peek_run_type(path) in (None, "staged_learning")


def _load_or_report(path: Path, device: str | None = None, load_models: bool = True):
    """The validated config of a non-staged run mode whose files and device were checked, or None after
    printing why not."""
    from mara_chem.rl.config import ConfigError
    from mara_chem.runmodes.config import check_device, load_any_config
    from mara_chem.runmodes.preflight import check_mode

    try:
        cfg = load_any_config(path)
        if device:
            try:
                cfg.device = check_device(device)
            except ValueError as exc:
                raise ConfigError(f"--device: {exc}") from None
        check_mode(cfg, load_models=load_models)
        return cfg
    except ConfigError as exc:
        print(f"{path}: invalid run file:\n{exc}", file=sys.stderr)
        return None


def cmd_validate(args: argparse.Namespace) -> int:
    if _is_staged(args.run_file):
        return staged_cli.cmd_validate(args)
    cfg = _load_or_report(args.run_file)
    if cfg is None:
        return 2
    if cfg.run_type == "transfer_learning":
        p = cfg.parameters
        what = f"fine-tune {p.input_model_file} on {p.smiles_file} for up to {p.num_epochs} epochs -> {p.output_model_file}"
    elif cfg.run_type == "sampling":
        p = cfg.parameters
        scored = f", scored on {_n_endpoints(cfg.scoring)} endpoint(s)" if cfg.scoring else ""
        what = f"sample {p.num_smiles} molecules from {p.model_file} -> {p.output_file}{scored}"
    else:
        p = cfg.parameters
        what = f"score {p.smiles_file} on {_n_endpoints(cfg.scoring)} endpoint(s) -> {p.output_csv}"
    print(f"{args.run_file}: OK ({cfg.run_type}: {what})")
    return 0


def _n_endpoints(spec) -> int:
    return sum(len(c.endpoint) for entry in spec.component for c in entry.values())


def cmd_run(args: argparse.Namespace) -> int:
    from mara_chem.runmodes.errors import RunModeError

    if _is_staged(args.run_file):
        return staged_cli.cmd_run(args)
    cfg = _load_or_report(args.run_file, args.device, load_models=False)  # the run loads them itself
    if cfg is None:
        return 2
    if args.report:
        print(f"error: --report applies to staged_learning runs, not {cfg.run_type}", file=sys.stderr)
        return 2
    if cfg.json_out_config:
        out = Path(cfg.json_out_config)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(cfg.model_dump(mode="json"), indent=2) + "\n")
    try:
        return _RUNNERS[cfg.run_type](cfg, args)
    except RunModeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _run_tl(cfg, args: argparse.Namespace) -> int:
    from mara_chem.runmodes.transfer_learning import format_report, run_transfer_learning

    result = run_transfer_learning(cfg, overwrite=args.overwrite, quiet=args.quiet)
    print(format_report(result.report))
    print(f"wrote {result.output_model_file} (and {result.output_model_file.name}.tl.json)")
    return 0


def _run_sampling(cfg, args: argparse.Namespace) -> int:
    from mara_chem.runmodes.sampling import run_sampling

    result = run_sampling(cfg, overwrite=args.overwrite, quiet=args.quiet)
    extra = f" and {result.sdf_file}" if result.sdf_file else ""
    print(f"wrote {result.rows} molecules to {result.output_file}{extra} ({result.drawn} draws, "
          f"{result.drawn / max(result.seconds, 1e-9):.0f} samples/s)")
    return 0


def _run_scoring(cfg, args: argparse.Namespace) -> int:
    from mara_chem.runmodes.scoring import run_scoring

    result = run_scoring(cfg, overwrite=args.overwrite, quiet=args.quiet)
    resumed = f", resumed after row {result.resumed_from}" if result.resumed_from else ""
    print(f"scored {result.rows} molecules into {result.output_csv}{resumed} ({result.seconds:.1f} s)")
    return 0


_RUNNERS = {"transfer_learning": _run_tl, "sampling": _run_sampling, "scoring": _run_scoring}


def register(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="run a TOML run file: staged_learning, transfer_learning, sampling or scoring "
                                     "(staged learning, transfer learning and scoring resume after a kill)")
    run.add_argument("run_file", type=Path)
    run.add_argument("--overwrite", action="store_true", help="discard earlier outputs of this run file")
    run.add_argument("--device", default=None, help="override the run file's device (auto|cpu|cuda)")
    run.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                     help="no per-step progress lines")
    run.add_argument("--report", action="store_true",
                     help="staged learning: print metrics and write the HTML report at the end")
    run.set_defaults(func=cmd_run)
    val = sub.add_parser("validate", help="check a run file of any run_type without running it")
    val.add_argument("run_file", type=Path)
    val.set_defaults(func=cmd_validate)
