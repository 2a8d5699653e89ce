"""One file per prior: model type, hyper-parameters, vocabulary, weights and metadata, checked on load.

The file is a ``torch.save`` dict loaded with ``weights_only=True`` (no arbitrary pickles), carrying a
format tag and a SHA-256 of the weights so truncation or tampering is reported as such.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import torch

import mara_chem
from mara_chem import resources
from mara_chem.atomic import save_torch_atomic
from mara_chem.models.language_model import LanguageModel
from mara_chem.models.networks import build_network
from mara_chem.models.reinvent_prior import (ReinventPriorError, is_reinvent_payload, load_model_file, model_from_reinvent,
                                             unsupported_global)
from mara_chem.models.tokenizer import Vocabulary
from mara_chem.text import first_line

FORMAT = "mara-chem-prior"
FORMAT_VERSION = 1
_REQUIRED = ("format", "format_version", "model_type", "hyperparameters", "vocabulary", "state_dict",
             "weights_sha256", "metadata")


class PriorFileError(ValueError):
    """The file is missing, corrupt, truncated or not a mara-chem prior."""


def weights_digest(state_dict: dict[str, torch.Tensor]) -> str:
    digest = hashlib.sha256()
    for name in sorted(state_dict):
        tensor = state_dict[name].detach().cpu().contiguous()
        digest.update(name.encode())
        digest.update(str(tensor.dtype).encode())
        digest.update(tensor.view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return digest.hexdigest()


def save_prior(model: LanguageModel, path: str | Path, half_precision: bool = False, **metadata: Any) -> Path:
    """Write atomically (temp file + rename) so a kill never leaves a half-written prior."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu() for k, v in model.network.state_dict().items()}
    if half_precision:
        state = {k: v.half() if v.is_floating_point() else v for k, v in state.items()}
    meta = dict(model.metadata)
    meta.update(metadata)
    meta.setdefault("package_version", mara_chem.__version__)
    meta["saved_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    payload = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "model_type": model.network.name,  # the file format's key: old and new prior files read alike
        "hyperparameters": model.network.hyperparameters(),
        "vocabulary": list(model.vocabulary.tokens),
        "state_dict": state,
        "weights_sha256": weights_digest(state),
        "metadata": meta,
    }
    save_torch_atomic(payload, path)  # 0644: a prior is a shared artefact
    return path


def resolve_prior_path(path: str | Path) -> Path:
    """``path`` itself when it exists, else the bundled prior of that name (``moses-gru-2x256``)."""
    return resources.resolve("priors", path)


def _load_file(path: Path, skipped: list[str] | None = None) -> Any:
    if not path.is_file():
        raise PriorFileError(f"prior file {path} does not exist (bundled priors: {resources.bundled_names('priors')})")
    try:
        return load_model_file(path, skipped)
    except Exception as exc:  # torch raises many types for corrupt input; all mean the same here
        raise PriorFileError(unreadable_model_file(path, exc)) from None


def unreadable_model_file(path: Path, exc: BaseException) -> str:
    """One line for a model file torch cannot read without running code (or at all): the class it would
    import, else torch's first line without its terminal colour codes."""
    name = unsupported_global(exc)
    if name:
        reason = f"it would import {name}, which neither a mara-chem prior nor a REINVENT model file does"
    else:
        reason = first_line(re.sub(r"\x1b\[[0-9;]*m", "", str(exc)))[:200]
    return (f"{path} is not a readable prior file (corrupt, truncated or foreign): {reason}; mara-chem reads "
            "mara-chem priors, REINVENT 4 'Reinvent' model files and REINVENT's RL checkpoints (chkpt_file)")


def _read_payload(path: Path, payload: Any = None) -> dict:
    payload = _load_file(path) if payload is None else payload
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise PriorFileError(f"{path} is not a mara-chem prior (missing format tag {FORMAT!r})")
    missing = [k for k in _REQUIRED if k not in payload]
    if missing:
        raise PriorFileError(f"{path} lacks the field(s) {missing}")
    if payload["format_version"] > FORMAT_VERSION:
        raise PriorFileError(f"{path} has format version {payload['format_version']}; this mara-chem reads up to {FORMAT_VERSION}")
    return payload


def load_prior(path: str | Path, device: str | torch.device = "cpu") -> LanguageModel:
    """A mara-chem prior file, a REINVENT 4 ``Reinvent`` model file (converted on load), or the bundled
    prior by name (see :func:`resolve_prior_path`)."""
    path = resolve_prior_path(path)
    skipped: list[str] = []
    raw = _load_file(path, skipped)
    if is_reinvent_payload(raw):
        try:
            return model_from_reinvent(raw, str(path), skipped).to(device)
        except ReinventPriorError as exc:
            raise PriorFileError(str(exc)) from None
    payload = _read_payload(path, raw)
    state = payload["state_dict"]
    if weights_digest(state) != payload["weights_sha256"]:
        raise PriorFileError(f"{path}: weights checksum mismatch (file damaged or edited)")
    vocabulary = Vocabulary(payload["vocabulary"])
    if vocabulary.tokens != list(payload["vocabulary"]):
        raise PriorFileError(f"{path}: vocabulary is not in canonical order")
    try:
        network = build_network(payload["model_type"], **payload["hyperparameters"])
        network.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in state.items()})
    except (ValueError, RuntimeError, TypeError) as exc:
        raise PriorFileError(f"{path}: weights do not fit the declared model: {exc}") from None
    return LanguageModel(network, vocabulary, payload["metadata"]).to(device)


def read_metadata(path: str | Path) -> dict:
    """Model type, hyper-parameters and metadata of a prior file (a REINVENT model file's as converted)."""
    path = resolve_prior_path(path)
    raw = _load_file(path)
    if is_reinvent_payload(raw):
        model = load_prior(path)
        return {"model_type": model.network.name, "hyperparameters": model.network.hyperparameters(), **model.metadata}
    payload = _read_payload(path, raw)
    return {"model_type": payload["model_type"], "hyperparameters": payload["hyperparameters"], **payload["metadata"]}
