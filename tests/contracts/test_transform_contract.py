"""Contract of every registered transform: raw values -> [0, 1], NaN stays NaN, monotone where it says so."""

from __future__ import annotations

import numpy as np
import pytest
from tests.contracts.contract_helpers import build_example, implementations
from pydantic import ValidationError

from mara_chem.plugins import TRANSFORMS
from mara_chem.scoring.transforms import Transform, build_transform

GRID = np.linspace(-20.0, 20.0, 801)


@pytest.fixture(params=implementations(TRANSFORMS))
def transform(request) -> Transform:
    cls = request.param
    return build_example(cls, lambda: build_transform({"type": cls.name, **cls.example_params}))


def test_maps_into_the_unit_interval_and_keeps_nan(transform):
    raw = np.concatenate([GRID, [np.nan, np.inf, -np.inf]])
    out = transform(raw)
    assert out.shape == raw.shape
    scored = out[np.isfinite(out)]
    assert scored.size > 0 and ((scored >= 0.0) & (scored <= 1.0)).all()
    assert np.isnan(out[-3])
    if type(transform).__call__ is Transform.__call__:  # the numeric template: every finite value is scored
        assert np.isfinite(out[: GRID.size]).all() and np.isnan(out[-3:]).all()


def test_monotone_where_it_claims_to_be(transform):
    if transform.monotone is None:
        pytest.skip(f"{transform.name} does not claim monotonicity")
    out = transform(GRID)
    steps = np.diff(out) if transform.monotone == "increasing" else -np.diff(out)
    assert (steps >= -1e-12).all()
    assert out[0] != out[-1], "a monotone claim over a flat curve says nothing"


def test_unknown_parameter_is_an_error_naming_it(transform):
    with pytest.raises(ValidationError, match="no_such_option"):
        build_transform({"type": transform.name, **type(transform).example_params, "no_such_option": 1})
