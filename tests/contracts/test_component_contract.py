"""Contract of every registered scoring component (built-in or plugin), run on real molecules.

One value per input, in order; NaN with a reason naming the component for anything it cannot score
(unparsable, empty or chemically impossible SMILES); finite values with no reason otherwise; a molecule's
value does not depend on its neighbours in the batch; unknown parameters are errors naming the key.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from tests.contracts.contract_helpers import build_example, implementations
from pydantic import ValidationError

from mara_chem.plugins import COMPONENTS

VALID = ["c1ccc2[nH]ccc2c1", "OC(=O)c1ccccc1O", "CC(=O)Nc1ccc(O)cc1"]  # indole, salicylic acid, paracetamol
UNPARSABLE = ["not a smiles", "C1CC", "C(C)(C)(C)(C)C", ""]  # garbage, unclosed ring, pentavalent carbon, empty


@pytest.fixture(params=implementations(COMPONENTS), scope="module")
def component(request):
    cls = request.param
    comp = build_example(cls, lambda: cls(dict(cls.example_params)))
    yield comp
    comp.close()


def test_one_value_per_input_and_nan_with_reason_on_failure(component):
    smiles = [VALID[0], UNPARSABLE[0], VALID[1], UNPARSABLE[1], UNPARSABLE[2], VALID[2], UNPARSABLE[3]]
    result = component(smiles)
    assert result.values.shape == (len(smiles),) and len(result.reasons) == len(smiles)
    for value, reason in zip(result.values, result.reasons):
        if math.isnan(value):
            assert isinstance(reason, str) and reason.startswith(f"{component.name}: ")
            assert len(reason) > len(component.name) + 2, "the reason must say why"
        else:  # a score may carry a note (a retrosynthesis zero says why), under the component's name
            assert reason is None or (reason.startswith(f"{component.name}: ") and len(reason) > len(component.name) + 2)
    for i in (1, 3, 4, 6):
        assert math.isnan(result.values[i]), f"{smiles[i]!r} scored {result.values[i]}"
    assert np.isfinite(result.values[[0, 2, 5]]).all(), result.reasons


def test_values_do_not_depend_on_the_batch(component):
    forward = component(VALID).values
    backward = component(VALID[::-1]).values[::-1]
    single = np.array([component([s]).values[0] for s in VALID])
    np.testing.assert_allclose(forward, backward)
    np.testing.assert_allclose(forward, single)
    assert component([]).values.shape == (0,)


def test_unknown_parameter_is_an_error_naming_it(component):
    with pytest.raises(ValidationError, match="no_such_option"):
        type(component).Params(**component.params.model_dump(), no_such_option=1)
