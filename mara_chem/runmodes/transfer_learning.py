"""``run_type = "transfer_learning"``: fine-tune a prior on a chemist's series with the prior-training code.

The series is canonicalised and filtered through the prior's own vocabulary (SMILES it cannot spell are
counted and listed, never silently dropped); training, early stopping on validation NLL, the per-epoch
checkpoint and resume after a kill are ``mara_chem.models.training.train_prior``'s. At the end the tuned
model and the input prior are sampled side by side, so the chemist sees whether the model moved toward
the series (mean nearest-neighbour Tanimoto similarity of valid samples to the series).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from rdkit import DataStructs

from mara_chem.chem.fingerprints import morgan_fingerprints
from mara_chem.chem.smiles import canonicalize
from mara_chem.models.language_model import LanguageModel
from mara_chem.models.prior_file import PriorFileError, load_prior, save_prior, weights_digest
from mara_chem.models.training import TrainConfig, prepare_data, read_smiles_file, train_prior
from mara_chem.runmodes.config import TransferLearningConfig
from mara_chem.runmodes.errors import RunModeError, resolve_device_or_error

REPORT_SUFFIX = ".tl.json"


@dataclass
class TLResult:
    output_model_file: Path
    report: dict


def _checkpoint_of(out: Path) -> Path:
    return out.with_name(out.name + ".ckpt")  # the name train_prior uses


def series_similarity(smiles: list[str], series_fps: list) -> float:
    """Mean over valid ``smiles`` of the Tanimoto similarity to the nearest series member (Morgan r2, 2048 bits)."""
    fps = [fp for fp in morgan_fingerprints(smiles) if fp is not None]
    if not fps:
        return float("nan")
    return float(np.mean([max(DataStructs.BulkTanimotoSimilarity(fp, series_fps)) for fp in fps]))


@torch.no_grad()
def sample_figures(model: LanguageModel, n: int, series: set[str], series_fps: list) -> dict[str, float]:
    """Validity, uniqueness, share of samples that are series members and similarity to the series."""
    smiles: list[str] = []
    while len(smiles) < n:
        smiles.extend(model.sample(min(1000, n - len(smiles))).smiles)
    valid = [c for c in (canonicalize(s) for s in smiles) if c]
    unique = set(valid)
    return {
        "samples": n,
        "validity": round(len(valid) / n, 4),
        "uniqueness": round(len(unique) / max(1, len(valid)), 4),
        "in_series": round(len(unique & series) / max(1, len(unique)), 4),
        "mean_nn_tanimoto_to_series": round(series_similarity(valid, series_fps), 4),
    }


def run_transfer_learning(cfg: TransferLearningConfig, overwrite: bool = False, quiet: bool = False) -> TLResult:
    p = cfg.parameters
    say = (lambda text: None) if quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    device = resolve_device_or_error(cfg.device)
    out = Path(p.output_model_file)
    ckpt = _checkpoint_of(out)
    if overwrite:
        ckpt.unlink(missing_ok=True)
        out.unlink(missing_ok=True)
    elif out.exists() and not ckpt.exists():
        raise RunModeError(f"output_model_file {out} exists and has no training checkpoint {ckpt.name} to resume; "
                           "use --overwrite or another name")
    for key in ("smiles_file", "validation_smiles_file"):
        path = getattr(p, key)
        if path is not None and not Path(path).is_file():
            raise RunModeError(f"[parameters.{key}] file {path} does not exist")
    try:
        base = load_prior(p.input_model_file, device)
    except PriorFileError as exc:
        raise RunModeError(f"[parameters.input_model_file] {exc}") from None
    base_digest = weights_digest(base.network.state_dict())
    base_record = {k: base.metadata.get(k) for k in ("training_data_sha256", "epochs", "validation_nll")}
    torch.manual_seed(cfg.seed)
    tcfg = TrainConfig(
        model_type=base.network.name, hyperparameters=base.network.hyperparameters(),
        batch_size=p.batch_size, learning_rate=cfg.scheduler.lr,
        lr_decay=cfg.scheduler.gamma if cfg.scheduler.gamma < 1.0 else None,
        max_epochs=p.num_epochs, patience=p.patience, valid_fraction=p.validation_fraction, max_valid=10**9,
        max_length=base.max_length - 2, seed=cfg.seed, device=str(device), randomize=p.randomize_smiles,
        quality_samples=p.sample_batch_size,
    )
    raw = read_smiles_file(p.smiles_file)
    valid_raw = read_smiles_file(p.validation_smiles_file) if p.validation_smiles_file else None
    data = prepare_data(raw, tcfg, vocabulary=base.vocabulary, valid_raw=valid_raw)
    say(f"series {p.smiles_file}: {json.dumps(data.counts)}; train {len(data.train)}, validation {len(data.valid)}")
    if data.unspellable:
        say(f"{len(data.unspellable)} SMILES use tokens the prior's vocabulary lacks and were left out, e.g. "
            + ", ".join(data.unspellable[:3]))
    if len(data.train) < 2 or not data.valid:
        raise RunModeError(f"[parameters.smiles_file] only {len(data.train)} training and {len(data.valid)} "
                           "validation molecules are left after filtering; nothing to fine-tune on")
    record = {"transfer_learning": {
        "input_model_file": str(p.input_model_file), "input_weights_sha256": base_digest,
        "input_training_record": base_record, "smiles_file": str(p.smiles_file),
        "validation_smiles_file": p.validation_smiles_file, "unspellable_smiles": len(data.unspellable),
    }}
    if ckpt.exists():
        say(f"resuming from {ckpt}")
    try:
        tuned = train_prior(data, tcfg, out, resume=True, initial=base, metadata=record)
    except ValueError as exc:  # a checkpoint made from other data
        raise RunModeError(str(exc).replace("--no-resume", "--overwrite")) from None
    history = tuned.metadata.get("history", [])
    series = set(data.train) | set(data.valid)
    series_fps = [fp for fp in morgan_fingerprints(sorted(series)) if fp is not None]
    report = {
        "input_model_file": str(p.input_model_file),
        "output_model_file": str(out),
        "series": {"kept": len(series), "unspellable": len(data.unspellable), "counts": data.counts},
        "epochs_run": len(history),
        "best_validation_nll": tuned.metadata.get("validation_nll"),
        "seconds_per_epoch": round(float(np.mean([h["seconds"] for h in history])), 2) if history else None,
        "input_prior": sample_figures(load_prior(p.input_model_file, device), p.sample_batch_size, series, series_fps),
        "tuned": sample_figures(tuned, p.sample_batch_size, series, series_fps),
    }
    save_prior(tuned, out, tl_report=report)  # the end figures travel with the model (`mara-chem prior info`)
    out.with_name(out.name + REPORT_SUFFIX).write_text(json.dumps(report, indent=2))
    return TLResult(out, report)


def format_report(report: dict) -> str:
    rows = [("model", "validity", "uniqueness", "in series", "mean NN Tanimoto to series")]
    for name in ("input_prior", "tuned"):
        f = report[name]
        rows.append((name.replace("_", " "), f"{f['validity']:.3f}", f"{f['uniqueness']:.3f}", f"{f['in_series']:.3f}",
                     f"{f['mean_nn_tanimoto_to_series']:.3f}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    table = "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows)
    return (f"{report['epochs_run']} epochs ({report['seconds_per_epoch']} s/epoch), best validation NLL "
            f"{report['best_validation_nll']:.3f}; {report['series']['unspellable']} series SMILES unspellable\n"
            f"{table}\n(from {report['tuned']['samples']} samples each)")
