"""Tanimoto similarity (Morgan fingerprints through RDKit) to a set of reference molecules.

REINVENT 4's ``use_counts`` and ``use_features`` are honoured: count fingerprints (Tanimoto on counts)
and feature-class atom invariants (FCFP). ``n_bits = 0`` uses unfolded (sparse) fingerprints, which is
what REINVENT's TanimotoSimilarity computes; the default folds to 2,048 bits.
"""

from __future__ import annotations

from functools import cached_property, lru_cache
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator

from mara_chem.chem.smiles import to_mol
from mara_chem.scoring.component import ComponentParams, ScoringComponent


class SimilarityParams(ComponentParams):
    smiles: list[str] = Field(min_length=1)
    radius: int = Field(2, ge=0)
    n_bits: int = Field(2048, ge=0, description="fingerprint size; 0 = unfolded (REINVENT's fingerprints)")
    use_counts: bool = Field(False, description="count fingerprints (REINVENT key)")
    use_features: bool = Field(False, description="feature-class invariants, FCFP (REINVENT key)")
    aggregate: Literal["max", "mean"] = "max"

    @field_validator("smiles", mode="before")
    @classmethod
    def _listify(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    @field_validator("smiles")
    @classmethod
    def _valid(cls, value: list[str]) -> list[str]:
        bad = [s for s in value if to_mol(s) is None]
        if bad:
            raise ValueError(f"invalid reference SMILES: {bad}")
        return value

    @model_validator(mode="after")
    def _size(self) -> "SimilarityParams":
        if 0 < self.n_bits < 64:
            raise ValueError(f"n_bits must be 0 (unfolded) or at least 64, got {self.n_bits}")
        return self


@lru_cache(maxsize=32)
def _generator(radius: int, n_bits: int, use_features: bool) -> Any:
    invariants = rdFingerprintGenerator.GetMorganFeatureAtomInvGen() if use_features else None
    return rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits or 2048,
                                                     atomInvariantsGenerator=invariants)


def similarity_fingerprint(mol: Chem.Mol, p: SimilarityParams) -> Any:
    """The fingerprint the parameters describe (bit or count, folded or sparse)."""
    gen = _generator(p.radius, p.n_bits, p.use_features)
    if p.use_counts:
        return gen.GetSparseCountFingerprint(mol) if p.n_bits == 0 else gen.GetCountFingerprint(mol)
    return gen.GetSparseFingerprint(mol) if p.n_bits == 0 else gen.GetFingerprint(mol)


class TanimotoSimilarity(ScoringComponent):
    name = "TanimotoSimilarity"
    aliases = ("TanimotoDistance", "Similarity", "MaraTanimotoSimilarity")  # its REINVENT plugin name (reinvent_plugins/)
    Params = SimilarityParams
    example_params = {"smiles": ["c1ccccc1O", "CC(=O)Nc1ccccc1"]}
    params: SimilarityParams
    raw_range = (0.0, 1.0)

    @cached_property
    def references(self) -> list:
        return [similarity_fingerprint(to_mol(s), self.params) for s in self.params.smiles]

    def score_mol(self, mol: Chem.Mol) -> float:
        sims = DataStructs.BulkTanimotoSimilarity(similarity_fingerprint(mol, self.params), self.references)
        return max(sims) if self.params.aggregate == "max" else sum(sims) / len(sims)
