"""Mean ± sample std over seeds and the two-sided Welch t-test of each variant against DAP."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchlab.run_metrics import METRICS
from benchlab.variants import BASELINE


def welch_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided Welch t-test p-value (scipy.stats.ttest_ind, equal_var=False); NaN when undefined."""
    from scipy.stats import ttest_ind

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if len(a) < 2 or len(b) < 2:
        return math.nan
    if np.std(a) == 0 and np.std(b) == 0:
        return 1.0 if np.mean(a) == np.mean(b) else 0.0
    with np.errstate(all="ignore"):
        return float(ttest_ind(a, b, equal_var=False).pvalue)


def aggregate(rows: list[dict[str, Any]], strategies: Sequence[str]) -> list[dict[str, Any]]:
    """Mean ± std over seeds per task × variant × metric, with the Welch p-value against DAP.

    OB_N: runs that never reach N hits are left out of the mean and counted in ``reached``.
    """
    out = []
    keys = ["auc_top10"] + [f"{k}@{lvl}" for lvl in ("lenient", "strict") for k in METRICS]
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    for task in tasks:
        by_strategy = {s: [r for r in rows if r["task"] == task and r["strategy"] == s] for s in strategies}
        for s in strategies:
            runs = by_strategy[s]
            if not runs:
                continue
            entry: dict[str, Any] = {"task": task, "strategy": s, "n_seeds": len(runs),
                                     "oracle_calls": float(np.mean([r["oracle_calls"] for r in runs]))}
            for key in keys:
                values = [_num(r[key]) for r in runs]
                finite = [v for v in values if math.isfinite(v)]
                base = [_num(r[key]) for r in by_strategy.get(BASELINE, [])]
                entry[f"{key}.mean"] = float(np.mean(finite)) if finite else math.nan
                entry[f"{key}.std"] = float(np.std(finite, ddof=1)) if len(finite) > 1 else (0.0 if finite else math.nan)
                entry[f"{key}.n"] = len(finite)
                entry[f"{key}.p_vs_dap"] = math.nan if s == BASELINE else welch_p(values, base)
            out.append(entry)
    return out


def _num(value: Any) -> float:
    return math.nan if value is None else float(value)
