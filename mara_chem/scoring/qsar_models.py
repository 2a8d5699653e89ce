"""Model files for the ``qsar`` component: a plain JSON linear model (safe), or a pickle only when trusted.

Why not just ``joblib.load``: unpickling runs whatever code the file names, so a model file received from
someone else is a program. A linear or logistic model is fully described by its coefficients, so it is
stored as numbers in JSON (:func:`save_linear_model`) and loaded without executing anything. Any other
scikit-learn model needs joblib, and the run file must say ``trusted = true`` for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

LINEAR_FORMAT = "mara-chem-linear-model"

UNTRUSTED_PICKLE = (
    "{path} is not a mara-chem JSON model, so it would be loaded with joblib/pickle, which runs any code the "
    "file contains; set `params.trusted = true` on this endpoint only for a file you made or trust, or "
    "export a linear model to JSON (mara_chem.scoring.qsar_models.save_linear_model)"
)


class LinearModelFile(BaseModel):
    """``kind = "logistic"``: P(class 1) = 1 / (1 + exp(-(x·coef + intercept))); ``"linear"``: x·coef + intercept."""

    model_config = ConfigDict(extra="forbid")
    format: Literal["mara-chem-linear-model"]
    format_version: Literal[1] = 1
    kind: Literal["logistic", "linear"]
    coef: list[float] = Field(min_length=1)
    intercept: float
    classes: list[Any] | None = None  # logistic only: [negative, positive], as the training labels were
    radius: int = Field(ge=0)
    n_bits: int = Field(ge=1)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _shape(self) -> "LinearModelFile":
        if len(self.coef) != self.n_bits:
            raise ValueError(f"{len(self.coef)} coefficients for {self.n_bits} fingerprint bits")
        if self.kind == "logistic" and (self.classes is None or len(self.classes) != 2):
            raise ValueError("a logistic model needs exactly two `classes`")
        if not np.all(np.isfinite(self.coef)) or not np.isfinite(self.intercept):
            raise ValueError("coefficients must be finite")
        return self


class LinearModel:
    """The scikit-learn surface the component uses (``predict``) over plain numbers."""

    def __init__(self, spec: LinearModelFile):
        self.spec = spec
        self._w = np.asarray(spec.coef, dtype=np.float64)

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x, dtype=np.float64) @ self._w + self.spec.intercept

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.decision_function(x)


class LogisticModel(LinearModel):
    """Adds ``classes_`` and ``predict_proba``, as scikit-learn's binary ``LogisticRegression``."""

    def __init__(self, spec: LinearModelFile):
        super().__init__(spec)
        self.classes_ = np.asarray(spec.classes)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-self.decision_function(x)))
        return np.column_stack([1.0 - p, p])


def build_linear_model(spec: LinearModelFile) -> LinearModel:
    return LogisticModel(spec) if spec.kind == "logistic" else LinearModel(spec)


def read_linear_model(path: str | Path) -> LinearModelFile | None:
    """The JSON model in ``path``; None when the file is not JSON with the mara-chem format tag (e.g. a pickle)."""
    raw = Path(path).read_bytes()
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("format") != LINEAR_FORMAT:
        return None
    try:
        return LinearModelFile(**data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(file)'}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"{path}: not a valid {LINEAR_FORMAT} file: {problems}") from None


def save_linear_model(model: Any, path: str | Path, radius: int, n_bits: int, metadata: dict[str, Any] | None = None) -> Path:
    """Write a fitted binary ``LogisticRegression`` or a ``LinearRegression``/``Ridge`` as a JSON linear model."""
    coef = np.asarray(model.coef_, dtype=np.float64)
    classes = getattr(model, "classes_", None)
    if classes is not None:
        if coef.shape[0] != 1 or len(classes) != 2:
            raise ValueError("only binary logistic models can be exported as a linear model")
        kind, intercept, labels = "logistic", float(np.ravel(model.intercept_)[0]), [c.item() for c in classes]
    else:
        kind, intercept, labels = "linear", float(np.ravel(model.intercept_)[0]), None
    spec = LinearModelFile(format=LINEAR_FORMAT, kind=kind, coef=coef.ravel().tolist(), intercept=intercept,
                           classes=labels, radius=radius, n_bits=n_bits, metadata=metadata or {})
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = spec.model_dump(exclude_none=True)
    # one key per line for the reader, the coefficients on one line (not 2,048 of them)
    text = json.dumps({**data, "coef": "@coef@"}, indent=1).replace('"@coef@"', json.dumps(data["coef"]))
    path.write_text(text + "\n")
    return path


#: False while a run file is checked (``validate``, preflights): a pickle is then never loaded, trusted or not
_UNPICKLING: ContextVar[bool] = ContextVar("mara_chem_unpickling", default=True)


class PickleNotLoaded(RuntimeError):
    """A trusted pickle asked for while run files are only being checked (:func:`without_unpickling`)."""


@contextmanager
def without_unpickling() -> Iterator[None]:
    """Check a scoring section without executing any model pickle: validation looks at a trusted pickle's
    file (it exists, it is a joblib file) and the run loads it, never the check."""
    token = _UNPICKLING.set(False)
    try:
        yield
    finally:
        _UNPICKLING.reset(token)


def unpickling_allowed() -> bool:
    return _UNPICKLING.get()


def load_trusted_pickle(path: str | Path) -> Any:
    """joblib/pickle load; callers reach this only when the run file set ``trusted = true``, and never while a
    run file is being checked (:class:`PickleNotLoaded`)."""
    if not _UNPICKLING.get():
        raise PickleNotLoaded(f"{path}: a trusted pickle is loaded by the run, never while the run file is checked")
    import joblib

    return joblib.load(path)
