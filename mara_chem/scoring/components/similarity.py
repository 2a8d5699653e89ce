"""Tanimoto similarity (Morgan fingerprints through RDKit) to a set of reference molecules."""

from __future__ import annotations

from functools import cached_property
from typing import Literal

from pydantic import Field, field_validator
from rdkit import Chem, DataStructs

from mara_chem.chem.fingerprints import morgan_fingerprint, morgan_fingerprint_of_mol
from mara_chem.chem.smiles import to_mol
from mara_chem.scoring.component import ComponentParams, ScoringComponent


class SimilarityParams(ComponentParams):
    smiles: list[str] = Field(min_length=1)
    radius: int = Field(2, ge=0)
    n_bits: int = Field(2048, ge=64)
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


class TanimotoSimilarity(ScoringComponent):
    name = "TanimotoSimilarity"
    aliases = ("TanimotoDistance", "Similarity")
    Params = SimilarityParams
    example_params = {"smiles": ["c1ccccc1O", "CC(=O)Nc1ccccc1"]}

    @cached_property
    def references(self) -> list:
        p = self.params
        return [morgan_fingerprint(s, p.radius, p.n_bits) for s in p.smiles]

    def score_mol(self, mol: Chem.Mol) -> float:
        p = self.params
        fp = morgan_fingerprint_of_mol(mol, p.radius, p.n_bits)
        sims = DataStructs.BulkTanimotoSimilarity(fp, self.references)
        return max(sims) if p.aggregate == "max" else sum(sims) / len(sims)
