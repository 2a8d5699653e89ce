"""Weighted means over the endpoints that are present: NaN endpoints drop out and weights renormalise."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Aggregator = Callable[[np.ndarray, np.ndarray], np.ndarray]
_AGGREGATORS: dict[str, Aggregator] = {}


def aggregator(name: str) -> Callable[[Aggregator], Aggregator]:
    def register(fn: Aggregator) -> Aggregator:
        _AGGREGATORS[name] = fn
        return fn

    return register


def _present_weights(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    present = np.isfinite(values)
    w = np.where(present, weights[None, :], 0.0)
    total = w.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = w / total
    return w, total[:, 0] > 0


@aggregator("arithmetic_mean")
def arithmetic_mean(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """sum_i w_i s_i / sum_i w_i over present endpoints; values [N, C], weights [C]."""
    w, any_present = _present_weights(values, weights)
    out = np.nansum(np.where(np.isfinite(values), values, 0.0) * w, axis=1)
    return np.where(any_present, out, np.nan)


@aggregator("geometric_mean")
def geometric_mean(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """prod_i s_i^(w_i / sum w) over present endpoints; any present zero gives zero."""
    w, any_present = _present_weights(values, weights)
    safe = np.where(np.isfinite(values), values, 1.0)
    with np.errstate(divide="ignore"):
        logs = np.where(w > 0, np.log(np.clip(safe, 0.0, None)) * w, 0.0)
    out = np.exp(logs.sum(axis=1))
    return np.where(any_present, out, np.nan)


def list_aggregators() -> list[str]:
    return sorted(_AGGREGATORS)


def get_aggregator(name: str) -> Aggregator:
    try:
        return _AGGREGATORS[name]
    except KeyError:
        raise ValueError(f"unknown scoring type {name!r}; valid: {list_aggregators()}") from None
