"""What a purchasable building block must be: an ordinary molecule RDKit reads and sanitises, within the stock's
element set (H B C N O F Si P S Cl Br I), every atom at a normal valence (no hypervalent Se, no 5-valent N), no
radicals, isotopes, query atoms or bonds, no charges beyond nitro groups, N-oxides and ammonium salts, an
isolable compound (``isolability``), and (from 16 heavy atoms, above commodity reagents such as DCC) no cyanate
ester, carbodiimide, acyl azide, dialkyl peroxide, nor an amine beside an alkyl halide or sulfonate.
``bloom_only_problem`` asks more of a molecule only the Bloom filter vouches for (``stock.BloomStock``)."""

from __future__ import annotations

from rdkit import Chem

from mara_chem.scoring.retro.checks.chem import CYANATE_ESTER, pattern
from mara_chem.scoring.retro.checks.isolability import isolable_problem

#: elements of ZINC's in-stock building blocks that a route may start from
ELEMENTS = frozenset({"H", "B", "C", "N", "O", "F", "Si", "P", "S", "Cl", "Br", "I"})
#: allowed total valences per element at formal charge 0
VALENCES = {"H": (1,), "B": (3,), "C": (4,), "N": (3,), "O": (2,), "F": (1,), "Si": (4,), "P": (3, 5),
            "S": (2, 4, 6), "Cl": (1,), "Br": (1,), "I": (1,)}
_ALLOWED_CHARGED = ("[N+](=O)[O-]", "[n+][O-]", "[N+][O-]", "[NX4+]", "[nH+]", "[N-]=[N+]", "[N+]=[N-]")
#: groups no catalogue sells on an advanced building block (they rearrange or polymerise on the shelf);
#: commodity reagents carrying them (DCC, EDC: at most 15 heavy atoms) are left alone
_UNSTABLE = ((CYANATE_ESTER, "a cyanate ester"), ("[#6]N=C=N[#6]", "a carbodiimide"),
             ("[#6]C(=O)N=[N+]=[N-]", "an acyl azide"), ("[#6]OO[#6]", "a dialkyl peroxide"))
#: an aliphatic amine and an alkylating group in one molecule: it alkylates itself (metoprolol's
#: 'chloroethyl' precursor with its free isopropylamine)
_SELF_ALKYLATING = ("[NX3;+0;!$(N[a]);!$(N[#6]=[#7,#8,#16]);!$(N[#16,#15]);!$(N[#7,#8]);!$(NC#N)]",
                    "[CX4;!$(C(F)(F))][Cl,Br,I,$(OS(=O)(=O)[#6])]")
_UNSTABLE_MIN_ATOMS = 16
#: groups that catalogues hold only on a few small reagents (ethoxyacetylene, benzoyl cyanide, methyl
#: cyanoformate): an ynamine or ynamide (N-C#C, made in the lab by copper alkynylation and used at once), an
#: ynol ether (O-C#C: it hydrates and oligomerises) and an acyl cyanide (moisture hydrolyses it to the acid and
#: HCN). On an advanced building block a Bloom filter hit (7 % false positives per question, several forms
#: asked) is far likelier a false positive than a catalogue entry: rivastigmine's route ended on an N-ethynyl
#: carbamate no catalogue sells
_RARELY_SOLD = (("[#7;X3]C#C", "an ynamine or ynamide"), ("[#8;X2]C#C", "an ynol ether"),
                ("[CX3](=O)C#N", "an acyl cyanide"))


def building_block_problem(mol: Chem.Mol | None) -> str | None:
    """Why ``mol`` cannot be a purchasable building block, or None when it can."""
    if mol is None:
        return "not a molecule RDKit can read"
    charged_ok = {i for s in _ALLOWED_CHARGED for m in mol.GetSubstructMatches(pattern(s)) for i in m}
    for atom in mol.GetAtoms():
        symbol = atom.GetSymbol()
        if atom.GetAtomicNum() == 0 or atom.HasQuery():
            return "a query or wildcard atom"
        if symbol not in ELEMENTS:
            return f"element {symbol} outside the stock's element set"
        if atom.GetNumRadicalElectrons():
            return f"a radical on {symbol}"
        if atom.GetIsotope():
            return f"an isotope label ({atom.GetIsotope()}{symbol})"
        if atom.GetFormalCharge() and atom.GetIdx() not in charged_ok:
            return f"a charged {symbol} ({atom.GetFormalCharge():+d})"
        if atom.GetFormalCharge() == 0 and atom.GetTotalValence() not in VALENCES[symbol]:
            return f"{symbol} with valence {atom.GetTotalValence()}"
    if any(bond.HasQuery() for bond in mol.GetBonds()):
        return "a query bond"
    problem = isolable_problem(mol)
    if problem:
        return problem
    if mol.GetNumHeavyAtoms() >= _UNSTABLE_MIN_ATOMS:
        for smarts, what in _UNSTABLE:
            if mol.HasSubstructMatch(pattern(smarts)):
                return f"{what} (not a shelf-stable building block)"
        if all(mol.HasSubstructMatch(pattern(smarts)) for smarts in _SELF_ALKYLATING):
            return "an amine and an alkyl halide or sulfonate in one molecule (it alkylates itself)"
    return None


def bloom_only_problem(mol: Chem.Mol) -> str | None:
    """Why a molecule that only the Bloom filter holds (no exact list confirms it) is not accepted as bought:
    from 16 heavy atoms, a group catalogues carry only on small reagents (``_RARELY_SOLD``). The exact tier is
    not asked this: a catalogue that lists the compound is believed."""
    if mol.GetNumHeavyAtoms() < _UNSTABLE_MIN_ATOMS:
        return None
    for smarts, what in _RARELY_SOLD:
        if mol.HasSubstructMatch(pattern(smarts)):
            return f"{what} that only the Bloom filter vouches for (catalogues sell it only as small reagents)"
    return None
