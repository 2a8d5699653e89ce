"""IntDiv1 and #Circles against hand computations with RDKit Tanimoto on Morgan r=2, 2048 bits."""

from __future__ import annotations

import pytest
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator

from mara_chem.metrics.diversity import FingerprintSpec, circle_order, int_div1, n_circles

PHENOL, CRESOL, BENZOIC, PARACETAMOL = "c1ccccc1O", "Cc1ccccc1O", "O=C(O)c1ccccc1", "CC(=O)Nc1ccc(O)cc1"
FAR_APART = ["CCO", "c1ccncc1", "C1CCCCC1", "FC(F)(F)Cl", PARACETAMOL]


def tanimoto(a: str, b: str, radius: int = 2, n_bits: int = 2048) -> float:
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits)
    fa, fb = (gen.GetFingerprint(Chem.MolFromSmiles(s)) for s in (a, b))
    return DataStructs.TanimotoSimilarity(fa, fb)


def test_intdiv1_three_molecules_by_hand() -> None:
    smiles = ["CCO", PHENOL, PARACETAMOL]
    pair_sum = tanimoto("CCO", PHENOL) + tanimoto("CCO", PARACETAMOL) + tanimoto(PHENOL, PARACETAMOL)
    assert pair_sum > 0
    assert int_div1(smiles) == pytest.approx(1 - (3 + 2 * pair_sum) / 9)


def test_intdiv1_two_molecules_and_fingerprint_size() -> None:
    t = tanimoto(PHENOL, CRESOL)
    assert int_div1([PHENOL, CRESOL]) == pytest.approx(1 - (2 + 2 * t) / 4)
    t_small = tanimoto(PHENOL, CRESOL, radius=1, n_bits=64)
    assert int_div1([PHENOL, CRESOL], FingerprintSpec(1, 64)) == pytest.approx(1 - (2 + 2 * t_small) / 4)


def test_intdiv1_edge_cases() -> None:
    assert int_div1([]) is None
    assert int_div1(["CCO"]) == 0.0
    assert int_div1(["CCO", "OCC"]) == pytest.approx(0.0)


def test_circles_identical_molecules_make_one() -> None:
    assert n_circles([PHENOL, "Oc1ccccc1", PHENOL]) == 1
    assert n_circles([]) == 0


def test_circles_far_apart_molecules_each_make_one() -> None:
    for i, a in enumerate(FAR_APART):
        for b in FAR_APART[i + 1:]:
            assert 1 - tanimoto(a, b) > 0.75
    assert all(n_circles(FAR_APART, seed=s) == len(FAR_APART) for s in range(5))


def test_circles_close_cluster_counts_once() -> None:
    # phenol, cresol and benzoic acid are pairwise within distance 0.75: one circle, plus ethanol.
    for a, b in [(PHENOL, CRESOL), (PHENOL, BENZOIC), (CRESOL, BENZOIC)]:
        assert 1 - tanimoto(a, b) <= 0.75
    assert all(n_circles([PHENOL, CRESOL, BENZOIC, "CCO"], seed=s) == 2 for s in range(10))


def test_circles_follow_the_seeded_order() -> None:
    # paracetamol ~ phenol ~ cresol, paracetamol far from cresol: 1 circle if phenol is visited first, else 2.
    assert 1 - tanimoto(PARACETAMOL, PHENOL) <= 0.75 and 1 - tanimoto(PHENOL, CRESOL) <= 0.75
    assert 1 - tanimoto(PARACETAMOL, CRESOL) > 0.75
    smiles = [PARACETAMOL, PHENOL, CRESOL]
    results = set()
    for seed in range(12):
        expected = 1 if circle_order(3, seed)[0] == 1 else 2
        assert n_circles(smiles, seed=seed) == expected
        results.add(expected)
    assert results == {1, 2}


def test_circles_distance_threshold() -> None:
    assert n_circles([PHENOL, CRESOL, BENZOIC], t=0.0) == 3
    assert n_circles([PHENOL, PHENOL], t=0.0) == 1  # distance must be strictly greater than t
    assert n_circles(FAR_APART, t=1.0) == 1


def test_circles_visit_hits_in_discovery_order_by_default() -> None:
    """Without a seed the hits are visited as found (oracle-log order): deterministic, and the count over the
    first k hits never decreases with k. Phenol found first covers paracetamol and cresol (1 circle);
    paracetamol found first leaves cresol outside its circle (2)."""
    assert n_circles([PHENOL, PARACETAMOL, CRESOL]) == 1
    assert n_circles([PARACETAMOL, PHENOL, CRESOL]) == 2
    assert circle_order(3).tolist() == [0, 1, 2]
    found = [PARACETAMOL, PHENOL, CRESOL, *FAR_APART]
    prefix_counts = [n_circles(found[:k]) for k in range(len(found) + 1)]
    assert prefix_counts == sorted(prefix_counts) and prefix_counts[-1] == n_circles(found)


def test_circle_centres_over_prefixes_equal_repacking_each_prefix() -> None:
    """The one-pass #Circles curve (discovery order): centres among the first k molecules = #Circles of those k,
    on a set where a late molecule would become a centre only without an earlier one."""
    import numpy as np

    from mara_chem.metrics.diversity import circle_centres, fingerprints, n_circles_fps

    smiles = ["CCO", "CCCO", "c1ccccc1", "CCCCO", "c1ccccc1C", "O=C(O)c1ccccc1", "C1CCNCC1", "CCN(CC)CC",
              "c1ccc2ccccc2c1", "CCOC(=O)C", "OCCCCCCO", "c1ccncc1"]
    fps = fingerprints(smiles)
    prefix = np.cumsum(circle_centres(fps))
    assert prefix.tolist() == [n_circles_fps(fps[:k]) for k in range(1, len(fps) + 1)]
    assert 1 < prefix[-1] < len(smiles)  # the set discriminates: neither one circle nor all
    seeded = circle_centres(fps, seed=3)
    assert int(seeded.sum()) == n_circles_fps(fps, seed=3)


def test_pmo_diversity_is_the_mean_distance_over_distinct_pairs():
    from rdkit import DataStructs

    from mara_chem.metrics.diversity import fingerprints, mean_pairwise_distance_fps

    smiles = ["CCO", "c1ccccc1", "CCN", "CC(=O)O"]
    fps = fingerprints(smiles)
    pairs = [1 - DataStructs.TanimotoSimilarity(fps[i], fps[j]) for i in range(4) for j in range(i + 1, 4)]
    assert mean_pairwise_distance_fps(fps) == pytest.approx(sum(pairs) / 6)
    assert mean_pairwise_distance_fps(fps[:1]) is None
    assert mean_pairwise_distance_fps([fps[0], fps[0]]) == 0.0
