"""Contract of every registered docking executor: one outcome per SMILES, in input order, each naming its own
SMILES; an unparsable SMILES is a failed outcome with a reason, not an exception; an empty batch starts nothing.

Real Vina on dockstring's DRD2 receptor in a 10 Å box (exhaustiveness 1); the pool and Ray cases are slow."""

from __future__ import annotations

import pytest

pytest.importorskip("vina")
pytest.importorskip("meeko")
pytest.importorskip("molscrub")
pytest.importorskip("dockstring")

from contract_helpers import implementations  # noqa: E402

from mara_chem.plugins import EXECUTORS  # noqa: E402
from mara_chem.scoring.components.docking import VinaDocking  # noqa: E402

SMILES = ["c1ccc2[nH]ccc2c1", "not a smiles", "OC(=O)c1ccccc1O"]


@pytest.fixture(scope="module")
def settings():
    return VinaDocking(VinaDocking.example_params).settings


@pytest.mark.parametrize("executor_cls", implementations(EXECUTORS))
def test_one_outcome_per_smiles_in_order(executor_cls, settings):
    with executor_cls(settings, n_workers=1, timeout_s=120.0) as executor:
        assert executor.map([]) == []
        assert executor.n_workers >= 1
        outcomes = executor.map(SMILES)
    assert [o.smiles for o in outcomes] == SMILES
    assert outcomes[1].score is None and outcomes[1].reason
    assert outcomes[0].score is not None and outcomes[2].score is not None
    assert outcomes[0].score < 0 and outcomes[2].score < 0  # kcal/mol
