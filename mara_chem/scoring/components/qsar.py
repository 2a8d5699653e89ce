"""A user's model applied to RDKit Morgan fingerprints: a JSON linear model, or a trusted scikit-learn pickle.

Classifiers give the probability of ``positive_class`` (default: the last class); regressors their
prediction. The fingerprint settings must match the ones the model was trained with. A joblib/pickle file
runs code when loaded, so it is refused unless the endpoint says ``params.trusted = true``
(:mod:`mara_chem.scoring.qsar_models`).
"""

from __future__ import annotations

import importlib.util
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, field_validator, model_validator

from mara_chem import resources
from mara_chem.chem.fingerprints import morgan_fingerprint
from mara_chem.scoring.component import ComponentParams, Failure, ScoringComponent
from mara_chem.scoring.qsar_models import (
    UNTRUSTED_PICKLE,
    LinearModelFile,
    build_linear_model,
    load_trusted_pickle,
    unpickling_allowed,
    read_linear_model,
)


#: first bytes of a joblib dump: a pickle (protocol >= 2), or joblib's zlib/gzip/bz2/xz/lzma/lz4 wrappers
JOBLIB_MAGIC = (b"\x80", b"\x78", b"\x1f\x8b", b"BZh", b"\xfd7zXZ", b"]\x00\x00", b"\x04\x22\x4d\x18")


class QsarParams(ComponentParams):
    #: a path, or the name of a bundled model (``brenk_alert_logreg``)
    model_file: str
    #: allow a joblib/pickle file (it can run code when loaded); never needed for JSON linear models
    trusted: bool = False
    radius: int = Field(2, ge=0)
    n_bits: int = Field(2048, ge=64)
    positive_class: Any = None

    @field_validator("model_file")
    @classmethod
    def _exists(cls, value: str) -> str:
        """Exists and is readable (bundled names resolve too); the format is checked in ``_safe_format``."""
        path = resources.resolve("models", value)
        if not path.is_file():
            state = "is not a file" if path.exists() else "does not exist"
            raise ValueError(f"model file {value!r} {state} (bundled models: {resources.bundled_names('models')})")
        try:
            with path.open("rb") as handle:
                handle.read(1)
        except OSError as exc:
            raise ValueError(f"model file {value!r} cannot be read ({exc.strerror})") from None
        return value

    @model_validator(mode="after")
    def _safe_format(self) -> "QsarParams":
        linear = self.linear_model()
        if linear is None and not _looks_like_joblib(self.path()):  # judged from the first bytes, never unpickled
            raise ValueError(f"model file {self.model_file!r} is not a scikit-learn joblib/pickle file "
                             "nor a mara-chem JSON linear model")
        if linear is None and not self.trusted:
            raise ValueError(UNTRUSTED_PICKLE.format(path=self.model_file))
        if linear is None and importlib.util.find_spec("joblib") is None:
            raise ValueError(f"{self.model_file} needs joblib and scikit-learn: pip install \"mara-chem[qsar]\"")
        if linear is not None and (linear.radius, linear.n_bits) != (self.radius, self.n_bits):
            raise ValueError(f"{self.model_file} was trained on Morgan radius {linear.radius}, {linear.n_bits} bits; "
                             f"params say radius {self.radius}, {self.n_bits} bits")
        return self

    def path(self) -> Path:
        return resources.resolve("models", self.model_file)

    def linear_model(self) -> LinearModelFile | None:
        return read_linear_model(self.path())


def _looks_like_joblib(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(8).startswith(JOBLIB_MAGIC)


def fingerprint_matrix(smiles: list[str], radius: int = 2, n_bits: int = 2048) -> tuple[np.ndarray, list[int]]:
    """Rows for the valid SMILES and their indices (shared with the training script)."""
    rows, keep = [], []
    for i, smi in enumerate(smiles):
        fp = morgan_fingerprint(smi, radius, n_bits)
        if fp is not None:
            arr = np.zeros((n_bits,), dtype=np.uint8)
            from rdkit import DataStructs

            DataStructs.ConvertToNumpyArray(fp, arr)
            rows.append(arr)
            keep.append(i)
    return (np.vstack(rows) if rows else np.zeros((0, n_bits), dtype=np.uint8)), keep


class QsarModel(ScoringComponent):
    name = "qsar"
    aliases = ("QSAR", "SklearnModel", "MaraQsar")  # MaraQsar: its REINVENT plugin name (reinvent_plugins/)
    Params = QsarParams
    example_params = {"model_file": "brenk_alert_logreg"}  # the bundled example model

    def __init__(self, params: QsarParams | dict | None = None):
        super().__init__(params)
        wanted = self.params.positive_class
        if not self.scores_in_checks:  # a pickle: the run checks positive_class when it loads the model
            return
        if wanted is not None and hasattr(self.model, "predict_proba"):  # checked here, before any oracle call
            classes = [c.item() if hasattr(c, "item") else c for c in self.model.classes_]  # numpy -> Python
            if wanted not in classes:
                raise ValueError(f"positive_class {wanted!r} is not one of the model's classes {classes}")

    @property
    def scores_in_checks(self) -> bool:
        """False for a pickled model while a run file is checked: validation never unpickles it."""
        return self.params.linear_model() is not None or unpickling_allowed()

    @cached_property
    def model(self) -> Any:
        linear = self.params.linear_model()
        if linear is not None:
            return build_linear_model(linear)
        assert self.params.trusted  # QsarParams refuses an untrusted pickle before this point
        return load_trusted_pickle(self.params.path())

    def score_batch(self, smiles: list[str]) -> list[float | Failure]:
        x, keep = fingerprint_matrix(smiles, self.params.radius, self.params.n_bits)
        out: list[float | Failure] = [Failure("invalid SMILES")] * len(smiles)
        if not keep:
            return out
        if hasattr(self.model, "predict_proba"):
            proba = self.model.predict_proba(x)
            classes = list(self.model.classes_)
            col = classes.index(self.params.positive_class) if self.params.positive_class is not None else len(classes) - 1
            values = proba[:, col]
        else:
            values = self.model.predict(x)
        for i, v in zip(keep, values):
            out[i] = float(v)
        return out
