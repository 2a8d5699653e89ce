"""What a chemist needs beside a hit's scores: is it already known, how near the references it is, which
alerts it carries, its properties, its cluster and scaffold group, its route.

- properties (``report.properties``): MW, cLogP, TPSA, HBD, HBA, rotatable bonds, Fsp3, SA score, charge at
  pH 7.4; a property whose name an endpoint already uses is written ``<name>_calc``.
- ``known_in``: the reference files that hold the molecule (matched by structure, ``mara_chem.chem.known``):
  the run's ``KnownCompounds`` endpoints, the series the agent was tuned on (transfer learning records its
  ``smiles_file`` in the model), and any ``--known`` file. ``nearest_known`` / ``nearest_known_in``: the
  Tanimoto of the most similar reference molecule and its file (``report.similarity``): novelty is 1 minus it.
- ``alert_names``: RDKit's PAINS and Brenk alerts by name (``mara_chem.chem.alerts``), whatever the objective.
- ``cluster``: leader clustering at the chosen Tanimoto (``report.similarity``), numbered by the best member.
- ``scaffold_group``: 1 for the Murcko scaffold of the best hit, 2 for the next scaffold, ...
- ``route_steps`` / ``bloom_only``: from the retrosynthesis routes file, when the objective ran one.

Lists in a cell are joined by ``chem.alerts.join_names`` (``a;b``: split on ';').

The names are not plain ``known``/``alerts`` because those are natural endpoint names (the shipped
objectives have an endpoint ``alerts``), and an annotation must never overwrite a score column.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from mara_chem.chem.alerts import alert_names, join_names
from mara_chem.chem.known import KnownCompounds
from mara_chem.chem.smiles import murcko_scaffold, to_mol
from mara_chem.metrics.diversity import FingerprintSpec
from mara_chem.report.properties import molecule_properties
from mara_chem.report.routes import ROUTE_COLUMNS, route_columns
from mara_chem.report.defaults import DEFAULT_CLUSTER_SIMILARITY
from mara_chem.report.similarity import nearest_references, similarity_clusters

log = logging.getLogger(__name__)

#: the columns ``annotate`` adds (besides the properties and, with routes, ``ROUTE_COLUMNS``)
ANNOTATIONS = ("known_in", "nearest_known", "nearest_known_in", "alert_names", "cluster", "scaffold_group")


def _known_endpoints(scoring: dict[str, Any]) -> list[tuple[list[str], list[str]]]:
    """(files, inline SMILES) of every KnownCompounds endpoint of a scoring section."""
    found = []
    for entry in scoring.get("component", []):
        for cname, spec in entry.items():
            if cname.replace("_", "").replace("-", "").lower() in ("knowncompounds", "novelty"):
                for ep in spec["endpoint"]:
                    params = ep.get("params") or {}
                    files = params.get("smiles_file") or []
                    found.append(([files] if isinstance(files, str) else list(files), list(params.get("smiles") or [])))
    return found


def _tuned_on(model_file: str | None) -> str | None:
    """The series file a transfer-learning model was tuned on (from its metadata), if the model says."""
    if not model_file:
        return None
    try:
        from mara_chem.models.prior_file import read_metadata

        return (read_metadata(model_file).get("transfer_learning") or {}).get("smiles_file")
    except Exception:  # a missing or foreign model file: nothing to learn from it
        return None


def known_compounds(record: dict[str, Any] | None, extra_files: Sequence[str | Path] = (),
                    scoring: dict[str, Any] | None = None) -> KnownCompounds:
    """Every reference set that applies to a run (``record``: its run.json) or a scored table (``scoring``)."""
    known = KnownCompounds()
    files: list[str] = []
    sections = [s["scoring"] for s in (record or {}).get("stage", [])] + ([scoring] if scoring else [])
    for section in sections:
        for paths, inline in _known_endpoints(section):
            files += paths
            if inline:
                known.add(inline, "objective's known SMILES")
    series = _tuned_on(((record or {}).get("parameters") or {}).get("agent_file"))
    if series:
        files.append(series)
    for path in [*files, *map(str, extra_files)]:
        if Path(path).name in known.labels:
            continue
        if not Path(path).is_file() and path not in map(str, extra_files):
            log.warning("reference file %s (named by the run) is not here; its molecules are not marked", path)
            continue
        known.add_file(path)
    return known


def annotate(df: pd.DataFrame, known: KnownCompounds, smiles_col: str = "smiles",
             cluster_similarity: float = DEFAULT_CLUSTER_SIMILARITY, spec: FingerprintSpec = FingerprintSpec(),
             routes: dict[str, dict] | None = None) -> pd.DataFrame:
    """Add the properties, ``known_in``, ``nearest_known(_in)``, ``alert_names``, ``cluster``, ``scaffold`` (if
    missing), ``scaffold_group`` and, given routes, ``route_steps``/``bloom_only`` to a hit table sorted best
    first; a table that already has one of the annotation columns (an endpoint of that name) is refused."""
    added = ANNOTATIONS + (ROUTE_COLUMNS if routes else ())
    clash = [c for c in added if c in df.columns]
    if clash:
        raise ValueError(f"the hit table already has column(s) {clash}; rename the endpoint(s)")
    out = df.copy()
    smiles = [str(s) for s in out[smiles_col]]
    props = molecule_properties(smiles)
    for col in props.columns:
        out[col if col not in out.columns else f"{col}_calc"] = props[col].to_numpy()
    mols = [to_mol(s) for s in smiles]
    out["known_in"] = [join_names(known.where(s)) for s in smiles]
    nearest = nearest_references(smiles, known, spec)
    out["nearest_known"] = [sim for sim, _ in nearest]
    out["nearest_known_in"] = [label for _, label in nearest]
    out["alert_names"] = [join_names(alert_names(m)) if m is not None else "" for m in mols]
    out["cluster"] = pd.Series(similarity_clusters(smiles, cluster_similarity, spec), dtype=object).to_numpy()
    if "scaffold" not in out:
        out["scaffold"] = [murcko_scaffold(s) for s in smiles]
    order: dict[str, int] = {}
    for scaffold in out["scaffold"]:
        order.setdefault(scaffold, len(order) + 1)
    out["scaffold_group"] = [order[s] for s in out["scaffold"]]
    if routes:
        for col, values in route_columns(smiles, routes).items():
            out[col] = pd.Series(values, dtype=object).to_numpy()
    return out
