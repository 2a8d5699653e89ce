"""The stock: a syntheseus inventory that answers from molbloom's ZINC in-stock filter and a user list.

molbloom's bundled filter (``zinc-instock-mini``: 9.2 M ZINC20 in-stock molecules) is a Bloom filter with a
7 % false-positive rate: a random molecule is 'in stock' 7 % of the time. Two guards keep that from solving
anything: the target itself is always expanded (a route needs one reaction), and a filter hit counts only
for building-block-sized molecules (``max_heavy_atoms``). The bigger ``zinc-instock`` filter (0.03 %) is used
when it has been downloaded to molbloom's cache (``catalog = "zinc-instock"``). A user file of purchasable
SMILES (Enamine building blocks, an in-house list) is exact and has no size cap.
"""

from __future__ import annotations

from collections.abc import Iterable

from rdkit import Chem
from syntheseus.interface.molecule import Molecule
from syntheseus.search.mol_inventory import BaseMolInventory

CATALOGS = ("zinc-instock-mini", "zinc-instock", "zinc20", "none")


def canonical_smiles_list(lines: Iterable[str]) -> frozenset[str]:
    """Canonical SMILES of the first column of each non-empty, non-comment line (unparsable lines dropped)."""
    out = set()
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        mol = Chem.MolFromSmiles(line.split()[0])
        if mol is not None:
            out.add(Chem.MolToSmiles(mol))
    return frozenset(out)


class BloomStock(BaseMolInventory):
    """Purchasable = in ``extra_smiles`` (exact), or in the molbloom catalog with at most ``max_heavy_atoms``."""

    def __init__(self, catalog: str = "zinc-instock-mini", extra_smiles: frozenset[str] = frozenset(),
                 max_heavy_atoms: int | None = 30):
        if catalog not in CATALOGS:
            raise ValueError(f"unknown stock catalog {catalog!r}; valid: {list(CATALOGS)}")
        self.catalog = catalog
        self.extra_smiles = extra_smiles
        self.max_heavy_atoms = max_heavy_atoms
        if catalog != "none":
            import molbloom

            molbloom.buy("C", catalog=catalog)  # loads the filter now, so a missing download fails early

    def is_purchasable(self, mol: Molecule) -> bool:
        if mol.smiles in self.extra_smiles:
            return True
        if self.catalog == "none":
            return False
        if self.max_heavy_atoms is not None and mol.rdkit_mol.GetNumHeavyAtoms() > self.max_heavy_atoms:
            return False
        import molbloom

        return bool(molbloom.buy(mol.smiles, catalog=self.catalog, canonicalize=True))
