"""Contract of every registered aggregator ([scoring] type): a mean-like total of the present endpoints."""

from __future__ import annotations

import numpy as np
import pytest
from tests.contracts.contract_helpers import implementations

from mara_chem.plugins import AGGREGATORS

RNG = np.random.default_rng(0)
VALUES = RNG.uniform(0.05, 1.0, size=(20, 3))
VALUES[3, 1] = np.nan
VALUES[7, [0, 2]] = np.nan
VALUES[11] = np.nan  # no endpoint present
WEIGHTS = np.array([1.0, 2.0, 0.5])


@pytest.fixture(params=implementations(AGGREGATORS))
def aggregate(request):
    return request.param()


def test_one_total_per_row_in_the_unit_interval(aggregate):
    total = aggregate(VALUES, WEIGHTS)
    assert total.shape == (VALUES.shape[0],)
    assert np.isnan(total[11])
    rest = np.delete(total, 11)
    assert np.isfinite(rest).all() and ((rest >= 0.0) & (rest <= 1.0)).all()


def test_weights_are_relative_and_a_lone_or_constant_endpoint_is_the_total(aggregate):
    np.testing.assert_allclose(aggregate(VALUES, 7.0 * WEIGHTS), aggregate(VALUES, WEIGHTS))
    assert aggregate(VALUES, WEIGHTS)[7] == pytest.approx(VALUES[7, 1])
    constant = np.full((4, 3), 0.6)
    np.testing.assert_allclose(aggregate(constant, WEIGHTS), 0.6)


def test_raising_one_score_never_lowers_the_total(aggregate):
    raised = VALUES.copy()
    raised[:, 0] = np.minimum(raised[:, 0] + 0.3, 1.0)
    before, after = aggregate(VALUES, WEIGHTS), aggregate(raised, WEIGHTS)
    ok = np.isfinite(before)
    assert (after[ok] >= before[ok] - 1e-12).all()


def test_wrong_shapes_are_refused(aggregate):
    with pytest.raises(ValueError, match="weights"):
        aggregate(VALUES, WEIGHTS[:2])
