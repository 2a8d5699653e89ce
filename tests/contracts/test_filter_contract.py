"""Contract of every registered diversity filter: one score per molecule, scores only ever lowered, invalid
molecules untouched, the input left alone, and a filter restored from its state_dict behaves like the original."""

from __future__ import annotations

import numpy as np
import pytest
from tests.contracts.contract_helpers import build_example, implementations

from mara_chem.plugins import FILTERS
from mara_chem.rl.diversity_filters import build_filter

STEP1 = ["c1ccccc1CCO", "c1ccccc1CCN", None, "c1ccccc1CCC", "C1CCCCC1CO", "c1ccccc1CCO", "CCO"]
SCORES1 = np.array([0.9, 0.8, 0.0, 0.7, 0.95, 0.9, np.nan])
STEP2 = ["c1ccccc1CCO", "c1ccccc1CCCl", "C1CCCCC1CN", None, "c1ccncc1CCO"]
SCORES2 = np.array([0.9, 0.85, 0.9, 0.3, 0.8])


def make(cls):
    return build_example(cls, lambda: build_filter({"type": cls.name, **cls.example_params}),
                         "example_params")


@pytest.fixture(params=implementations(FILTERS))
def filter_cls(request):
    return request.param


def test_scores_are_only_lowered_and_invalid_rows_untouched(filter_cls):
    df = make(filter_cls)
    scores = SCORES1.copy()
    out = df.apply(STEP1, scores, 1)
    np.testing.assert_array_equal(scores, SCORES1)  # the caller's array is not modified
    assert out.shape == SCORES1.shape and out.dtype == float
    finite = np.isfinite(SCORES1)
    assert ((out[finite] >= 0.0) & (out[finite] <= SCORES1[finite] + 1e-12)).all()
    assert out[2] == SCORES1[2] and np.isnan(out[6])
    later = df.apply(STEP2, SCORES2, 2)
    assert later[0] < SCORES2[0], "a SMILES met before must not keep its full score"


def test_restored_state_behaves_like_the_original(filter_cls):
    original = make(filter_cls)
    original.apply(STEP1, SCORES1, 1)
    restored = make(filter_cls)
    restored.load_state_dict(original.state_dict())
    np.testing.assert_array_equal(restored.apply(STEP2, SCORES2, 2), original.apply(STEP2, SCORES2, 2))


def test_mismatched_lengths_are_refused(filter_cls):
    with pytest.raises(ValueError, match="SMILES"):
        make(filter_cls).apply(STEP1, SCORES1[:3], 1)
