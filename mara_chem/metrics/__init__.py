"""Run metrics from the oracle log (docs/metrics.md): Yield, OB_N, IntDiv1, #Circles, PMO AUC top-k, collapse.

Names are imported lazily (PEP 562) so that building the CLI parser does not load RDKit and pandas.
"""

from __future__ import annotations

import importlib
from typing import Any

_LOG = "mara_chem.run_folder.oracle_log"  # the run folder's format, re-exported for callers of metrics
_EXPORTS = {
    "top_k_auc": "auc", "top_k_mean": "auc",
    "batch_duplicates": "collapse", "duplicate_fraction": "collapse", "duplicate_fraction_per_step": "collapse",
    "scaffold_stats": "collapse",
    "MetricOptions": "options", "compute_metrics": "compute", "threshold_metrics": "compute",
    "FingerprintSpec": "options", "int_div1": "diversity", "int_div1_fps": "diversity", "n_circles": "diversity",
    "n_circles_fps": "diversity",
    "circle_centres": "diversity",
    "LoggedMolecule": _LOG, "LogTable": _LOG, "OracleLog": _LOG, "read_oracle_log": _LOG, "unique_molecules": _LOG,
    "format_table": "table", "html_table": "table",
    "hits": "yield_ob", "oracle_burden": "yield_ob", "yield_count": "yield_ob",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'mara_chem.metrics' has no attribute {name!r}")
    module = _EXPORTS[name]
    return getattr(importlib.import_module(module if "." in module else f"mara_chem.metrics.{module}"), name)
