"""Two scoring components: the fraction of heavy atoms that are not carbon (raw value in [0, 1]), and an
expensive oracle on mara-chem's worker pool and outcome cache (``example_conformer_energy``)."""

import math

from pydantic import Field

from mara_chem.scoring import ScoringComponent
from mara_chem.scoring.component import ComponentParams, Failure
from mara_chem.scoring.pooled_component import PooledComponent
from mara_chem.scoring.workers.executors import build_executor

from mara_chem_example_plugin.conformer_worker import (
    ConformerEnergyWorker,
    ConformerOutcome,
    ConformerSettings,
    conformer_cache,
)


class HeteroatomFraction(ScoringComponent):
    name = "example_heteroatom_fraction"

    def score_mol(self, mol) -> float:
        heavy = mol.GetNumHeavyAtoms()
        hetero = sum(atom.GetAtomicNum() not in (1, 6) for atom in mol.GetAtoms())
        return hetero / heavy  # a molecule without heavy atoms raises ZeroDivisionError: NaN with a reason


class ConformerEnergyParams(ComponentParams):
    n_conformers: int = Field(4, ge=1, description="ETKDG conformers minimised per molecule")
    seed: int = Field(7, ge=0, description="ETKDG seed")
    executor: str = Field("pool", description="serial | pool | ray (mara-chem's executors)")
    n_workers: int | None = Field(None, ge=1)
    timeout_s: float = Field(60.0, gt=0, description="per molecule; overrun = NaN, not cached")
    cache_path: str | None = Field(None, description="sqlite file of computed molecules, reused across runs")


class ConformerEnergy(PooledComponent[ConformerOutcome]):
    """An expensive oracle as a plugin: lowest MMFF94 energy (kcal/mol) over a few ETKDG conformers, run on
    mara-chem's executors (``serial``, ``pool``, ``ray``) with its persistent outcome cache. The worker is
    ``conformer_worker.py``; ``PooledComponent`` keeps the books, this class only maps params to settings and
    outcomes to values."""

    name = "example_conformer_energy"
    raw_range = (-math.inf, math.inf)  # kcal/mol: needs a transform
    Params = ConformerEnergyParams
    params: ConformerEnergyParams
    example_params = {"executor": "serial", "n_conformers": 2}
    computed = "minimised"

    def __init__(self, params=None):
        super().__init__(params)
        p = self.params
        self.settings = ConformerSettings(n_conformers=p.n_conformers, seed=p.seed)
        self.cache = conformer_cache(p.cache_path, self.settings) if p.cache_path else None

    def _start_executor(self):
        p = self.params
        return build_executor(p.executor, self.settings, n_workers=p.n_workers, timeout_s=p.timeout_s,
                              worker_cls=ConformerEnergyWorker)

    def _counts(self, outcomes) -> str:
        return f"{sum(1 for o in outcomes if o.energy is None)} failed"

    def _value(self, outcome):
        if outcome is None:
            return Failure("invalid SMILES")
        return outcome.energy if outcome.energy is not None else Failure(outcome.reason)
