"""Similarity annotations of a hit table: clusters at a chosen Tanimoto, and novelty against reference files.

- ``similarity_clusters``: leader clustering in the table's order (best score first). The best hit opens
  cluster 1; each next molecule joins the cluster whose leader it is most similar to, if that similarity is
  at least the chosen Tanimoto, else it opens the next cluster. So a cluster is numbered by the rank of its
  best member and its leader is that member: what a chemist picks one of. Murcko groups
  (``annotate.scaffold_group``) sit beside it; the two disagree where a scaffold hop keeps the fingerprint
  close or a shared scaffold carries very different substituents.
- ``nearest_references``: for each molecule the Tanimoto of the most similar molecule of each reference
  set (the run's KnownCompounds files, the tuning series, ``--known`` files), its best value and the file.

Both use the report's fingerprint (``metrics.diversity.FingerprintSpec``: Morgan radius 2, 2048 bits).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rdkit import DataStructs

from mara_chem.chem.fingerprints import morgan_fingerprint
from mara_chem.chem.known import KnownCompounds
from mara_chem.metrics.diversity import FingerprintSpec
from mara_chem.report.defaults import DEFAULT_CLUSTER_SIMILARITY


def similarity_clusters(smiles: Sequence[str], min_similarity: float = DEFAULT_CLUSTER_SIMILARITY,
                        spec: FingerprintSpec = FingerprintSpec()) -> list[int | None]:
    """Cluster number (1, 2, ...) of each molecule in input order; None for a SMILES that does not parse."""
    leaders: list[DataStructs.ExplicitBitVect] = []
    out: list[int | None] = []
    for smi in smiles:
        fp = morgan_fingerprint(str(smi), spec.radius, spec.n_bits)
        if fp is None:
            out.append(None)
            continue
        sims = np.asarray(DataStructs.BulkTanimotoSimilarity(fp, leaders)) if leaders else np.zeros(0)
        if len(sims) and sims.max() >= min_similarity:
            out.append(int(sims.argmax()) + 1)
        else:
            leaders.append(fp)
            out.append(len(leaders))
    return out


def nearest_references(smiles: Sequence[str], known: KnownCompounds,
                       spec: FingerprintSpec = FingerprintSpec()) -> list[tuple[float | None, str]]:
    """(Tanimoto of the nearest reference molecule, the set it is in) per molecule; (None, '') without any
    reference set or for a SMILES that does not parse."""
    by_label: dict[str, list[DataStructs.ExplicitBitVect]] = {}
    for key, labels in known.sources.items():
        fp = morgan_fingerprint(key, spec.radius, spec.n_bits)
        if fp is not None:
            for label in labels:
                by_label.setdefault(label, []).append(fp)
    out: list[tuple[float | None, str]] = []
    for smi in smiles:
        fp = morgan_fingerprint(str(smi), spec.radius, spec.n_bits)
        if fp is None or not by_label:
            out.append((None, ""))
            continue
        best = max(((max(DataStructs.BulkTanimotoSimilarity(fp, fps)), label) for label, fps in by_label.items()),
                   key=lambda pair: pair[0])
        out.append((float(best[0]), best[1]))
    return out
