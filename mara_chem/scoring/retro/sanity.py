"""What a chemist would refuse in a proposed reaction or building block, checked before the search may use it.

Generic templates with wildcards fire where their named reaction cannot happen. Each proposal is checked
against the chemistry its name promises (the reaction centre):

- **amide couplings** need an acyl donor (carboxylic acid, acyl halide, anhydride or ester: a carbonyl
  carbon, so an alcohol is never "the acid", and not a carbonic half-ester or chloroformate) and an N-H
  amine among the reactants;
- **esterifications** (of carboxylic acids, Mitsunobu, Schotten-Baumann, transesterification) need the same
  carboxylic acyl donor: saxitoxin's carbamate was "esterified" from carbamic acid, a Bloom false positive;
- **nitrile reactions** (hydration, Schmidt, Pinner, reductions, ...) need a nitrile, and a cyanate ester (O-C#N)
  is none: saxitoxin's carbamate was "hydrated" from a cyanate ester that a "Schmidt reaction" made;
- **ring closures** only by a template that forms a ring itself: an intermolecular template applied
  within one molecule (a hydrogenation, an esterification or a Mitsunobu reaction "closing" a ring) is
  refused, as is any reduction, oxidation, (de)protection or interconversion that makes a ring;
- **aryl couplings** (Suzuki, Stille, Hiyama, Negishi, Kumada, Heck, Sonogashira, Buchwald-Hartwig,
  Ullmann, Chan-Lam) need an aryl or vinyl C-halide/triflate or C-B/Sn/Si partner on an sp2 carbon, so no
  "Suzuki onto a carbinol".

Building blocks must be ordinary molecules: parsed and sanitised by RDKit, within the stock's element set
(H B C N O F Si P S Cl Br I), every atom at a normal valence (no hypervalent Se, no 5-valent N), no radicals,
isotopes or query features, no charges beyond nitro groups, N-oxides and ammonium salts, and (from 16 heavy
atoms, above commodity reagents such as DCC) no cyanate ester, carbodiimide, acyl azide or dialkyl peroxide.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rdkit import Chem
from rdkit.Chem import rdMolDescriptors

#: elements of ZINC's in-stock building blocks that a route may start from
ELEMENTS = frozenset({"H", "B", "C", "N", "O", "F", "Si", "P", "S", "Cl", "Br", "I"})
#: allowed total valences per element at formal charge 0
VALENCES = {"H": (1,), "B": (3,), "C": (4,), "N": (3,), "O": (2,), "F": (1,), "Si": (4,), "P": (3, 5),
            "S": (2, 4, 6), "Cl": (1,), "Br": (1,), "I": (1,)}
_ALLOWED_CHARGED = ("[N+](=O)[O-]", "[n+][O-]", "[N+][O-]", "[NX4+]", "[nH+]", "[N-]=[N+]", "[N+]=[N-]")

#: groups no catalogue sells on an advanced building block (they rearrange or polymerise on the shelf);
#: commodity reagents carrying them (DCC, EDC: at most 15 heavy atoms) are left alone
_UNSTABLE = (("[#6]O[CX2]#[NX1]", "a cyanate ester"), ("[#6]N=C=N[#6]", "a carbodiimide"),
             ("[#6]C(=O)N=[N+]=[N-]", "an acyl azide"), ("[#6]OO[#6]", "a dialkyl peroxide"))
_UNSTABLE_MIN_ATOMS = 16
#: a carboxylic acyl donor; a carbonyl with a second heteroatom (a carbonic half-ester, a chloroformate, a
#: carbamic acid) is none: physostigmine's carbamate was "coupled" from an aryl hydrogen carbonate
_ACYL_DONOR = "[CX3;!$(C(=O)([!#6;!#1])[!#6;!#1])](=O)[OX2H1,Cl,Br,I,$(O[CX3]=O),$(O[#6])]"
#: ester-forming templates whose acyl partner is a carboxylic acid or its derivative (lower-case names)
_CARBOXYLIC_ESTERIFICATIONS = frozenset({
    "esterification of carboxylic acids", "mitsunobu esterification", "schotten-baumann to ester",
    "transesterification", "intramolecular transesterification/lactone formation",
    "acetic anhydride and alcohol to ester"})
_CYANATE_ESTER = "[#6]O[CX2]#[NX1]"
_AMINE_NH = "[NX3;!H0;!$(N[N,O]);!$(NC=[O,S])]"
_ARYL_COUPLING_WORDS = ("suzuki", "stille", "hiyama", "negishi", "kumada", "heck", "sonogashira", "buchwald",
                        "ullmann", "chan-lam", "chan lam")
_SP2_LEAVING = "[$([c,$([CX3]=[#6])][Cl,Br,I]),$([c,$([CX3]=[#6])]OS(=O)(=O)C(F)(F)F)]"
_SP2_METAL = "[$([c,$([CX3]=[#6])][B,Sn,Si,Zn,Mg])]"
_RING_FORMING_CLASSES = ("Aromatic Heterocycle Formation",)


@lru_cache(maxsize=None)
def _pattern(smarts: str) -> Chem.Mol:
    return Chem.MolFromSmarts(smarts)


def building_block_problem(mol: Chem.Mol | None) -> str | None:
    """Why ``mol`` cannot be a purchasable building block, or None when it can."""
    if mol is None:
        return "not a molecule RDKit can read"
    charged_ok = {i for s in _ALLOWED_CHARGED for m in mol.GetSubstructMatches(_pattern(s)) for i in m}
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
    if mol.GetNumHeavyAtoms() >= _UNSTABLE_MIN_ATOMS:
        for smarts, what in _UNSTABLE:
            if mol.HasSubstructMatch(_pattern(smarts)):
                return f"{what} (not a shelf-stable building block)"
    return None


def _rings(mols: Sequence[Chem.Mol]) -> int:
    return sum(rdMolDescriptors.CalcNumRings(m) for m in mols)


@lru_cache(maxsize=4096)
def template_forms_ring(forward_smirks: str) -> bool:
    """Whether the template's own product pattern has more rings than its reactant patterns."""
    from rdkit.Chem import AllChem

    rxn = AllChem.ReactionFromSmarts(forward_smirks)

    def rings(template: Chem.Mol) -> int:
        t = Chem.Mol(template)
        t.UpdatePropertyCache(strict=False)
        Chem.FastFindRings(t)
        return t.GetRingInfo().NumRings()

    made = sum(rings(rxn.GetProductTemplate(i)) for i in range(rxn.GetNumProductTemplates()))
    used = sum(rings(rxn.GetReactantTemplate(i)) for i in range(rxn.GetNumReactantTemplates()))
    return made > used


