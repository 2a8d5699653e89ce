"""The stock: a syntheseus inventory with two tiers, an exact one and molbloom's ZINC in-stock filter.

**Exact tier** (``exact_stock``): the user's ``purchasable_file``, the Enamine REAL building blocks
(``building_blocks_file``), molbloom's common reagents and the commodity amines ``REAGENTS``. A molecule
held there in one of its stock forms is stock with no size cap (``source`` says ``"exact"``).

**Bloom tier**: molbloom's bundled filter (``zinc-instock-mini``: 9.2 M ZINC20 in-stock molecules) is a Bloom
filter of kekulé canonical SMILES written by an older RDKit, whose kekulé assignment of an aromatic ring often
differs from today's: m-toluic acid or 2,6-dimethylaniline are missed when asked in the current canonical
form. So every kekulé form of the molecule is asked (``kekule_forms``), which finds them. The filter has a
7 % false-positive rate per question (asking several forms multiplies it): a random molecule is often 'in
stock'. With ``confirmation = "exact"`` a filter hit that the exact tier does not confirm is not stock; with
``"none"`` it is (``source`` says ``"bloom"``, and the route lists it as Bloom-only). Guards for the Bloom
tier: the target itself is always expanded (a route needs one reaction), and a filter hit counts only for
building-block-sized molecules (``max_heavy_atoms``) smaller than the target (``search._NotTheTarget``), so a
one-reactant rewrite of the target never ends in a false positive. The bigger ``zinc-instock`` filter
(0.03 %) is used when it has been downloaded to molbloom's cache (``catalog = "zinc-instock"``); ``catalog =
"none"`` leaves the exact lists the user gave only. An acyl chloride or bromide (carbon-bound: not a chloroformate or carbamoyl chloride) counts as in stock when its
carboxylic acid is (it is made from the acid in the same pot; catalogues list the acid, and the templates
write amide couplings from acid chlorides), unless it carries an O-H or amine N-H that it would acylate.

A filter hit must also be a sane building block (``checks.building_block_problem``: element set, valences,
no radicals, charges or query features) and, from 16 heavy atoms, carry no ynamide, ynol ether or acyl cyanide
(``checks.building_blocks.bloom_only_problem``: catalogues sell those only as small reagents, so such a hit is
likelier a false positive). Catalogues list racemates and one tautomer: a molecule is also
asked without its stereo marks, as each stereoisomer when it has up to two unassigned stereocentres, and as
RDKit's canonical tautomer and up to four other tautomers (``stock_forms``), of both tiers. Each extra
question to the filter is another chance of a false positive, which is why the enumeration stays that small.
"""

from __future__ import annotations

from functools import lru_cache

from rdkit import Chem, rdBase
from syntheseus.interface.molecule import Molecule
from syntheseus.search.mol_inventory import BaseMolInventory

from mara_chem.scoring.retro.exact_stock import common_reagents
from mara_chem.scoring.retro.exact_stock import max_heavy_atoms as max_heavy_atoms_of
from mara_chem.scoring.retro.checks import bloom_only_problem, building_block_problem
from mara_chem.scoring.retro.settings import CATALOGS, STOCK_CONFIRMATIONS


