"""REINVENT's diversity filters: a memory of good molecules that zeroes or scales repeat scaffolds/SMILES.

Semantics follow REINVENT 4: a SMILES already in memory scores 0; a valid molecule with score >= minscore
joins its scaffold's bucket, and once the bucket holds more than ``bucket_size`` molecules further members
score 0. PenalizeSameSmiles multiplies the score of any SMILES seen before by ``penalty_multiplier``.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections import defaultdict
from typing import Any, ClassVar

import numpy as np
from rdkit import DataStructs
from rdkit.Chem import rdFingerprintGenerator

from mara_chem.chem.smiles import murcko_scaffold, to_mol
from mara_chem.plugins import FILTERS


class DiversityFilter(ABC):
    """Base of every filter. ``apply`` is the template: it checks the batch, hands ``_filter`` a float copy of
    the scores and checks that one score per molecule comes back; subclasses implement ``_filter``."""

    type_name: ClassVar[str] = ""
    #: the config (``[diversity_filter]`` table, without ``type``) the contract suite builds the filter with
    example_config: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("type_name"):
            FILTERS.add(cls.type_name, cls)

    def __init__(self, config: Any):
        self.config = config

    def apply(self, smiles: list[str | None], scores: np.ndarray, steps: int) -> np.ndarray:
        """Filtered copy of ``scores`` for canonical SMILES (None = invalid, left untouched)."""
        if len(smiles) != len(scores):
            raise ValueError(f"{self.type_name}: {len(smiles)} SMILES but {len(scores)} scores")
        out = self._filter(smiles, np.array(scores, dtype=float), steps)
        if out.shape != (len(smiles),):
            raise RuntimeError(f"{self.type_name} returned {out.shape} scores for {len(smiles)} molecules")
        return out

    @abstractmethod
    def _filter(self, smiles: list[str | None], scores: np.ndarray, steps: int) -> np.ndarray:
        """Filter ``scores`` (a float copy the filter may change in place) and return them."""

    #: attributes that are not memory: the config, and caches a subclass rebuilds in ``load_state_dict``
    transient: ClassVar[tuple[str, ...]] = ("config",)

    def state_dict(self) -> dict:
        """A snapshot of the memory (a copy: applying the filter afterwards does not change it)."""
        return copy.deepcopy({k: v for k, v in self.__dict__.items() if k not in self.transient})

    def load_state_dict(self, state: dict) -> None:
        self.__dict__.update(copy.deepcopy(state))


class ScaffoldBucketFilter(DiversityFilter):
    """Shared logic of the scaffold filters; subclasses say which bucket a molecule belongs to."""

    def __init__(self, config: Any):
        super().__init__(config)
        self.buckets: dict[str, int] = defaultdict(int)
        self.members: set[str] = set()

    @abstractmethod
    def bucket_of(self, smiles: str) -> str:
        """The bucket (scaffold) a molecule belongs to."""

    def _filter(self, smiles: list[str | None], out: np.ndarray, steps: int) -> np.ndarray:
        for i, smi in enumerate(smiles):
            if smi is None or not np.isfinite(out[i]):
                continue
            if smi in self.members:
                out[i] = 0.0
                continue
            if out[i] >= self.config.minscore:
                bucket = self.bucket_of(smi)
                self.buckets[bucket] += 1
                self.members.add(smi)
                if self.buckets[bucket] > self.config.bucket_size:
                    out[i] = 0.0
        return out


class IdenticalMurckoScaffold(ScaffoldBucketFilter):
    type_name = "IdenticalMurckoScaffold"
    example_config = {"bucket_size": 2, "minscore": 0.4}

    def bucket_of(self, smiles: str) -> str:
        return murcko_scaffold(smiles) or ""


class IdenticalTopologicalScaffold(ScaffoldBucketFilter):
    type_name = "IdenticalTopologicalScaffold"
    example_config = {"bucket_size": 2, "minscore": 0.4}

    def bucket_of(self, smiles: str) -> str:
        return murcko_scaffold(smiles, generic=True) or ""


class ScaffoldSimilarity(ScaffoldBucketFilter):
    """Buckets are joined when scaffolds are similar (atom-pair count fingerprints, Tanimoto >= minsimilarity)."""

    type_name = "ScaffoldSimilarity"
    example_config = {"bucket_size": 2, "minscore": 0.4, "minsimilarity": 0.4}
    transient = ("config", "_gen", "representatives")

    def __init__(self, config: Any):
        super().__init__(config)
        self.representatives: dict[str, Any] = {}
        self._gen = None

    def _fp(self, scaffold: str) -> Any:
        if self._gen is None:
            self._gen = rdFingerprintGenerator.GetAtomPairGenerator()
        mol = to_mol(scaffold) if scaffold else None
        return self._gen.GetCountFingerprint(mol) if mol is not None else None

    def bucket_of(self, smiles: str) -> str:
        scaffold = murcko_scaffold(smiles) or ""
        if scaffold in self.representatives:
            return scaffold
        fp = self._fp(scaffold)
        if fp is not None and self.representatives:
            names = list(self.representatives)
            sims = DataStructs.BulkTanimotoSimilarity(fp, [self.representatives[n] for n in names])
            best = int(np.argmax(sims))
            if sims[best] >= self.config.minsimilarity:
                return names[best]
        if fp is not None:
            self.representatives[scaffold] = fp
        return scaffold

    def state_dict(self) -> dict:
        state = super().state_dict()
        state["representatives"] = {k: None for k in self.representatives}  # fingerprints are rebuilt
        return state

    def load_state_dict(self, state: dict) -> None:
        super().load_state_dict(state)
        self._gen = None
        self.representatives = {k: self._fp(k) for k in state.get("representatives", {})}


class PenalizeSameSmiles(DiversityFilter):
    type_name = "PenalizeSameSmiles"
    example_config = {"penalty_multiplier": 0.5}

    def __init__(self, config: Any):
        super().__init__(config)
        self.seen: set[str] = set()

    def _filter(self, smiles: list[str | None], out: np.ndarray, steps: int) -> np.ndarray:
        for i, smi in enumerate(smiles):
            if smi is None:
                continue
            if smi in self.seen:
                out[i] *= self.config.penalty_multiplier
            self.seen.add(smi)
        return out


def build_filter(config: Any | None) -> DiversityFilter | None:
    return None if config is None else FILTERS.get(config.type)(config)


def list_filters() -> list[str]:
    return FILTERS.names()
