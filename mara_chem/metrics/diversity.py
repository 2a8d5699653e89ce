"""Diversity of the hits: IntDiv1 (MOSES) and #Circles (Xie et al., ICLR 2023), on Morgan fingerprints."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rdkit import DataStructs
from rdkit.DataStructs import ExplicitBitVect

from mara_chem.chem.fingerprints import morgan_fingerprint
from mara_chem.metrics.metric import Column, HitsAtThreshold, threshold_metrics
from mara_chem.metrics.options import CIRCLE_DISTANCE, FINGERPRINT_PRESETS, FingerprintSpec

def fingerprints(smiles: Sequence[str], spec: FingerprintSpec = FingerprintSpec()) -> list[ExplicitBitVect]:
    """Fingerprints, one per SMILES; hits are valid by construction, so an invalid SMILES is an error."""
    fps = [morgan_fingerprint(s, spec.radius, spec.n_bits) for s in smiles]
    bad = [s for s, fp in zip(smiles, fps) if fp is None]
    if bad:
        raise ValueError(f"invalid SMILES cannot be fingerprinted: {bad[:3]}")
    return fps  # type: ignore[return-value]


def int_div1_fps(fps: Sequence[ExplicitBitVect]) -> float | None:
    """MOSES IntDiv1 = 1 − (1/n²)·Σ_{i,j} T_ij with the diagonal (T_ii = 1) included.

    n = 0: None (undefined, 0/0). n = 1: 0.0 (the formula gives 1 − 1/1).
    """
    n = len(fps)
    if n == 0:
        return None
    off_diagonal = sum(sum(DataStructs.BulkTanimotoSimilarity(fps[i], list(fps[i + 1:]))) for i in range(n - 1))
    return float(1.0 - (n + 2.0 * off_diagonal) / (n * n))


def mean_pairwise_distance_fps(fps: Sequence[ExplicitBitVect]) -> float | None:
    """PMO's diversity (TDC's ``diversity`` evaluator): mean Tanimoto distance 1 − T_ij over the pairs i < j.

    Unlike IntDiv1 the diagonal is left out, so one molecule has no value (None), and two identical ones 0.
    """
    n = len(fps)
    if n < 2:
        return None
    total = sum(sum(DataStructs.BulkTanimotoSimilarity(fps[i], list(fps[i + 1:]))) for i in range(n - 1))
    return float(1.0 - total / (n * (n - 1) / 2))


def int_div1(smiles: Sequence[str], spec: FingerprintSpec = FingerprintSpec()) -> float | None:
    """IntDiv1 of a set of SMILES (see ``int_div1_fps``)."""
    return int_div1_fps(fingerprints(smiles, spec))


def circle_order(n: int, seed: int | None = None) -> np.ndarray:
    """Visiting order for greedy packing: the input order (``seed=None``, the default), else
    ``numpy.random.default_rng(seed).permutation(n)`` of it."""
    return np.arange(n) if seed is None else np.random.default_rng(seed).permutation(n)


def circle_centres(fps: Sequence[ExplicitBitVect], t: float = CIRCLE_DISTANCE, seed: int | None = None) -> np.ndarray:
    """Which molecules become circle centres under greedy packing (a bool per input molecule, input order).

    In discovery order (``seed=None``) a molecule's fate depends only on the molecules before it, so the number of
    centres among the first k molecules is #Circles of those k: one pass gives the whole #Circles curve."""
    chosen: list[ExplicitBitVect] = []
    centre = np.zeros(len(fps), dtype=bool)
    for i in circle_order(len(fps), seed):
        fp = fps[int(i)]
        if not chosen or (1.0 - np.asarray(DataStructs.BulkTanimotoSimilarity(fp, chosen))).min() > t:
            chosen.append(fp)
            centre[int(i)] = True
    return centre


def n_circles_fps(fps: Sequence[ExplicitBitVect], t: float = CIRCLE_DISTANCE, seed: int | None = None) -> int:
    """#Circles by greedy sphere packing: a molecule joins if 1 − Tanimoto to EVERY chosen one is > t.

    Molecules are visited in ``circle_order(len(fps), seed)``: by default in input order, which for hits is
    discovery order (the oracle log's call order, as the published implementation visits its input), so the
    count is deterministic and, over a growing prefix of the hits, never decreases. A random order (``seed``)
    changes the count by several circles on real runs. The greedy count is a lower bound of the maximal
    packing (Xie et al. 2023, "How much space has been explored?").
    """
    return int(circle_centres(fps, t, seed).sum())


def n_circles(smiles: Sequence[str], t: float = CIRCLE_DISTANCE, seed: int | None = None,
              spec: FingerprintSpec = FingerprintSpec()) -> int:
    """#Circles of a set of SMILES (input order = call order for hits; see ``n_circles_fps``)."""
    return n_circles_fps(fingerprints(smiles, spec), t, seed)


@threshold_metrics(Column("intdiv1", "IntDiv1", ".3f", benchmark=True), column=30, conventions={
    "intdiv1": "MOSES 1 - (1/n^2) sum_ij T_ij, diagonal included; null for 0 hits, 0.0 for 1 hit"})
def _intdiv1(h: HitsAtThreshold) -> dict[str, object]:
    return {"intdiv1": int_div1_fps(h.fps)}


@threshold_metrics(Column("n_circles", "#Circles", "d", benchmark=True), column=40, conventions={
    "n_circles": "greedy packing, join if 1 - Tanimoto > t to every chosen hit; hits visited in discovery (call) "
                 "order, or in numpy.random.default_rng(seed).permutation order when a seed is given"})
def _n_circles(h: HitsAtThreshold) -> dict[str, object]:
    return {"n_circles": n_circles_fps(h.fps, h.options.circle_distance, h.options.seed)}
