"""Fingerprints through RDKit's generator API (one place to change radius and size)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rdkit.Chem import rdFingerprintGenerator
from rdkit.DataStructs import ExplicitBitVect

from mara_chem.chem.smiles import to_mol


@lru_cache(maxsize=16)
def _generator(radius: int, n_bits: int):
    return rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits)


def morgan_fingerprint(smiles: str, radius: int = 2, n_bits: int = 2048) -> ExplicitBitVect | None:
    mol = to_mol(smiles)
    if mol is None:
        return None
    return _generator(radius, n_bits).GetFingerprint(mol)


def morgan_fingerprints(smiles: Sequence[str], radius: int = 2, n_bits: int = 2048) -> list[ExplicitBitVect | None]:
    return [morgan_fingerprint(s, radius, n_bits) for s in smiles]

