"""An expensive oracle's worker, the way a new one plugs into mara-chem's executors and outcome cache.

The job is real and computed: the lowest MMFF94 energy (kcal/mol) over ``n_conformers`` ETKDG conformers,
each minimised (tens of milliseconds per drug-sized molecule). Nothing here registers anything, so a test
may import this module without adding a component to its registries (``components.py`` does that).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass

from mara_chem.scoring.workers.cache import OutcomeCache, json_fields
from mara_chem.scoring.workers.worker import Worker


@dataclass(frozen=True)
class ConformerSettings:
    """Everything that changes an energy (picklable: it travels to pool and Ray workers)."""

    n_conformers: int = 4
    seed: int = 7
    max_iterations: int = 500
    cpu_per_worker: int = 1

    def fingerprint(self) -> str:
        from rdkit import rdBase

        payload = {k: v for k, v in asdict(self).items() if k != "cpu_per_worker"}
        payload["rdkit"] = rdBase.rdkitVersion
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]


@dataclass
class ConformerOutcome:
    smiles: str
    energy: float | None = None
    reason: str | None = None
    seconds: float = 0.0
    cacheable: bool = True


class ConformerEnergyWorker(Worker[ConformerSettings, ConformerOutcome]):
    """ETKDG conformers, MMFF94-minimised; the lowest energy. Set-up is nothing; each molecule is the work."""

    kind = "conformer worker"

    def __init__(self, settings: ConformerSettings):
        self.settings = settings

    def run(self, smiles: str) -> ConformerOutcome:
        from rdkit import Chem
        from rdkit.Chem import AllChem

        start = time.perf_counter()
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            return ConformerOutcome(smiles, reason="invalid SMILES", seconds=time.perf_counter() - start)
        if mol.GetNumAtoms() == 0:  # "" parses to an empty molecule, which ETKDG refuses with an exception
            return ConformerOutcome(smiles, reason="no atoms", seconds=time.perf_counter() - start)
        mol = Chem.AddHs(mol)
        params = AllChem.ETKDGv3()
        params.randomSeed = self.settings.seed
        params.numThreads = self.settings.cpu_per_worker
        if not AllChem.EmbedMultipleConfs(mol, self.settings.n_conformers, params):
            return ConformerOutcome(smiles, reason="no conformer", seconds=time.perf_counter() - start)
        if not AllChem.MMFFHasAllMoleculeParams(mol):
            return ConformerOutcome(smiles, reason="no MMFF94 parameters", seconds=time.perf_counter() - start)
        results = AllChem.MMFFOptimizeMoleculeConfs(mol, numThreads=self.settings.cpu_per_worker,
                                                    maxIters=self.settings.max_iterations)
        energy = min(e for _, e in results)
        return ConformerOutcome(smiles, energy=float(energy), seconds=time.perf_counter() - start)

    @classmethod
    def failure(cls, smiles: str, reason: str, seconds: float) -> ConformerOutcome:
        return ConformerOutcome(smiles, reason=reason, seconds=seconds, cacheable=False)


def conformer_cache(path: str, settings: ConformerSettings) -> OutcomeCache[ConformerOutcome]:
    return OutcomeCache(path, settings.fingerprint(), json_fields, lambda text: ConformerOutcome(**json.loads(text)))
