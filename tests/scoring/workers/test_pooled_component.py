"""``PooledComponent.score_batch`` keeps the books of every pooled oracle: each valid SMILES goes to the pool once
per batch, a cached one never again, an unparsable one never, and values return in the caller's order.

The component is the example plugin's ``example_conformer_energy`` (examples/mara_chem_example_plugin), a real
MMFF94 job on the serial executor; its worker's own calls are counted.
"""

from __future__ import annotations

import math
import sys

import pytest

from tests.paths import EXAMPLE_PLUGIN

sys.path.insert(0, str(EXAMPLE_PLUGIN))
from mara_chem_example_plugin.components import ConformerEnergy  # noqa: E402
from mara_chem_example_plugin.conformer_worker import ConformerEnergyWorker  # noqa: E402


@pytest.fixture()
def worker_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The SMILES the worker is asked to run, in order (the real job still runs)."""
    calls: list[str] = []
    run = ConformerEnergyWorker.run

    def counted(self, smiles):
        calls.append(smiles)
        return run(self, smiles)

    monkeypatch.setattr(ConformerEnergyWorker, "run", counted)
    return calls


def test_each_valid_molecule_is_computed_once_and_a_cached_one_never_again(tmp_path, worker_calls):
    component = ConformerEnergy({"executor": "serial", "n_conformers": 2, "cache_path": str(tmp_path / "c.sqlite")})
    try:
        first = component(["CCO", "not a smiles", "CCN", "CCO"])
        assert worker_calls == ["CCO", "CCN"]  # the duplicate once, the unparsable never
        assert first.values[0] == first.values[3] and math.isfinite(first.values[0])
        assert math.isnan(first.values[1]) and "invalid SMILES" in first.reasons[1]
        second = component(["CCN", "CCC", "CCO"])
        assert worker_calls == ["CCO", "CCN", "CCC"]  # only the new molecule reaches the pool
        assert second.values[0] == first.values[2] and second.values[2] == first.values[0]
    finally:
        component.close()
    assert component.cache is None and component._executor is None  # close shuts both, once
    component.close()