class BloomStock(BaseMolInventory):
    """Purchasable = held by the exact tier (``extra_smiles``: the user's file; ``exact_smiles``: building blocks
    and common reagents), or, unless ``confirmation = "exact"``, a sane molbloom hit of at most
    ``max_heavy_atoms``. ``source`` says which."""

    def __init__(self, catalog: str = "zinc-instock-mini", extra_smiles: frozenset[str] = frozenset(),
                 max_heavy_atoms: int | None = 30, exact_smiles: frozenset[str] = frozenset(),
                 confirmation: str = "none"):
        if catalog not in CATALOGS:
            raise ValueError(f"unknown stock catalog {catalog!r}; valid: {list(CATALOGS)}")
        if confirmation not in STOCK_CONFIRMATIONS:
            raise ValueError(f"unknown stock confirmation {confirmation!r}; valid: {list(STOCK_CONFIRMATIONS)}")
        self.catalog = catalog
        self.extra_smiles = extra_smiles
        self.max_heavy_atoms = max_heavy_atoms
        self.confirmation = confirmation
        # molbloom's common reagents come with its catalog; catalog 'none' is the user's lists only
        self.exact_smiles = exact_smiles | (common_reagents() if catalog != "none" else frozenset())
        self._exact_max_atoms = max_heavy_atoms_of(self.exact_smiles)
        if catalog != "none":
            import molbloom

            molbloom.buy("C", catalog=catalog)  # loads the filter now, so a missing download fails early

    def is_purchasable(self, mol: Molecule) -> bool:
        return self.source(mol) is not None

    def source(self, mol: Molecule) -> str | None:
        """``"exact"`` (an exact list holds it in a stock form), ``"bloom"`` (only the filter: a Bloom-only
        building block) or None (not purchasable)."""
        acid = _acid_of_acyl_halide(mol.rdkit_mol)
        if acid is not None:  # the acyl halide itself must be a reagent too (no O-H or amine N-H of its own)
            return None if building_block_problem(mol.rdkit_mol) else self.source(Molecule(acid))
        if mol.smiles in self.extra_smiles:
            return "exact"
        return self._source(mol.smiles)

    @lru_cache(maxsize=200_000)  # noqa: B019  (one stock per worker, alive as long as the worker)
    def _source(self, smiles: str) -> str | None:
        """Cached per worker, as searches of different molecules ask about the same fragments again and again."""
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            return None
        if smiles in self.exact_smiles:
            return "exact"
        if building_block_problem(mol) is not None:  # also keeps query bonds away from the stereo perception
            return None
        n_atoms = mol.GetNumHeavyAtoms()
        forms = None
        if self.exact_smiles and n_atoms <= self._exact_max_atoms:
            forms = stock_forms(mol)
            if any(Chem.MolToSmiles(form) in self.exact_smiles for form in forms):
                return "exact"
        if self.catalog == "none" or self.confirmation == "exact":
            return None
        if self.max_heavy_atoms is not None and n_atoms > self.max_heavy_atoms:
            return None
        if bloom_only_problem(mol) is not None:  # a group catalogues sell only on small reagents
            return None
        forms = forms if forms is not None else stock_forms(mol)
        return "bloom" if any(self._in_filter(form) for form in forms) else None

    def _in_filter(self, mol: Chem.Mol) -> bool:
        import molbloom

        if molbloom.buy(Chem.MolToSmiles(mol), catalog=self.catalog, canonicalize=True, check_common=False):
            return True
        return any(molbloom.buy(form, catalog=self.catalog, canonicalize=False, check_common=False)
                   for form in kekule_forms(mol))


def stock_forms(mol: Chem.Mol, max_unassigned: int = 2, max_tautomers: int = 4) -> list[Chem.Mol]:
    """The forms a catalogue may list a molecule as: itself, without stereo marks, its stereoisomers (when at
    most ``max_unassigned`` stereocentres are unassigned), its canonical tautomer and up to ``max_tautomers``
    others; each once."""
    from rdkit.Chem.EnumerateStereoisomers import EnumerateStereoisomers, StereoEnumerationOptions
    from rdkit.Chem.MolStandardize import rdMolStandardize

    forms = [mol]
    flat = Chem.Mol(mol)
    Chem.RemoveStereochemistry(flat)
    forms.append(flat)
    unassigned = [c for c in Chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=False)
                  if c[1] == "?"]
    if 0 < len(unassigned) <= max_unassigned:
        forms += list(EnumerateStereoisomers(mol, options=StereoEnumerationOptions(onlyUnassigned=True, maxIsomers=4)))
    try:
        blocked = rdBase.BlockLogs()  # "stopped at 4 tautomers" is the limit working, not news  # noqa: F841
        enumerator = rdMolStandardize.TautomerEnumerator()
        enumerator.SetMaxTautomers(max_tautomers)
        forms.append(enumerator.Canonicalize(mol))
        forms += list(enumerator.Enumerate(mol))[:max_tautomers]
    except Exception:  # RDKit gives up on some tautomer systems: then the molecule as written only
        pass
    seen: dict[str, Chem.Mol] = {}
    for form in forms:
        seen.setdefault(Chem.MolToSmiles(form), form)
    return list(seen.values())


#: a carbon-bound acyl halide: a chloroformate's or carbamoyl chloride's "acid" (a carbonic or carbamic acid)
#: is no shelf compound, so those count only as themselves
_ACYL_HALIDE = Chem.MolFromSmarts("[#6][CX3](=O)[Cl,Br]")


def _acid_of_acyl_halide(mol: Chem.Mol) -> str | None:
    """SMILES of the carboxylic acid of an acyl halide (every acyl halide group hydrolysed), else None.

    The halogens are turned into OH in place (no reaction SMARTS: RDKit's reaction runner refuses some
    stereo double bonds that template outputs carry, "Stereo Bond extremes must have less than four neighbors",
    and that killed the search's worker)."""
    matches = mol.GetSubstructMatches(_ACYL_HALIDE)
    if not matches:
        return None
    acid = Chem.RWMol(mol)
    for _alpha, _carbon, _oxygen, halogen in matches:
        atom = acid.GetAtomWithIdx(halogen)
        atom.SetAtomicNum(8)
        atom.SetNoImplicit(False)
        atom.SetNumExplicitHs(0)
    Chem.SanitizeMol(acid)
    return Chem.MolToSmiles(acid)


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