def reaction_problem(name: str, reaction_class: str, amide_coupling: bool, forward_smirks: str,
                     product: Chem.Mol, reactants: Sequence[Chem.Mol]) -> str | None:
    """Why this proposal is chemically wrong for its template (the reaction centre does not fit), or None."""
    if amide_coupling:
        if not any(m.HasSubstructMatch(_pattern(_ACYL_DONOR)) for m in reactants):
            return "amide coupling without an acyl donor (acid, acyl halide, anhydride or ester)"
        if not any(m.HasSubstructMatch(_pattern(_AMINE_NH)) for m in reactants) and not any(
                Chem.MolToSmiles(m) == "N" for m in reactants):
            return "amide coupling without an N-H amine"
    if name.lower() in _CARBOXYLIC_ESTERIFICATIONS and not any(
            m.HasSubstructMatch(_pattern(_ACYL_DONOR)) for m in reactants):
        return "esterification without a carboxylic acyl donor (acid, acyl halide, anhydride or ester)"
    if "nitrile" in name.lower() and any(m.HasSubstructMatch(_pattern(_CYANATE_ESTER)) for m in (product, *reactants)):
        return "a nitrile template applied to a cyanate ester (O-C#N is no nitrile)"
    if _rings([product]) > _rings(reactants) and not template_forms_ring(forward_smirks) \
            and reaction_class not in _RING_FORMING_CLASSES:
        return f"{reaction_class.lower()} template closing a ring it does not form"
    lowered = name.lower()
    if any(word in lowered for word in _ARYL_COUPLING_WORDS):
        if not any(m.HasSubstructMatch(_pattern(_SP2_LEAVING)) or m.HasSubstructMatch(_pattern(_SP2_METAL))
                   for m in reactants):
            return "aryl coupling without an aryl/vinyl halide, triflate or organometal partner"
        if any(word in lowered for word in ("suzuki", "stille", "hiyama")):
            has_metal = any(m.HasSubstructMatch(_pattern("[#6][B,Sn,Si]")) for m in reactants)
            if has_metal and not any(m.HasSubstructMatch(_pattern(_SP2_METAL)) for m in reactants):
                return "cross-coupling of an sp3 boron/tin/silicon partner"
    return None
