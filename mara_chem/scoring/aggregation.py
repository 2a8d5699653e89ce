"""Weighted means over the endpoints that are present: NaN endpoints drop out and weights renormalise.

An aggregator is a :class:`Aggregator` subclass with a ``name`` (the ``type`` of a ``[scoring]`` table). The
base class keeps the books (shapes, which endpoints are present, the renormalised weights, NaN for rows with
no endpoint); a subclass only combines the present scores.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from mara_chem.plugins import AGGREGATORS
from mara_chem.registry import Registered


class Aggregator(Registered, ABC):
    """``aggregator(values [N, C], weights [C]) -> totals [N]``; a row with no finite endpoint is NaN."""

    plugin_registry = AGGREGATORS
    name: ClassVar[str] = ""

    def __call__(self, values: np.ndarray, weights: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        weights = np.asarray(weights, dtype=float)
        if values.ndim != 2 or weights.shape != (values.shape[1],):
            raise ValueError(f"{self.name}: values must be [N, C] and weights [C], "
                             f"got {values.shape} and {weights.shape}")
        present = np.isfinite(values)
        w = np.where(present, weights[None, :], 0.0)
        total = w.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            w = w / total
        out = self._combine(np.where(present, values, np.nan), w)
        return np.where(total[:, 0] > 0, out, np.nan)

    @abstractmethod
    def _combine(self, values: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Totals [N] from ``values`` [N, C] (NaN = absent) and ``weights`` [N, C] (0 where absent; rows sum to 1)."""


class ArithmeticMean(Aggregator):
    """sum_i w_i s_i / sum_i w_i over present endpoints."""

    name = "arithmetic_mean"

    def _combine(self, values: np.ndarray, weights: np.ndarray) -> np.ndarray:
        return np.nansum(np.where(weights > 0, values, 0.0) * weights, axis=1)


class GeometricMean(Aggregator):
    """prod_i s_i^(w_i / sum w) over present endpoints; any present zero gives zero."""

    name = "geometric_mean"

    def _combine(self, values: np.ndarray, weights: np.ndarray) -> np.ndarray:
        safe = np.where(np.isfinite(values), values, 1.0)
        with np.errstate(divide="ignore"):
            logs = np.where(weights > 0, np.log(np.clip(safe, 0.0, None)) * weights, 0.0)
        return np.exp(logs.sum(axis=1))


arithmetic_mean = ArithmeticMean()
geometric_mean = GeometricMean()


def list_aggregators() -> list[str]:
    return AGGREGATORS.names()


def get_aggregator(name: str) -> Aggregator:
    """An aggregator instance by scoring ``type``; unknown names list the valid ones."""
    return AGGREGATORS.get(name)()
