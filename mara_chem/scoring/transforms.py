"""Score transforms (REINVENT 4 names and parameters): raw component value -> [0, 1]. NaN stays NaN.

Formulas follow REINVENT 4's ``reinvent/scoring/transforms`` so run files carry over unchanged.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

from mara_chem.plugins import TRANSFORMS


class Transform(BaseModel):
    """A transform is its own typed parameter model; ``type`` selects the subclass.

    ``__call__`` is the template: non-finite raw values stay NaN, ``_apply`` maps the finite ones and the
    result is clipped into [0, 1]. ``monotone`` declares the direction the contract suite checks.
    """

    model_config = ConfigDict(extra="forbid")
    name: ClassVar[str] = ""
    #: "increasing" / "decreasing" when the transform is monotone in the raw value (checked by the contract suite)
    monotone: ClassVar[Literal["increasing", "decreasing"] | None] = None
    #: parameters (besides ``type``) the contract suite builds the transform with
    example_params: ClassVar[dict[str, Any]] = {}
    type: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("name"):  # a subclass without its own name is not a new transform
            TRANSFORMS.add(cls.name, cls)

    def __call__(self, values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        out = np.full_like(values, np.nan)
        ok = np.isfinite(values)
        out[ok] = np.clip(self._apply(values[ok]), 0.0, 1.0)
        return out

    @abstractmethod
    def _apply(self, x: np.ndarray) -> np.ndarray:
        """Scores for finite raw values ``x`` (clipped into [0, 1] by the caller)."""


class Sigmoid(Transform):
    name = "sigmoid"
    monotone = "increasing"
    example_params = {"low": 2.0, "high": 5.0}
    type: Literal["sigmoid"] = "sigmoid"
    low: float
    high: float
    k: float = 0.5

    def _apply(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + 10 ** (10 * self.k * ((self.low + self.high) / 2 - x) / (self.high - self.low)))


class ReverseSigmoid(Sigmoid):
    name = "reverse_sigmoid"
    monotone = "decreasing"
    type: Literal["reverse_sigmoid"] = "reverse_sigmoid"  # type: ignore[assignment]

    def _apply(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + 10 ** (10 * self.k * (x - (self.low + self.high) / 2) / (self.high - self.low)))


class DoubleSigmoid(Transform):
    name = "double_sigmoid"
    example_params = {"low": 2.0, "high": 5.0}
    type: Literal["double_sigmoid"] = "double_sigmoid"
    low: float
    high: float
    coef_div: float = 100.0
    coef_si: float = 150.0
    coef_se: float = 150.0

    def _apply(self, x: np.ndarray) -> np.ndarray:
        a = 10 ** (self.coef_se * (x / self.coef_div))
        b = 10 ** (self.coef_se * (x / self.coef_div)) + 10 ** (self.coef_se * (self.low / self.coef_div))
        c = 10 ** (self.coef_si * (x / self.coef_div))
        d = 10 ** (self.coef_si * (x / self.coef_div)) + 10 ** (self.coef_si * (self.high / self.coef_div))
        with np.errstate(over="ignore", invalid="ignore"):
            out = a / b - c / d
        return np.nan_to_num(out, nan=0.0)


class Step(Transform):
    """1 inside [low, high], else 0."""

    name = "step"
    example_params = {"low": 2.0, "high": 5.0}
    type: Literal["step"] = "step"
    low: float
    high: float

    def _apply(self, x: np.ndarray) -> np.ndarray:
        return ((x >= self.low) & (x <= self.high)).astype(float)


class LeftStep(Transform):
    """1 at or below ``low``."""

    name = "left_step"
    monotone = "decreasing"
    example_params = {"low": 2.0}
    type: Literal["left_step"] = "left_step"
    low: float

    def _apply(self, x: np.ndarray) -> np.ndarray:
        return (x <= self.low).astype(float)


class RightStep(Transform):
    """1 at or above ``high``."""

    name = "right_step"
    monotone = "increasing"
    example_params = {"high": 5.0}
    type: Literal["right_step"] = "right_step"
    high: float

    def _apply(self, x: np.ndarray) -> np.ndarray:
        return (x >= self.high).astype(float)


class ValueMapping(Transform):
    """Maps discrete raw values (as strings, e.g. "True"/"1") to scores; unmapped -> NaN."""

    name = "value_mapping"
    example_params = {"mapping": {"0": 0.0, "1": 1.0}}
    type: Literal["value_mapping"] = "value_mapping"
    mapping: dict[str, float]

    @model_validator(mode="after")
    def _check(self) -> "ValueMapping":
        if not self.mapping:
            raise ValueError("value_mapping needs a non-empty 'mapping'")
        return self

    def __call__(self, values: np.ndarray) -> np.ndarray:
        """Raw values may be strings or bools, so they skip the numeric template; mapped scores stay as given."""
        return self._apply(np.asarray(values, dtype=object))

    def _apply(self, x: np.ndarray) -> np.ndarray:
        out = np.full(len(x), np.nan)
        for i, v in enumerate(x):
            for key in (str(v), _number_key(v)):
                if key in self.mapping:
                    out[i] = self.mapping[key]
                    break
        return out


def _number_key(v: Any) -> str:
    try:
        f = float(v)
        return str(int(f)) if f.is_integer() else str(f)
    except (TypeError, ValueError):
        return str(v)


def list_transforms() -> list[str]:
    return TRANSFORMS.names()


def build_transform(spec: dict | None) -> Transform | None:
    """From the ``transform`` table of an endpoint; None (or no table) means the raw value is the score."""
    if not spec:
        return None
    spec = dict(spec)
    kind = spec.get("type")
    if kind is None:
        raise ValueError("transform table needs a 'type'")
    return TRANSFORMS.get(kind)(**spec)
