"""The stock's exact tier: molecules known by their exact SMILES to be sold, which confirm a Bloom filter hit.

molbloom's bundled filter answers "probably in stock" with 7 % false positives per question, and a search
that asks about hundreds of precursors finds one (a cyanate ester, a hypervalent-Se string). The exact tier
is a set of canonical SMILES (current RDKit) from:

- the **Enamine REAL building blocks** that ``synthemol==1.0.4`` ships (139,493 rows, 137,656 distinct
  molecules; ``mara-chem data building-blocks`` writes ``data/enamine_building_blocks.csv``): the
  building blocks Enamine made its REAL Space from in 2022, i.e. molecules Enamine stocked then. They are not
  proof that a molecule is on the shelf today, and they are one supplier's list: a real ZINC in-stock
  molecule that Enamine does not sell is not confirmed;
- **molbloom's own common-reagent list** (345 solvents, reagents and catalysts it answers before the filter);
- the commodity amines ``settings.REAGENTS``;
- the user's ``purchasable_file``.

With ``stock_confirmation = "exact"`` a filter hit counts only if the exact tier holds the molecule in one
of its stock forms (itself, stereo-free, its stereoisomers, its tautomers: ``stock.stock_forms``); with
``"none"`` it counts alone, and the route lists it as Bloom-only.
"""

from __future__ import annotations

import csv
from pathlib import Path

from rdkit import Chem, RDLogger

from mara_chem.scoring.retro.settings import REAGENTS


class ExactStockError(ValueError):
    """A building-block file that is missing or cannot be read as a SMILES CSV."""


def canonical(smiles: str) -> str | None:
    mol = Chem.MolFromSmiles(smiles)
    return None if mol is None else Chem.MolToSmiles(mol)


def common_reagents() -> frozenset[str]:
    """molbloom's common-reagent list (plus the commodity amines), canonicalised by today's RDKit."""
    from molbloom.common import _common

    RDLogger.DisableLog("rdApp.*")
    return frozenset(c for c in (canonical(s) for s in _common | REAGENTS) if c is not None)


def read_building_blocks(path: str | Path) -> frozenset[str]:
    """Canonical SMILES of the ``smiles`` column of a building-block CSV (unparsable rows dropped)."""
    path = Path(path)
    if not path.is_file():
        raise ExactStockError(f"building-block file not found: {path} (write it with `mara-chem data building-blocks`)")
    RDLogger.DisableLog("rdApp.*")
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None or "smiles" not in reader.fieldnames:
            raise ExactStockError(f"{path}: no 'smiles' column in the header {reader.fieldnames}")
        return frozenset(c for c in (canonical(row["smiles"]) for row in reader) if c is not None)


def max_heavy_atoms(smiles: frozenset[str]) -> int:
    """Heavy atoms of the largest molecule in the set: a bigger molecule cannot be in it (no stock forms needed)."""
    return max((Chem.MolFromSmiles(s).GetNumHeavyAtoms() for s in smiles), default=0)
