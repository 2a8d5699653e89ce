"""A user's scikit-learn model (joblib file) applied to RDKit Morgan fingerprints.

Classifiers give the probability of ``positive_class`` (default: the last class); regressors their
prediction. The fingerprint settings must match the ones the model was trained with.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, field_validator

from mara_chem.chem.fingerprints import morgan_fingerprint
from mara_chem.scoring.component import ComponentParams, Failure, ScoringComponent


#: first bytes of a joblib dump: a pickle (protocol >= 2), or joblib's zlib/gzip/bz2/xz/lzma/lz4 wrappers
JOBLIB_MAGIC = (b"\x80", b"\x78", b"\x1f\x8b", b"BZh", b"\xfd7zXZ", b"]\x00\x00", b"\x04\x22\x4d\x18")


class QsarParams(ComponentParams):
    model_file: str
    radius: int = Field(2, ge=0)
    n_bits: int = Field(2048, ge=64)
    positive_class: Any = None

    @field_validator("model_file")
    @classmethod
    def _exists(cls, value: str) -> str:
        """Exists, is readable and starts like a joblib file; checked from its first bytes, never unpickled."""
        path = Path(value)
        if not path.is_file():
            raise ValueError(f"model file {value!r} {'is not a file' if path.exists() else 'does not exist'}")
        try:
            with path.open("rb") as handle:
                head = handle.read(8)
        except OSError as exc:
            raise ValueError(f"model file {value!r} cannot be read ({exc.strerror})") from None
        if not head.startswith(JOBLIB_MAGIC):
            raise ValueError(f"model file {value!r} is not a scikit-learn joblib/pickle file")
        return value


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
    aliases = ("QSAR", "SklearnModel")
    Params = QsarParams

    @cached_property
    def model(self) -> Any:
        import joblib

        return joblib.load(self.params.model_file)

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
