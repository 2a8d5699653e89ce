"""Every run mode in one table: ``run_type`` -> how its file is loaded, checked, described and run.

``mara-chem run`` and ``mara-chem validate`` (``cli.py``) look the mode up here and never switch on
``run_type``; a new mode is its config model (``config.py``), its preflight (``preflight.py``), its runner
module, and one ``RunMode`` record below.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RunMode:
    """``load(path)`` validates the file (ConfigError naming the key), ``preflight(cfg, load_models=,
    run_file=)`` checks what the run would open (ConfigError, one line per problem; ``run_file``, the file
    itself, may be no output path), ``describe(cfg)`` is what
    ``validate`` prints after OK, ``run(cfg, args)`` runs it and returns the exit code; ``reports``: the
    mode can end with ``--report``; ``restarts``: it can start again keeping its oracle log (``--restart``)."""

    run_type: str
    load: Callable[[Path], Any]
    preflight: Callable[..., None]
    describe: Callable[[Any], str]
    run: Callable[[Any, argparse.Namespace], int]
    reports: bool = False
    restarts: bool = False


def _load_staged(path: Path):
    from mara_chem.rl.config import load_run_config

    return load_run_config(path)


def _load_other(path: Path):
    from mara_chem.runmodes.config import load_any_config

    return load_any_config(path)


def _check_staged(cfg, load_models: bool = True, run_file: Path | None = None) -> None:  # noqa: ANN001
    from mara_chem.rl.preflight import check_run

    check_run(cfg, load_models=load_models, run_file=run_file)


def _check(name: str) -> Callable[..., None]:
    def check(cfg, load_models: bool = True, run_file: Path | None = None) -> None:  # noqa: ANN001
        from mara_chem.runmodes import preflight

        getattr(preflight, name)(cfg, load_models=load_models, run_file=run_file)

    check.__name__ = name
    return check


def _n_endpoints(spec) -> int:  # noqa: ANN001  (ScoringSpec)
    return sum(len(c.endpoint) for entry in spec.component for c in entry.values())


def _write_json_out(cfg) -> None:  # noqa: ANN001
    """The validated run file as JSON; written once the run mode's own checks (its resume check included) have
    passed and the run has done its work, so a refused run leaves no file behind."""
    if cfg.json_out_config:
        out = Path(cfg.json_out_config)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(cfg.model_dump(mode="json"), indent=2) + "\n")


def _describe_tl(cfg) -> str:  # noqa: ANN001
    p = cfg.parameters
    return f"transfer_learning: fine-tune {p.input_model_file} on {p.smiles_file} for up to {p.num_epochs} epochs -> {p.output_model_file}"


def _describe_sampling(cfg) -> str:  # noqa: ANN001
    p = cfg.parameters
    scored = f", scored on {_n_endpoints(cfg.scoring)} endpoint(s)" if cfg.scoring else ""
    return f"sampling: sample {p.num_smiles} molecules from {p.model_file} -> {p.output_file}{scored}"


def _describe_scoring(cfg) -> str:  # noqa: ANN001
    p = cfg.parameters
    return f"scoring: score {p.smiles_file} on {_n_endpoints(cfg.scoring)} endpoint(s) -> {p.output_csv}"


def _run_tl(cfg, args: argparse.Namespace) -> int:  # noqa: ANN001
    from mara_chem.runmodes.transfer_learning import format_report, run_transfer_learning

    result = run_transfer_learning(cfg, overwrite=args.overwrite, quiet=args.quiet)
    _write_json_out(cfg)
    print(format_report(result.report))
    print(f"wrote {result.output_model_file} (and {result.output_model_file.name}.tl.json)")
    return 0


def _run_sampling(cfg, args: argparse.Namespace) -> int:  # noqa: ANN001
    from mara_chem.runmodes.sampling import run_sampling

    result = run_sampling(cfg, overwrite=args.overwrite, quiet=args.quiet)
    _write_json_out(cfg)
    extra = f" and {result.sdf_file}" if result.sdf_file else ""
    print(f"wrote {result.rows} molecules to {result.output_file}{extra} ({result.drawn} draws, "
          f"{result.drawn / max(result.seconds, 1e-9):.0f} samples/s)")
    return 0


def _run_scoring(cfg, args: argparse.Namespace) -> int:  # noqa: ANN001
    from mara_chem.runmodes.scoring import run_scoring

    result = run_scoring(cfg, overwrite=args.overwrite, quiet=args.quiet)
    _write_json_out(cfg)
    resumed = f", resumed after row {result.resumed_from}" if result.resumed_from else ""
    print(f"scored {result.rows} molecules into {result.output_csv}{resumed} ({result.seconds:.1f} s)")
    return 0


def _describe_staged(cfg) -> str:  # noqa: ANN001
    from mara_chem.runmodes import staged_cli

    return staged_cli.describe(cfg)


def _run_staged(cfg, args: argparse.Namespace) -> int:  # noqa: ANN001
    from mara_chem.runmodes import staged_cli

    return staged_cli.run(cfg, args)


RUN_MODES: dict[str, RunMode] = {mode.run_type: mode for mode in (
    RunMode("staged_learning", _load_staged, _check_staged, _describe_staged, _run_staged, reports=True, restarts=True),
    RunMode("transfer_learning", _load_other, _check("check_transfer_learning"), _describe_tl, _run_tl),
    RunMode("sampling", _load_other, _check("check_sampling"), _describe_sampling, _run_sampling),
    RunMode("scoring", _load_other, _check("check_scoring"), _describe_scoring, _run_scoring),
)}
