"""SMILES handling: canonicalise, validate, randomise, scaffolds, fingerprints."""

from mara_chem.chem.smiles import canonicalize, murcko_scaffold, randomize, to_mol
from mara_chem.chem.fingerprints import morgan_fingerprint, morgan_fingerprints

__all__ = [
    "canonicalize",
    "murcko_scaffold",
    "randomize",
    "to_mol",
    "morgan_fingerprint",
    "morgan_fingerprints",
]
