"""Score transforms (REINVENT 4 names and parameters): raw component value -> [0, 1]. NaN stays NaN.

Formulas are REINVENT 4.8's ``reinvent/scoring/transforms`` (numerically stable sigmoids; in
``double_sigmoid`` ``coef_si`` shapes the left flank and ``coef_se`` the right one, both divided by
``coef_div``), so run files carry over unchanged. Parameters REINVENT would turn into a degenerate score
(``low >= high`` on a sigmoid, an inverted window, non-finite numbers) are refused here instead.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from mara_chem.plugins import TRANSFORMS
from mara_chem.registry import Registered, Registry


def normalise_name(name: str) -> str:
    """REINVENT's lookup key: lower case without ``_`` and ``-`` (``Double-Sigmoid`` = ``double_sigmoid``)."""
    return name.lower().replace("_", "").replace("-", "")


def stable_sigmoid(x: np.ndarray, k: float) -> np.ndarray:
    """``1 / (1 + 10**(-k x))`` without overflow (REINVENT's ``stable_sigmoid``, base 10)."""
    h = k * x * math.log(10)
    out = np.empty_like(h, dtype=float)
    pos = h >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-h[pos]))
    e = np.exp(h[~pos])
    out[~pos] = e / (1.0 + e)
    return out


class Transform(Registered, BaseModel):
    """A transform is its own typed parameter model; ``type`` selects the subclass.

    ``__call__`` is the template: non-finite raw values stay NaN, ``_apply`` maps the finite ones and the
    result is clipped into [0, 1]. ``monotone`` declares the direction the contract suite checks.
    """

    model_config = ConfigDict(extra="forbid", strict=True)
    plugin_registry: ClassVar[Registry[Any]] = TRANSFORMS
    name: ClassVar[str] = ""
    #: "increasing" / "decreasing" when the transform is monotone in the raw value (checked by the contract suite)
    monotone: ClassVar[Literal["increasing", "decreasing"] | None] = None
    #: parameters (besides ``type``) the contract suite builds the transform with
    example_params: ClassVar[dict[str, Any]] = {}
    type: str

    @model_validator(mode="after")
    def _finite(self) -> "Transform":
        for key, value in self.model_dump().items():
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{key} must be a finite number, got {value}")
        return self

    def __call__(self, values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        out = np.full_like(values, np.nan)
        ok = np.isfinite(values)
        out[ok] = np.clip(self._apply(values[ok]), 0.0, 1.0)
        return out

    @abstractmethod
    def _apply(self, x: np.ndarray) -> np.ndarray:
        """Scores for finite raw values ``x`` (clipped into [0, 1] by the caller)."""


class _Window(Transform):
    """A transform with ``low`` and ``high``; ``strict`` subclasses need ``low < high``, others ``low <= high``."""

    strict: ClassVar[bool] = False
    low: float
    high: float

    @model_validator(mode="after")
    def _order(self) -> "_Window":
        if self.strict and not self.low < self.high:
            raise ValueError(
                f"{self.type} needs low < high, got low={self.low:g}, high={self.high:g} "
                "(for a falling curve use reverse_sigmoid; for a hard cut use left_step/right_step)"
            )
        if not self.low <= self.high:
            raise ValueError(f"{self.type} needs low <= high, got low={self.low:g}, high={self.high:g} "
                             "(every molecule would score 0)")
        if not math.isfinite(self.high - self.low):
            raise ValueError(f"{self.type}: high - low overflows (low={self.low:g}, high={self.high:g}); "
                             "give a window of representable width")
        return self


class Sigmoid(_Window):
    """Rises from 0 to 1 around ``(low + high) / 2``; ``k`` sets the steepness (REINVENT 4)."""

    name = "sigmoid"
    monotone = "increasing"
    example_params = {"low": 2.0, "high": 5.0}
    strict = True
    type: Literal["sigmoid"] = "sigmoid"
    k: float = Field(0.5, gt=0.0, description="steepness; 0 scores every molecule 0.5, and a negative k would "
                     "silently reverse the curve (use reverse_sigmoid)")

    def _rising(self, x: np.ndarray) -> np.ndarray:
        return stable_sigmoid(x - (self.high + self.low) / 2, 10.0 * self.k / (self.high - self.low))

    def _apply(self, x: np.ndarray) -> np.ndarray:
        return self._rising(x)


class ReverseSigmoid(Sigmoid):
    """1 minus the sigmoid: falls from 1 to 0 (docking scores, where lower is better)."""

    name = "reverse_sigmoid"
    monotone = "decreasing"
    type: Literal["reverse_sigmoid"] = "reverse_sigmoid"  # type: ignore[assignment]

    def _apply(self, x: np.ndarray) -> np.ndarray:
        return 1.0 - self._rising(x)


class DoubleSigmoid(_Window):
    """A window: rises around ``low`` (steepness ``coef_si / coef_div``), falls around ``high``
    (``coef_se / coef_div``); REINVENT 4's stable form, ``coef_div = 0`` gives hard edges."""

    name = "double_sigmoid"
    example_params = {"low": 2.0, "high": 5.0}
    type: Literal["double_sigmoid"] = "double_sigmoid"
    coef_div: float = Field(100.0, ge=0.0, description="0: hard edges; negative would turn the window inside out")
    coef_si: float = Field(150.0, gt=0.0)
    coef_se: float = Field(150.0, gt=0.0)

    def _apply(self, x: np.ndarray) -> np.ndarray:
        centre = (self.high - self.low) / 2 + self.low
        left = x < centre
        out = np.empty_like(x, dtype=float)
        if self.coef_div == 0:
            out[left] = (self.coef_si * (x[left] - self.low) > 0).astype(float)
            out[~left] = 1.0 - (self.coef_se * (x[~left] - self.high) > 0).astype(float)
        else:
            out[left] = stable_sigmoid(x[left] - self.low, self.coef_si / self.coef_div)
            out[~left] = 1.0 - stable_sigmoid(x[~left] - self.high, self.coef_se / self.coef_div)
        return out


class Step(_Window):
    """1 inside [low, high], else 0."""

    name = "step"
    example_params = {"low": 2.0, "high": 5.0}
    type: Literal["step"] = "step"

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


class ExponentialDecay(Transform):
    """``exp(-k x)`` for x >= 0 and 1 below 0 (REINVENT 4's clamped decay); ``k > 0``."""

    name = "exponential_decay"
    monotone = "decreasing"
    example_params = {"k": 0.5}
    type: Literal["exponential_decay"] = "exponential_decay"
    k: float

    @model_validator(mode="after")
    def _positive(self) -> "ExponentialDecay":
        if not self.k > 0:
            raise ValueError(f"exponential_decay needs k > 0, got {self.k:g}")
        return self

    def _apply(self, x: np.ndarray) -> np.ndarray:
        return np.where(x < 0, 1.0, np.exp(-self.k * np.maximum(x, 0.0)))


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
        bad = {k: v for k, v in self.mapping.items() if not (math.isfinite(v) and 0.0 <= v <= 1.0)}
        if bad:
            raise ValueError(f"value_mapping scores must lie in [0, 1], got {bad}")
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


def transform_class(kind: str) -> type[Transform]:
    """The transform for a ``type`` written as REINVENT accepts it (any case, with or without ``_``/``-``)."""
    by_key = {normalise_name(n): n for n in TRANSFORMS.names()}
    return TRANSFORMS.get(by_key.get(normalise_name(kind), kind))


def build_transform(spec: dict | None) -> Transform | None:
    """From the ``transform`` table of an endpoint; None (or no table) means the raw value is the score."""
    if not spec:
        return None
    spec = dict(spec)
    kind = spec.get("type")
    if not isinstance(kind, str):
        raise ValueError("transform table needs a 'type'")
    cls = transform_class(kind)
    spec["type"] = cls.name
    return cls(**spec)
