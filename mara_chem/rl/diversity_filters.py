"""REINVENT's diversity filters: a memory of good molecules that zeroes or scales repeat scaffolds/SMILES.

Semantics follow REINVENT 4: a SMILES already in memory scores 0; a valid molecule with score >= minscore
joins its scaffold's bucket, and once the bucket holds more than ``bucket_size`` molecules further members
score 0. PenalizeSameSmiles multiplies the score of any SMILES seen before by ``penalty_multiplier``.

Each filter owns the model of its ``[diversity_filter]`` table (``Params``; the built-ins share REINVENT's
flat table), so a run file may name any registered filter, a plugin's included, and a misspelt key is an
error that names it.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from rdkit import DataStructs
from rdkit.Chem import rdFingerprintGenerator

from mara_chem.chem.smiles import murcko_scaffold, to_mol
from mara_chem.plugins import FILTERS
from mara_chem.registry import Registered


class FilterParams(BaseModel):
    """Base of a filter's ``[diversity_filter]`` table: ``type`` is the filter's registered name."""

    model_config = ConfigDict(extra="forbid", strict=True)

    type: str


class ReinventFilterParams(FilterParams):
    """REINVENT's flat filter table: every key is accepted for every built-in type and used where it applies."""

    bucket_size: int = Field(25, ge=1, description="scaffold filters")
    minscore: float = Field(0.4, ge=0.0, le=1.0, allow_inf_nan=False, description="scaffold filters")
    minsimilarity: float = Field(0.4, ge=0.0, le=1.0, allow_inf_nan=False, description="ScaffoldSimilarity")
    penalty_multiplier: float = Field(0.5, ge=0.0, le=1.0, allow_inf_nan=False, description="PenalizeSameSmiles")


class DiversityFilter(Registered, ABC):
    """Base of every filter. ``apply`` is the template: it checks the batch, hands ``_filter`` a float copy of
    the scores and checks that one score per molecule comes back; subclasses implement ``_filter``."""

    plugin_registry = FILTERS
    name: ClassVar[str] = ""
    #: the model of this filter's ``[diversity_filter]`` table (a ``FilterParams``)
    Params: ClassVar[type[FilterParams]] = ReinventFilterParams
    #: the config (``[diversity_filter]`` table, without ``type``) the contract suite builds the filter with
    example_params: ClassVar[dict[str, Any]] = {}

    def __init__(self, config: FilterParams):
        self.config = config

    def apply(self, smiles: list[str | None], scores: np.ndarray, steps: int) -> np.ndarray:
        """Filtered copy of ``scores`` for canonical SMILES (None = invalid, left untouched)."""
        if len(smiles) != len(scores):
            raise ValueError(f"{self.name}: {len(smiles)} SMILES but {len(scores)} scores")
        out = self._filter(smiles, np.array(scores, dtype=float), steps)
        if out.shape != (len(smiles),):
            raise RuntimeError(f"{self.name} returned {out.shape} scores for {len(smiles)} molecules")
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

    def __init__(self, config: ReinventFilterParams):
        super().__init__(config)
        self.buckets: dict[str, int] = defaultdict(int)
        self.members: set[str] = set()

    @abstractmethod
    def bucket_of(self, smiles: str) -> str:
        """The bucket (scaffold) a molecule belongs to."""

    def state_dict(self) -> dict:
        """Plain data (dict, list) so that checkpoints load with ``weights_only=True``."""
        return {"buckets": dict(self.buckets), "members": sorted(self.members)}

    def load_state_dict(self, state: dict) -> None:
        self.buckets = defaultdict(int, state["buckets"])
        self.members = set(state["members"])

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
    name = "IdenticalMurckoScaffold"
    example_params = {"bucket_size": 2, "minscore": 0.4}

    def bucket_of(self, smiles: str) -> str:
        return murcko_scaffold(smiles) or ""


class IdenticalTopologicalScaffold(ScaffoldBucketFilter):
    name = "IdenticalTopologicalScaffold"
    example_params = {"bucket_size": 2, "minscore": 0.4}

    def bucket_of(self, smiles: str) -> str:
        return murcko_scaffold(smiles, generic=True) or ""


class ScaffoldSimilarity(ScaffoldBucketFilter):
    """Buckets are joined when scaffolds are similar (atom-pair count fingerprints, Tanimoto >= minsimilarity)."""

    name = "ScaffoldSimilarity"
    example_params = {"bucket_size": 2, "minscore": 0.4, "minsimilarity": 0.4}
    transient = ("config", "_gen", "representatives")

    def __init__(self, config: ReinventFilterParams):
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
        return {**super().state_dict(), "representatives": list(self.representatives)}  # fingerprints are rebuilt

    def load_state_dict(self, state: dict) -> None:
        super().load_state_dict(state)
        self.representatives = {k: self._fp(k) for k in state["representatives"]}


class PenalizeSameSmiles(DiversityFilter):
    name = "PenalizeSameSmiles"
    example_params = {"penalty_multiplier": 0.5}

    def __init__(self, config: ReinventFilterParams):
        super().__init__(config)
        self.seen: set[str] = set()

    def state_dict(self) -> dict:
        return {"seen": sorted(self.seen)}

    def load_state_dict(self, state: dict) -> None:
        self.seen = set(state["seen"])

    def _filter(self, smiles: list[str | None], out: np.ndarray, steps: int) -> np.ndarray:
        for i, smi in enumerate(smiles):
            if smi is None:
                continue
            if smi in self.seen:
                out[i] *= self.config.penalty_multiplier
            self.seen.add(smi)
        return out


def filter_params(table: Mapping[str, Any]) -> FilterParams:
    """A ``[diversity_filter]`` table validated by its filter's own model, the filter found by ``type`` in the
    registry (built-in or plugin); an unknown type lists the valid ones. Raises pydantic's ValidationError for
    a bad key or value."""
    kind = table.get("type")
    if not isinstance(kind, str):
        raise ValueError(f"type must name a diversity filter, one of {list_filters()}; got {kind!r}")
    cls = FILTERS.get(kind)
    return cls.Params.model_validate({**table, "type": cls.name})


def build_filter(table: Mapping[str, Any] | None) -> DiversityFilter | None:
    """The filter of a validated ``[diversity_filter]`` table (None: no filter)."""
    if table is None:
        return None
    params = filter_params(table)
    return FILTERS.get(params.type)(params)


def list_filters() -> list[str]:
    return FILTERS.names()
