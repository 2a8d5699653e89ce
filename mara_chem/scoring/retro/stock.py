"""The stock: a syntheseus inventory that answers from molbloom's ZINC in-stock filter and a user list.

molbloom's bundled filter (``zinc-instock-mini``: 9.2 M ZINC20 in-stock molecules) is a Bloom filter of
kekulé canonical SMILES written by an older RDKit, whose kekulé assignment of an aromatic ring often differs
from today's: m-toluic acid or 2,6-dimethylaniline are missed when asked in the current canonical form.
So every kekulé form of the molecule is asked (``kekule_forms``), which finds them. The filter has a 7 %
false-positive rate per question (asking two forms roughly doubles it): a random molecule is often 'in
stock'. Two guards keep that from solving anything: the target itself is always expanded (a route needs one
reaction), and a filter hit counts only for building-block-sized molecules (``max_heavy_atoms``) smaller
than the target (``search._NotTheTarget``), so a one-reactant rewrite of the target never
ends in a false positive. The bigger ``zinc-instock`` filter (0.03 %) is used
when it has been downloaded to molbloom's cache (``catalog = "zinc-instock"``). A user file of purchasable
SMILES (Enamine building blocks, an in-house list) is exact and has no size cap. An acyl chloride or bromide
counts as in stock when its carboxylic acid is (it is made from the acid in the same pot; catalogues list
the acid, and the templates write amide couplings from acid chlorides). Hydroxylamine, methylamine,
dimethylamine and ethylamine count as in stock with any catalog (``REAGENTS``).
"""

from __future__ import annotations

from rdkit import Chem
from rdkit.Chem import AllChem
from syntheseus.interface.molecule import Molecule
from syntheseus.search.mol_inventory import BaseMolInventory

from mara_chem.scoring.retro.settings import CATALOGS, REAGENTS


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
        acid = _acid_of_acyl_halide(mol.rdkit_mol)
        if acid is not None:
            return self.is_purchasable(Molecule(acid))
        if mol.smiles in self.extra_smiles:
            return True
        if self.catalog == "none":
            return False
        if mol.smiles in REAGENTS:
            return True
        if self.max_heavy_atoms is not None and mol.rdkit_mol.GetNumHeavyAtoms() > self.max_heavy_atoms:
            return False
        import molbloom

        if molbloom.buy(mol.smiles, catalog=self.catalog, canonicalize=True):
            return True
        return any(molbloom.buy(form, catalog=self.catalog, canonicalize=False, check_common=False)
                   for form in kekule_forms(mol.rdkit_mol))


_ACYL_HALIDE = Chem.MolFromSmarts("[CX3](=O)[Cl,Br]")
_TO_ACID = AllChem.ReactionFromSmarts("[C:1](=[O:2])[Cl,Br]>>[C:1](=[O:2])O")


def _acid_of_acyl_halide(mol: Chem.Mol) -> str | None:
    """SMILES of the carboxylic acid of an acyl halide (every acyl halide group hydrolysed), else None."""
    if not mol.HasSubstructMatch(_ACYL_HALIDE):
        return None
    product = mol
    while product.HasSubstructMatch(_ACYL_HALIDE):
        product = _TO_ACID.RunReactants((product,))[0][0]
        Chem.SanitizeMol(product)
    return Chem.MolToSmiles(product)


def kekule_forms(mol: Chem.Mol, limit: int = 8) -> list[str]:
    """Canonical kekulé SMILES of each kekulé structure of ``mol`` (at most ``limit``; [] without aromatic rings)."""
    if not any(atom.GetIsAromatic() for atom in mol.GetAtoms()):
        return []
    forms: list[str] = []
    for i, structure in enumerate(Chem.ResonanceMolSupplier(mol, Chem.KEKULE_ALL)):
        if i >= limit:
            break
        if structure is None:
            continue
        kekule = Chem.Mol(structure)
        for atom in kekule.GetAtoms():
            atom.SetIsAromatic(False)
        for bond in kekule.GetBonds():
            bond.SetIsAromatic(False)
        smiles = Chem.MolToSmiles(kekule, kekuleSmiles=True)
        if smiles not in forms:
            forms.append(smiles)
    return forms
