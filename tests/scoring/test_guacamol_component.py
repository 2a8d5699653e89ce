"""The Guacamol component returns exactly what guacamol's own objectives score (parity), through the Scorer."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("guacamol", reason="guacamol==0.5.5 is installed by scripts/setup_venv.sh (--no-deps)")

import mara_chem.scoring.components  # noqa: E402,F401  (registers the built-in components)
from mara_chem.scoring.component import build_component  # noqa: E402
from mara_chem.scoring.components.guacamol import CELECOXIB, _benchmarks, standard_benchmarks  # noqa: E402

MOLECULES = [CELECOXIB, "CC(=O)Oc1ccccc1C(=O)O", "CN1CCN(CC1)c1ccc2nc(-c3ccccc3)[nH]c2c1", "Cc1ccc(cc1)S(=O)(=O)N"]


@pytest.mark.parametrize("name", sorted(_benchmarks()))
def test_parity_with_guacamol_score(name: str) -> None:
    sb = standard_benchmarks()
    reference = _benchmarks()[name](sb).objective  # built here, independently of the component's instance
    expected = [reference.score(s) for s in MOLECULES]
    result = build_component("Guacamol", {"objective": name})(MOLECULES)
    assert result.values.tolist() == pytest.approx(expected, abs=0, rel=0)
    assert all(0.0 <= v <= 1.0 for v in result.values)


def test_rediscovery_of_the_target_scores_one_and_invalid_is_a_failure() -> None:
    result = build_component("Guacamol", {"objective": "celecoxib_rediscovery"})([CELECOXIB, "C1CC"])
    assert result.values[0] == 1.0 and np.isnan(result.values[1]) and "invalid" in result.reasons[1]


def test_import_shims_leave_nothing_behind() -> None:
    import scipy

    standard_benchmarks()
    assert "fcd" not in sys.modules or not hasattr(sys.modules["fcd"], "__getattr__")
    assert not hasattr(scipy, "histogram") or scipy.histogram is not np.histogram


def test_unknown_objective_is_named() -> None:
    with pytest.raises(ValueError, match="objective"):
        build_component("Guacamol", {"objective": "drd2"})
