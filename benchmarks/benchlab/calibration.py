"""Hit thresholds from prior scores: the rule the project tasks were set by, written down so it can be re-run.

strict = the score above which ~0.5 % of the unique valid prior samples lie (the 99.5th percentile), lenient
= the one above which ~2 % lie (98th percentile), each rounded to 0.01. When rounding or a degenerate score
distribution leaves no valid pair (a threshold ≤ 0, strict ≤ lenient, or a strict threshold no prior sample
reaches), the percentiles rounded to 0.001 are taken if they form a valid pair (a narrow top such as QED's), else
the pair on the 0.01 grid whose prior hit rates are nearest the two targets (on a log scale); the reason is
recorded with the thresholds.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

TARGETS = {"lenient": 0.02, "strict": 0.005}
QUANTILES = (0.5, 0.9, 0.98, 0.99, 0.995, 0.999)
GRID = np.round(np.arange(1, 101) / 100, 2)


def rate_at(scores: np.ndarray, threshold: float) -> float:
    """Fraction of the scores ≥ ``threshold`` (how a hit is counted in the runs)."""
    return float(np.mean(np.asarray(scores) >= threshold)) if len(scores) else math.nan


def _valid(scores: np.ndarray, lenient: float, strict: float) -> bool:
    """0 < lenient < strict ≤ 1 and at least one prior sample reaches strict."""
    return 0 < lenient < strict <= 1 and rate_at(scores, strict) > 0


def _nearest_valid_pair(scores: np.ndarray, rule: tuple[float, float]) -> tuple[float, float]:
    """The grid pair lenient < strict whose rates are nearest the targets (sum of |log(rate / target)|, a rate
    of 0 counted as half a molecule); among equally near pairs, the one nearest the rule's own values."""
    floor = 0.5 / len(scores)
    dist = {level: {float(t): abs(math.log(max(rate_at(scores, float(t)), floor) / target)) for t in GRID}
            for level, target in TARGETS.items()}
    pairs = [(float(lo), float(hi)) for i, lo in enumerate(GRID[:-1]) for hi in GRID[i + 1:]]
    return min(pairs, key=lambda p: (round(dist["lenient"][p[0]] + dist["strict"][p[1]], 12),
                                     round(abs(p[0] - rule[0]) + abs(p[1] - rule[1]), 6), p))


def calibrate(scores: np.ndarray) -> dict[str, Any]:
    """Quantiles of the prior scores, the chosen [lenient, strict] and the prior hit rates at both."""
    scores = np.asarray(scores, dtype=float)
    q = {f"q{100 * p:g}": float(np.quantile(scores, p)) for p in QUANTILES}
    lenient, strict = round(q["q98"], 2), round(q["q99.5"], 2)
    note = ""
    if not _valid(scores, lenient, strict):
        rule = (lenient, strict)
        why = f"the rule gives {rule[0]:.2f} / {rule[1]:.2f}"
        positive = float(np.mean(scores > 0))
        if 0 < positive < TARGETS["lenient"]:
            why += f" (only {positive:.2%} of the prior scores are > 0)"
        fine = round(q["q98"], 3), round(q["q99.5"], 3)
        if _valid(scores, *fine):  # a narrow top of the distribution (QED ends at 0.948): one more decimal
            (lenient, strict), note = fine, f"adjusted: {why}; the percentiles rounded to 0.001 taken"
        elif positive == 0:  # nothing to calibrate on: the lowest pair of the grid
            lenient, strict = 0.01, 0.02
            note = f"not calibrated: no prior sample scores above 0 ({why}); the lowest pair 0.01 / 0.02 taken"
        else:
            lenient, strict = _nearest_valid_pair(scores, rule)
            note = f"adjusted: {why}; nearest valid pair on the 0.01 grid taken"
    return {**q, "max": float(scores.max()), "zero": float(np.mean(scores == 0)), "lenient": lenient,
            "strict": strict, "rate@lenient": rate_at(scores, lenient), "rate@strict": rate_at(scores, strict),
            "note": note}
