"""What a chemist would refuse in a proposed reaction or building block, checked before the search may use it.

Generic templates with wildcards fire where their named reaction cannot happen. Each proposal carries
rdchiral's atom maps (``Proposal``), so it is checked at the bond it forms, not for a group somewhere in a
molecule (the reaction centre):

- the **template's own reactant side** is read back: each mapped reactant pattern of the forward SMIRKS must
  match a reactant of its own at the centre (a reversed template keeps only its product side, so
  ``{Schotten-Baumann_amide}``'s ``[C;$(C=O)][OH1]`` was lost and it cut any C-N bond);
- **amide couplings** need an acyl donor carbon (carboxylic acid, acyl halide, anhydride or ester: not a
  carbonic half-ester or chloroformate) and an amine N-H at the new C-N bond, and no N-acylation takes a donor
  that carries a free aliphatic amine (an unprotected amino acid couples with itself);
- **esterifications** need the acyl donor's carbon, or a carboxylic acid's O-H (Mitsunobu), at the new C-O bond;
- **Suzuki, Stille, Hiyama** couplings need an aryl/vinyl organometal (B, Sn, Si) and an aryl/vinyl halide or
  triflate at the two ends of the new bond (no "Suzuki onto a carbinol or a phenol carbon"); Negishi and
  Kumada the organometal and the halide; Heck, Sonogashira, Buchwald-Hartwig, Ullmann an aryl/vinyl halide or
  triflate at the bond; Chan-Lam an aryl boron; Pd couplings no allylic or benzylic leaving group elsewhere;
  N-arylations no competing free aliphatic amine; organometals no acidic O-H or N-H; Suzuki and Chan-Lam
  couplings no boronic acid or ester on a carbon beside a pyridine-type ring N (2-pyridyl) or between that N and
  a second heteroatom of an azole (2-imidazolyl, 2-benzimidazolyl, 2-thiazolyl, 2-oxazolyl): they
  protodeboronate (a MIDA ester or trifluoroborate passes); **Goldberg** templates an aryl or vinyl carbon at
  the new C-N bond, or at an acyl carbon a sound acylation (a carboxylic acyl halide on any N-H, a haloformate
  or carbamoyl halide on an amine N-H only), never an sp3 carbon; **Minisci** C-H alkylations only at a
  heteroarene's one open C2/C4-type site (symmetry-equivalent sites counted once; more give a mixture);
- **Friedel-Crafts acylations** a carboxylic acyl donor, **alkylations** an sp3 carbon losing its leaving
  group, **Michael additions** an alkene with an acceptor group, **aldehyde** templates an aldehyde (not formic
  acid), **aldehyde/ketone** templates no acid-derivative carbonyl, **reductive aminations** an amine and a
  carbonyl or carbinol carbon and no claimed stereocentre at the new bond, **C-H halogenations** an
  electrophilic halogen (not a halide ion), **ortho metalations** no acidic O-H/N-H;
- **nitrile reactions** need a nitrile, and a cyanate ester (O-C#N) is none;
- **ring closures** only by a template that forms a ring itself;
- **Mitsunobu** reactions no other O-H, amine N-H or acidic N-H (sulfonamide, imide, azole) in a partner;
  **O-alkylations** (Williamson, O-methylation) no more acidic X-H beside their O-H (a free acid, a tetrazole,
  an imide, a pyrimidinone N-H; a phenol or sulfonamide beside an aliphatic alcohol) and no electrophile that
  closes a lactone on itself; **ketone-to-acid oxidations** (haloform) no boronic acid or ester on the substrate;
  **Chan-Lam O-arylations** no free carboxylic acid in either partner (``TOLERANCE``, a table per reaction class);
  **alkylations of weak N nucleophiles** (amide, sulfonamide, aryl amine, azole N-H) no more nucleophilic amine
  or more acidic X-H in the same molecule; **SN2 and Mitsunobu** steps no claimed stereocentre at the carbon
  they attack (the template copies the product's configuration), no CF3/CF2 halide as electrophile; **SN2
  alkylations** no tertiary carbon (one beside a carbonyl or nitrile, or carrying two aryls, substitutes and
  passes) and no neopentyl carbon, and no carbamate, urea or amide N-H alkylated by a secondary halide (it
  eliminates);
  **diazonium swaps** an aryl amine, **alcohol-to-alkyl-halide swaps** an sp3 carbon; **Grignard and
  organolithium** reagents no carbonyl or nitrile of their own;
- the reactants supply at least half of the product's atoms (a template with an atom-map number 0 does not);
- protodeboronation, dehalogenation and deselenization are side reactions, not steps a chemist plans;
- every reactant, building block or intermediate, is an isolable compound (``isolable_problem``: no carbamic
  acid, carbonic half-ester or chloroformic acid, no acyl halide with its own O-H or amine N-H, no beta-keto
  acid but the two sold as such (acetonedicarboxylic and oxaloacetic acid), no acylboronic acid, no gem-diol or
  open-chain hemiaminal): a route that makes one and uses it at once is no route.

Building blocks must be ordinary molecules: parsed and sanitised by RDKit, within the stock's element set
(H B C N O F Si P S Cl Br I), every atom at a normal valence (no hypervalent Se, no 5-valent N), no radicals,
isotopes, query atoms or bonds, no charges beyond nitro groups, N-oxides and ammonium salts, no gem-diols,
open-chain hemiaminals or alpha-halo alcohols, no carbamic acids or carbonic half-esters, no acyl halide with an
O-H or amine N-H of its own, no beta-keto acids (they decarboxylate) but the two sold ones, and (from 16 heavy
atoms, above commodity reagents such as DCC) no cyanate ester, carbodiimide, acyl azide, dialkyl peroxide, nor an
amine beside an alkyl halide or sulfonate.
The rules were written against the validation sets in ``benchmarks/retro_validation/``; routes they do not
foresee (regio- and chemoselectivity beyond these cases) still need a chemist's reading.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import product

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
#: an open-chain carbon carrying OH and a halogen or amine N (a hemiaminal, an alpha-halo alcohol)
_GEMINAL_OH_X = "[CX4;!R]([OX2H1])[Cl,Br,I,$([NX3;!R])]"
#: an open-chain carbonyl hydrate (a gem-diol) without the electron-poor neighbour that makes chloral hydrate
#: isolable (ring hydrates beside electron-poor centres, saxitoxin's, are stable)
_GEM_DIOL = "[CX4;!R;!$(C[CX4](Cl)(Cl)Cl);!$(C[CX3]=O);!$(C(C(F)(F)F))]([OX2H1])[OX2H1]"
#: an aliphatic amine and an alkylating group in one molecule: it alkylates itself (metoprolol's
#: 'chloroethyl' precursor with its free isopropylamine)
_SELF_ALKYLATING = ("[NX3;+0;!$(N[a]);!$(N[#6]=[#7,#8,#16]);!$(N[#16,#15]);!$(N[#7,#8]);!$(NC#N)]",
                    "[CX4;!$(C(F)(F))][Cl,Br,I,$(OS(=O)(=O)[#6])]")
_UNSTABLE_MIN_ATOMS = 16
#: what a Grignard or organolithium reagent adds to (pentoxifylline's 'Grignard' of a xanthine carrying its
#: own imide carbonyls)
_CARBONYL_OR_NITRILE = "[$([#6X3]=O),$(C#N)]"  # aromatic c=O too (a xanthine, a pyridone)
#: a carbamic acid or carbonic half-ester: it loses CO2 (carisoprodol's carbamate "alkylated" from carbamic acid,
#: torsemide's sulfonylurea and albendazole's carbamate "coupled" from one), or chloroformic acid, which loses
#: CO2 and HCl (felbamate's chloroformate "etherified" from it)
_CARBAMIC_ACID = "[OX2H1][CX3](=O)[#7,#8,Cl,Br,I]"
#: an acylboron: known only as its trifluoroborate or MIDA ester, never free (meloxicam's acylboronic acid,
#: piroxicam's carbamoyl- and carboxyboronic acids "oxidised" to the acid or the enol)
_ACYL_BORON = "[CX3](=O)[BX3]"
#: an acyl halide and, in the same molecule, an O-H or an amine N-H it acylates (a hydroxy or amino acid chloride
#: is no reagent: bicalutamide's, entacapone's, piroxicam's enol); a sulfonamide N-H is left alone (indapamide's
#: 4-chloro-3-sulfamoylbenzoyl chloride is made and used as such)
_ACYL_HALIDE = "[#6][CX3](=O)[Cl,Br,I]"
_ACYLATED_BY_IT = "[$([OX2H1]),$([NX3;H1,H2;+0;!$(N[#6]=[#7,#8,#16]);!$(N[#16,#15]);!$(N[N,O])])]"
#: a beta-keto acid, as its keto or its enol form: it loses CO2 through a six-membered transition state
#: (piroxicam's and meloxicam's benzothiazine acid from saponifying the ester, teriflunomide's
#: 2-cyano-3-hydroxybutenoic acid); malonic half-esters and aryl or heteroaryl acids (a 4-quinolone's) keep theirs
_BETA_KETO_ACID = ("[OX2H1][CX3](=O)[CX4][CX3;!$(C-[!#6;!#1])]=O", "[OX2H1][CX3](=O)[C;!a]=[C;!a][OX2H1]")
#: beta-keto acids sold and kept as such, so isolable whatever the pattern says: acetonedicarboxylic acid
#: (3-oxoglutaric acid, the Robinson tropinone reagent; made from citric acid and kept cold) and oxaloacetic
#: acid (a keto diacid, stable as a solid). Every other beta-keto acid, a building block or an intermediate the
#: search makes, is still refused; a stereo- or map-free canonical SMILES each
_SOLD_BETA_KETO_ACIDS = frozenset(Chem.MolToSmiles(Chem.MolFromSmiles(s))
                                  for s in ("OC(=O)CC(=O)CC(=O)O", "OC(=O)CC(=O)C(=O)O"))
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
_ALIPHATIC_AMINE_NH = "[NX3;!H0;+0;!$(N[a]);!$(N[N,O,S]);!$(N[#6]=[#7,#8,#16])]"
#: templates that are side reactions, not steps a chemist plans: a route 'made' a commodity (cinnamyl chloride)
#: by protodeboronating its boronic acid
_NO_SYNTHESIS_STEP = frozenset({"deboronation of boronic acids", "deboronation of boronic esters", "deselenization",
                                "dehalogenation", "aromatic dehalogenation"})
#: an X-H that a Mitsunobu reaction takes besides its alcohol and pronucleophile: another O-H, an aliphatic
#: amine N-H, or an N-H as acidic as a phenol (sulfonamide, imide, azole with a second N, lactam of an azine)
_MITSUNOBU_COMPETITOR = ("[$([OX2H1]),$([NX3;!H0;+0;!$(N[a]);!$(N[N,O,S]);!$(N[#6]=[#7,#8,#16])]),"
                         "$([NX3;!H0]S(=O)=O),$([NX3;!H0](C=O)C=O),$([nH]~[#6]=O),$([nH]:n),$([nH]:c:n)]")
#: an allylic or benzylic halide or sulfonate (first atom: the carbon)
_ALLYLIC_LEAVING = "[CX4;$(C-[CX3]=[CX3]),$(C-c)][Cl,Br,I,$(OS(=O)(=O)[#6])]"
#: couplings run on palladium (the Pd(0) step)
_PD_COUPLINGS = ("suzuki", "stille", "hiyama", "negishi", "heck", "sonogashira", "buchwald")
#: an acidic O-H or N-H that a lithium base takes before any ortho C-H
_ACIDIC_H = "[$([OX2H1]),$([NX3;!H0;$(N[a]),$(NC=O),$(NS(=O)=O)]),$([nH])]"
#: what makes an alkene a Michael acceptor: a conjugated carbonyl, nitrile, sulfonyl, nitro or azine
_MICHAEL_EWG = "[$([CX3]=[O,S]),$(C#N),$([SX4](=O)=O),$([N+](=O)[O-]),$(c:n),$(P(=O))]"
_ARYL_COUPLING_WORDS = ("suzuki", "stille", "hiyama", "negishi", "kumada", "heck", "sonogashira", "buchwald",
                        "ullmann", "chan-lam", "chan lam")
#: a carboxylic acid's O-H (not a carbonic or carbamic acid's): the nucleophile of a Mitsunobu esterification
_CARBOXYLIC_OH = "[OX2H1][CX3;!$(C([OX2H1])(=O)[!#6])]=O"
#: alkylations by an alkyl electrophile (name prefixes): the carbon of the new bond must be sp3 and lose a group
_ALKYLATIONS = ("alkylation of amines", "n-alkylation", "s-alkylation", "williamson",
                "friedel-crafts alkylation with halide")
#: the organometal each named cross-coupling transfers
_COUPLING_METALS = {"suzuki": ("B",), "stille": ("Sn",), "hiyama": ("Si",), "negishi": ("Zn",), "kumada": ("Mg",)}
#: couplings whose two partners are both aryl/vinyl carbons (the organometal and the halide or triflate)
_SP2_BOTH = ("suzuki", "stille", "hiyama")
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
    problem = isolable_problem(mol)
    if problem:
        return problem
    if mol.GetNumHeavyAtoms() >= _UNSTABLE_MIN_ATOMS:
        for smarts, what in _UNSTABLE:
            if mol.HasSubstructMatch(_pattern(smarts)):
                return f"{what} (not a shelf-stable building block)"
        if all(mol.HasSubstructMatch(_pattern(smarts)) for smarts in _SELF_ALKYLATING):
            return "an amine and an alkyl halide or sulfonate in one molecule (it alkylates itself)"
    return None


def isolable_problem(mol: Chem.Mol) -> str | None:
    """Why ``mol`` is no isolable compound (it falls apart, loses CO2 or reacts with itself), or None.

    Asked of every reactant of every step (``reaction_problem``), so an intermediate a route makes and uses
    at once is held to it as much as a building block: a route through a carbamic acid is no route."""
    if mol.HasSubstructMatch(_pattern(_GEM_DIOL)):
        return "a gem-diol (a carbonyl's hydrate, not a shelf compound)"
    if mol.HasSubstructMatch(_pattern(_GEMINAL_OH_X)):
        return "an open-chain hemiaminal or alpha-halo alcohol (it falls apart to its carbonyl)"
    if mol.HasSubstructMatch(_pattern(_CARBAMIC_ACID)):
        return "a carbamic acid, carbonic half-ester or chloroformic acid (it loses CO2)"
    if mol.HasSubstructMatch(_pattern(_ACYL_HALIDE)) and mol.HasSubstructMatch(_pattern(_ACYLATED_BY_IT)):
        return "an acyl halide beside an O-H or amine N-H of its own (it acylates itself)"
    if any(mol.HasSubstructMatch(_pattern(smarts)) for smarts in _BETA_KETO_ACID) \
            and _unmapped_smiles(mol) not in _SOLD_BETA_KETO_ACIDS:
        return "a beta-keto acid (it decarboxylates)"
    if mol.HasSubstructMatch(_pattern(_ACYL_BORON)):
        return "an acylboronic acid or ester (not isolable: it is made and kept as a trifluoroborate or MIDA ester)"
    return None


def _without_maps(mol: Chem.Mol) -> Chem.Mol:
    """A copy of ``mol`` without atom maps (a proposal's reactants carry them; the search sees none)."""
    copy = Chem.Mol(mol)
    for atom in copy.GetAtoms():
        atom.SetAtomMapNum(0)
    return copy


def _unmapped_smiles(mol: Chem.Mol) -> str:
    """Canonical SMILES without atom maps."""
    return Chem.MolToSmiles(_without_maps(mol))


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



@dataclass(frozen=True)
class Proposal:
    """One backward application with atom maps: each product atom carries a map number, and a reactant atom
    the number of the product atom it becomes; reactant atoms with a number the product lacks (or none) are
    the leaving groups. rdchiral writes proposals this way (``rdchiralRun(..., return_mapped=True)``)."""

    product: Chem.Mol
    reactants: tuple[Chem.Mol, ...]

    @classmethod
    def from_smiles(cls, product: str, reactants: str) -> "Proposal":
        """From mapped SMILES (``[CH3:1][NH:2]...``); an unmapped product is numbered index + 1."""
        mol = Chem.MolFromSmiles(product)
        if mol is None:
            raise ValueError(f"not a SMILES: {product}")
        mapped = [a.GetAtomMapNum() for a in mol.GetAtoms()]
        if not any(mapped):
            for atom in mol.GetAtoms():
                atom.SetAtomMapNum(atom.GetIdx() + 1)
        elif not all(mapped) or len(set(mapped)) != len(mapped):
            raise ValueError(f"every product atom needs its own map number: {product}")
        parts = [Chem.MolFromSmiles(piece) for piece in reactants.split(".")]
        if any(p is None for p in parts):
            raise ValueError(f"not a SMILES: {reactants}")
        return cls(mol, tuple(parts))

    @cached_property
    def _where(self) -> dict[int, tuple[int, int]]:
        """Product map number -> (reactant, atom index) of the reactant atom it comes from."""
        made = {a.GetAtomMapNum() for a in self.product.GetAtoms()}
        return {a.GetAtomMapNum(): (i, a.GetIdx()) for i, m in enumerate(self.reactants) for a in m.GetAtoms()
                if a.GetAtomMapNum() in made}

    def in_product(self, reactant: int, atom: Chem.Atom) -> bool:
        return self._where.get(atom.GetAtomMapNum()) == (reactant, atom.GetIdx())

    @cached_property
    def formed_bonds(self) -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
        """The product's bonds that no reactant has: pairs of (reactant, atom index) ends."""
        formed = []
        for bond in self.product.GetBonds():
            a = self._where.get(bond.GetBeginAtom().GetAtomMapNum())
            b = self._where.get(bond.GetEndAtom().GetAtomMapNum())
            if a is None or b is None:
                continue  # an atom the reactants do not supply (a reagent the template leaves out)
            if a[0] != b[0] or self.reactants[a[0]].GetBondBetweenAtoms(a[1], b[1]) is None:
                formed.append((a, b))
        return tuple(formed)

    @cached_property
    def centre(self) -> frozenset[tuple[int, int]]:
        """Reactant atoms whose bonds change: ends of the formed bonds, atoms that lose a leaving group or
        change a bond order."""
        atoms = {end for bond in self.formed_bonds for end in bond}
        for i, mol in enumerate(self.reactants):
            for bond in mol.GetBonds():
                ends = [bond.GetBeginAtom(), bond.GetEndAtom()]
                kept = [self.in_product(i, a) for a in ends]
                if kept[0] != kept[1]:
                    atoms.update((i, a.GetIdx()) for a, k in zip(ends, kept) if k)
                elif all(kept):
                    p = self.product.GetBondBetweenAtoms(*(self._product_index(a) for a in ends))
                    if p is None or p.GetBondType() != bond.GetBondType():
                        atoms.update((i, a.GetIdx()) for a in ends)
        return frozenset(atoms)

    @cached_property
    def _product_atoms(self) -> dict[int, int]:
        return {a.GetAtomMapNum(): a.GetIdx() for a in self.product.GetAtoms()}

    def _product_index(self, atom: Chem.Atom) -> int:
        return self._product_atoms[atom.GetAtomMapNum()]

    def atom(self, end: tuple[int, int]) -> Chem.Atom:
        return self.reactants[end[0]].GetAtomWithIdx(end[1])

    def leaving(self, end: tuple[int, int]) -> list[Chem.Atom]:
        """The neighbours of a reactant atom that do not reach the product (its leaving groups)."""
        return [nb for nb in self.atom(end).GetNeighbors() if not self.in_product(end[0], nb)]


def _matches_at(mol: Chem.Mol, smarts: str, atom: int, position: int = 0) -> bool:
    """Whether ``smarts`` matches ``mol`` with its atom ``position`` on ``atom``."""
    return any(match[position] == atom for match in mol.GetSubstructMatches(_pattern(smarts), maxMatches=10_000))


@lru_cache(maxsize=4096)
def _mapped_reactant_templates(forward_smirks: str) -> tuple[Chem.Mol, ...]:
    """The forward template's reactant patterns that carry mapped atoms (reagents without any are left out)."""
    from rdkit.Chem import AllChem

    rxn = AllChem.ReactionFromSmarts(forward_smirks)
    out = []
    for i in range(rxn.GetNumReactantTemplates()):
        template = Chem.Mol(rxn.GetReactantTemplate(i))
        if any(a.GetAtomMapNum() for a in template.GetAtoms()):
            template.UpdatePropertyCache(strict=False)
            Chem.FastFindRings(template)
            out.append(template)
    return tuple(out)


def reactant_side_problem(forward_smirks: str, proposal: Proposal) -> str | None:
    """The forward template's reactant side, read back onto the proposal: each of its mapped patterns must
    match a reactant of its own at the reaction centre. A backward template carries only its product side,
    so what the reactant side demands (``[C;$(C=O)][OH1]`` of an amide coupling, the aldehyde of a Petasis
    reaction) is checked here."""
    templates = _mapped_reactant_templates(forward_smirks)
    fits: list[set[int]] = []
    for template in templates:
        fit = set()
        for i, mol in enumerate(proposal.reactants):
            if any((i, a) in proposal.centre for match in mol.GetSubstructMatches(template, maxMatches=10_000)
                   for a in match):
                fit.add(i)
        if not fit:
            return "a reactant does not meet the template's reactant side at the reaction centre"
        fits.append(fit)
    if len(proposal.reactants) >= len(templates) and not _distinct(fits):
        return "a reactant does not meet the template's reactant side at the reaction centre"
    return None


def _distinct(fits: list[set[int]]) -> bool:
    """Whether each pattern can take a reactant of its own (at most three patterns: brute force)."""
    return any(len(set(choice)) == len(choice) for choice in product(*fits))


def _sp2_carbon(atom: Chem.Atom) -> bool:
    """An aryl or vinyl carbon."""
    return atom.GetSymbol() == "C" and (atom.GetIsAromatic() or any(
        b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(atom).GetSymbol() == "C" for b in atom.GetBonds()))


def _halide_or_sulfonate(proposal: Proposal, end: tuple[int, int]) -> bool:
    """The atom leaves with a halide (Cl, Br, I) or a triflate/sulfonate."""
    for nb in proposal.leaving(end):
        if nb.GetSymbol() in ("Cl", "Br", "I"):
            return True
        if nb.GetSymbol() == "O" and any(x.GetSymbol() == "S" and x.GetIdx() != end[1] for x in nb.GetNeighbors()):
            return True
    return False


def _metal(proposal: Proposal, end: tuple[int, int], metals: tuple[str, ...]) -> bool:
    return any(nb.GetSymbol() in metals for nb in proposal.leaving(end))


def _coupling_problem(lowered: str, proposal: Proposal) -> str | None:
    """An aryl coupling at the bond it forms: the named partners on aryl/vinyl carbons at its two ends."""
    word = next((w for w in _COUPLING_METALS if w in lowered), None)
    named = _COUPLING_METALS[word] if word else None
    both = word in _SP2_BOTH
    for a, b in proposal.formed_bonds:
        for x, y in ((a, b), (b, a)):
            ax, ay = proposal.atom(x), proposal.atom(y)
            if named is not None and both:
                if (_sp2_carbon(ax) and _metal(proposal, x, named) and _sp2_carbon(ay)
                        and _halide_or_sulfonate(proposal, y)):
                    return None
            elif named is not None:  # Negishi, Kumada: an organometal and a halide at the two ends
                if _metal(proposal, x, named) and _halide_or_sulfonate(proposal, y):
                    return None
            elif "chan" in lowered:  # Chan-Lam: aryl boron + N-H/O-H
                if _sp2_carbon(ax) and _metal(proposal, x, ("B",)) and ay.GetTotalNumHs() > 0:
                    return None
            elif _sp2_carbon(ax) and _halide_or_sulfonate(proposal, x):  # Heck, Sonogashira, Buchwald, Ullmann
                return None
    if named is not None and both:
        return (f"{word} coupling without an aryl/vinyl {'/'.join(named)} partner and an aryl/vinyl "
                "halide or triflate at the bond it forms")
    return "aryl coupling without an aryl/vinyl halide, triflate or organometal partner at the bond it forms"


def _amide_problem(proposal: Proposal) -> str | None:
    """An amide coupling at its new C-N bond: an acyl donor carbon and an amine N-H nitrogen, the donor
    without a free aliphatic amine of its own (an unprotected amino acid couples with itself)."""
    donor_seen = False
    for a, b in proposal.formed_bonds:
        for c, n in ((a, b), (b, a)):
            if proposal.atom(c).GetSymbol() != "C" or proposal.atom(n).GetSymbol() != "N":
                continue
            if not _matches_at(proposal.reactants[c[0]], _ACYL_DONOR, c[1]):
                continue
            donor_seen = True
            if _matches_at(proposal.reactants[n[0]], _AMINE_NH, n[1]):
                return None
    if not donor_seen:
        return "amide coupling without an acyl donor (acid, acyl halide, anhydride or ester) at the new C-N bond"
    return "amide coupling without an N-H amine at the new C-N bond"


def _ester_problem(proposal: Proposal) -> str | None:
    """An esterification at its new C-O bond: the acyl donor's carbon meets an alcohol O-H, or a carboxylic
    acid's O-H meets the alcohol's carbon (Mitsunobu)."""
    for a, b in proposal.formed_bonds:
        for c, o in ((a, b), (b, a)):
            if proposal.atom(c).GetSymbol() != "C" or proposal.atom(o).GetSymbol() != "O":
                continue
            if _matches_at(proposal.reactants[c[0]], _ACYL_DONOR, c[1]) and proposal.atom(o).GetTotalNumHs() > 0:
                return None
            if _matches_at(proposal.reactants[o[0]], _CARBOXYLIC_OH, o[1]):
                return None
    return "esterification without a carboxylic acyl donor (acid, acyl halide, anhydride or ester) at the new C-O bond"


def _acylation_problem(proposal: Proposal) -> str | None:
    """A Friedel-Crafts acylation at its new C-C bond: a carboxylic acyl donor's carbon (no carbamic acid)."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            if _matches_at(proposal.reactants[c[0]], _ACYL_DONOR, c[1]):
                return None
    return "friedel-crafts acylation without a carboxylic acyl donor at the new C-C bond"


def _alkylation_problem(proposal: Proposal) -> str | None:
    """An alkylation at its new bond: an sp3 carbon that loses its leaving group (an acyl carbon is acylated)."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            if atom.GetSymbol() == "C" and atom.GetHybridization() == Chem.HybridizationType.SP3 \
                    and proposal.leaving(c):
                return None
    return "alkylation without an sp3 carbon that loses a leaving group at the new bond"


def _acyl_donor_amine_problem(proposal: Proposal) -> str | None:
    """Any N-acylation (whatever the template calls itself): the acyl donor must not carry a free aliphatic
    amine of its own, or it couples with itself (an unprotected amino acid: tocainide from alanine)."""
    for a, b in proposal.formed_bonds:
        for c, n in ((a, b), (b, a)):
            if c[0] == n[0] or proposal.atom(c).GetSymbol() != "C" or proposal.atom(n).GetSymbol() != "N":
                continue
            donor = proposal.reactants[c[0]]
            if _matches_at(donor, _ACYL_DONOR, c[1]) and donor.HasSubstructMatch(_pattern(_ALIPHATIC_AMINE_NH)):
                return "amide coupling of an acyl donor that carries a free aliphatic amine (protect it first)"
    return None


def _mitsunobu_problem(proposal: Proposal) -> str | None:
    """A Mitsunobu reaction takes the most acidic X-H and any other alcohol: the reacting alcohol and
    pronucleophile must be the partners' only O-H, amine N-H and acidic N-H (naproxen's phenol beside its
    acid is esterified, paroxetine's piperidine N-H and carvedilol's amino alcohol react instead)."""
    reacting = set(proposal.centre)
    for end in proposal.centre:
        reacting.update((end[0], nb.GetIdx()) for nb in proposal.leaving(end))
    competitor = _pattern(_MITSUNOBU_COMPETITOR)
    for i, mol in enumerate(proposal.reactants):
        for (atom,) in mol.GetSubstructMatches(competitor):
            if (i, atom) not in reacting:
                return ("a Mitsunobu reaction beside another O-H, amine N-H or acidic N-H in a partner "
                        "(that one reacts too: protect it)")
    return None


#: a nitrogen that an alkylation reaches only with a strong base or not at all: amide, carbamate, urea,
#: sulfonamide, aryl amine, azole N-H
_WEAK_N_NUCLEOPHILE = "[$([NX3](C=[O,S,N])),$([NX3]S(=O)=O),$([NX3][a]),$([nH])]"
#: what reacts before such a nitrogen: any aliphatic amine (a tertiary one is quaternised), an O-H, a more
#: acidic N-H (sulfonamide, imide, azole with a second N)
_ALKYLATED_FIRST = ("[$([NX3;+0;!$(N[a]);!$(N[#6]=[#7,#8,#16]);!$(N[#16,#15]);!$(N[N,O]);!$(NC#N)]),$([OX2H1]),"
                    "$([NX3;!H0]S(=O)=O),$([NX3;!H0](C=O)C=O),$([nH]:n),$([nH]:c:n)]")


def _weak_n_alkylation_problem(proposal: Proposal) -> str | None:
    """An alkylation or methylation at an amide, sulfonamide, aryl amine or azole N-H: its molecule must not
    carry a more nucleophilic amine or a more acidic X-H elsewhere, which takes the electrophile first
    (rivastigmine's dimethylamine is quaternised, probenecid's acid is esterified, tofacitinib's pyrrole N-H
    and losartan's tetrazole are alkylated)."""
    weak, first = _pattern(_WEAK_N_NUCLEOPHILE), _pattern(_ALKYLATED_FIRST)
    for a, b in proposal.formed_bonds:
        for n in (a, b):
            atom = proposal.atom(n)
            if atom.GetSymbol() != "N" or not atom.GetTotalNumHs():
                continue
            mol = proposal.reactants[n[0]]
            if not _matches_at(mol, _WEAK_N_NUCLEOPHILE, n[1]):
                continue
            if any(match[0] != n[1] for match in mol.GetSubstructMatches(first)):
                return ("an alkylation at an amide, sulfonamide, aryl amine or azole N-H beside a more "
                        "nucleophilic amine or more acidic X-H in its molecule (that one reacts first)")
    return None


#: SN2 alkylations (lowered name prefixes): a nucleophile displaces a halide or sulfonate from an sp3 carbon
#: by backside attack. A Friedel-Crafts alkylation goes through a cation, and a template named SN1 is none.
_SN2_ALKYLATIONS = ("alkylation of amines", "n-alkylation", "s-alkylation", "williamson", "thioether nucl sub")
#: a carbamate, urea or amide N-H (an imide's or a sulfonyl amide's is more acidic, and its anion softer)
_ACYL_NH = "[NX3;!H0;!$(N(C=O)[CX3]=O);!$(NS(=O)=O)][CX3](=[OX1])[#6,#7,#8]"


def _sn2_ends(proposal: Proposal) -> Iterator[tuple[tuple[int, int], tuple[int, int]]]:
    """Each new bond between two reactants from a nucleophile to an sp3 carbon that loses a halide or sulfonate
    there: (nucleophile end, carbon end). A ring the step closes on one molecule is left out."""
    for a, b in proposal.formed_bonds:
        for n, c in ((a, b), (b, a)):
            if n[0] != c[0] and _sp3(proposal.atom(c)) and _halide_or_sulfonate(proposal, c):
                yield n, c


def _kept_carbons(proposal: Proposal, end: tuple[int, int]) -> list[Chem.Atom]:
    """The carbon neighbours of a reactant atom that stay with it in the product."""
    return [nb for nb in proposal.atom(end).GetNeighbors() if nb.GetSymbol() == "C" and proposal.in_product(end[0], nb)]


def _hindered_sn2_problem(proposal: Proposal) -> str | None:
    """An SN2 step at a carbon a nucleophile cannot reach from the back: a tertiary carbon (tert-butyl chloride
    "etherifying" a carbamic acid for sulfamethoxazole, thalidomide, lenalidomide), or a CH2 beside a quaternary
    carbon (neopentyl). Left alone: a tertiary carbon beside a carbonyl or nitrile (phenoxides displace
    2-bromoisobutyrates: the fibrates' ethers are made so), and one carrying two or three aryl groups, which
    ionises to its stabilised cation and substitutes by SN1 (trityl chloride N-tritylates imidazole for
    clotrimazole and protects alcohols)."""
    for _, c in _sn2_ends(proposal):
        carbons = _kept_carbons(proposal, c)
        if len(carbons) >= 3:
            activated = any(_carbonyl(nb) or any(b.GetBondType() == Chem.BondType.TRIPLE for b in nb.GetBonds())
                            for nb in carbons)
            if activated or sum(nb.GetIsAromatic() for nb in carbons) >= 2:
                continue
            return ("an SN2 alkylation at a tertiary carbon (no backside attack: the base eliminates to the alkene; "
                    "a tertiary ether or amine is made through the cation)")
        if len(carbons) == 1 and _sp3(carbons[0]) \
                and sum(nb.GetSymbol() == "C" for nb in carbons[0].GetNeighbors()) == 4:
            return ("an SN2 alkylation at a neopentyl carbon (the quaternary carbon beside it blocks backside attack: "
                    "some 10^5 times slower than at an ethyl carbon)")
    return None


def _acyl_n_secondary_problem(proposal: Proposal) -> str | None:
    """An N-alkylation of a carbamate, urea or amide N-H by a secondary alkyl halide or sulfonate: that N-H
    (pKa 17-25) needs a strong base, and a secondary electrophile then eliminates (carisoprodol's carbamate
    "isopropylated" with 2-chloropropane; glibenclamide's urea with a cyclohexyl mesylate). A primary
    electrophile, and an amine nitrogen, are left to the other rules."""
    for n, c in _sn2_ends(proposal):
        if proposal.atom(n).GetSymbol() == "N" and len(_kept_carbons(proposal, c)) == 2 \
                and _matches_at(proposal.reactants[n[0]], _ACYL_NH, n[1]):
            return ("an N-alkylation of a carbamate, urea or amide N-H by a secondary alkyl halide or sulfonate "
                    "(a weak nucleophile under a strong base: the electrophile eliminates)")
    return None


def _azine_open_sites(mol: Chem.Mol) -> set[int]:
    """Aromatic C-H carbons alpha or gamma to a pyridine-type N of a six-membered aromatic ring: the sites a
    nucleophilic radical attacks on the protonated azine (Minisci)."""
    sites = set()
    for ring in mol.GetRingInfo().AtomRings():
        if len(ring) != 6 or not all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in ring):
            continue
        for k, idx in enumerate(ring):
            if not _pyridine_type_n(mol.GetAtomWithIdx(idx), ring):
                continue
            for offset in (1, 3, 5):
                carbon = mol.GetAtomWithIdx(ring[(k + offset) % 6])
                if carbon.GetSymbol() == "C" and carbon.GetTotalNumHs():
                    sites.add(carbon.GetIdx())
    return sites


def _minisci_problem(proposal: Proposal) -> str | None:
    """A Minisci C-H alkylation at its new bond: the heteroarene's C-H there must be its only open C2/C4-type
    site (alpha or gamma to a ring N), counting symmetry-equivalent sites once; with two or more the radical
    takes each and the product is a mixture (pioglitazone's 3-ethylpyridine, C2/C4/C6; nevirapine's two
    pyridines). A site fixed by a leaving group (a halide substitution) is not read."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            if atom.GetSymbol() != "C" or not atom.GetIsAromatic() or proposal.leaving(c):
                continue
            mol = _without_maps(proposal.reactants[c[0]])
            sites = _azine_open_sites(mol)
            if c[1] not in sites:
                continue
            ranks = Chem.CanonicalRankAtoms(mol, breakTies=False)
            if len({ranks[i] for i in sites}) > 1:
                return ("a Minisci alkylation of a heteroarene with more than one open C2/C4 site (alpha or gamma "
                        "to a ring N: the radical attacks each, a mixture of regioisomers)")
    return None


def _slow_release_boron(boron: Chem.Atom) -> bool:
    """A MIDA boronate (boron bound to the ligand's N) or a trifluoroborate: the boronic acid is set free slowly."""
    return any(nb.GetSymbol() == "N" for nb in boron.GetNeighbors()) or \
        sum(nb.GetSymbol() == "F" for nb in boron.GetNeighbors()) >= 3


def _pyridine_type_n(atom: Chem.Atom, ring: Sequence[int]) -> bool:
    """A ring nitrogen with a lone pair in the ring plane (-N=, no H, two ring bonds): a pyridine's, an azole's N3."""
    return atom.GetIdx() in ring and atom.GetSymbol() == "N" and not atom.GetTotalNumHs() and atom.GetDegree() == 2


def _protodeboronating_site(mol: Chem.Mol, atom: Chem.Atom) -> str | None:
    """Which fast-protodeboronating position a boron-bearing aromatic carbon is, or None: beside a pyridine-type
    N of a six-membered ring (``2-pyridyl``), or between a pyridine-type N and a second ring heteroatom of a
    five-membered ring (``2-azolyl``: imidazol-, benzimidazol-, thiazol-, oxazol-2-yl)."""
    for ring in mol.GetRingInfo().AtomRings():
        if atom.GetIdx() not in ring or not all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in ring):
            continue
        ring_neighbours = [nb for nb in atom.GetNeighbors() if nb.GetIdx() in ring]
        beside_n = any(_pyridine_type_n(nb, ring) for nb in ring_neighbours)
        if len(ring) == 6 and beside_n:
            return "2-pyridyl"
        if len(ring) == 5 and beside_n and sum(nb.GetSymbol() in ("N", "O", "S") for nb in ring_neighbours) == 2:
            return "2-azolyl"
    return None


def _azinyl_boron_problem(proposal: Proposal) -> str | None:
    """A Suzuki or Chan-Lam coupling whose boron, at the bond formed, sits on a ring carbon beside a pyridine-
    type N of a six-membered aromatic ring (2-pyridyl, 2-pyrimidinyl, lamotrigine's triazinyl) or between the
    pyridine-type N and a second heteroatom of a five-membered one (2-imidazolyl, albendazole's
    2-benzimidazolyl, 2-thiazolyl, 2-oxazolyl): those boronic acids and esters protodeboronate faster than they
    transmetalate (the ring N, protonated or bound to the metal, makes the C-B bond ylide-like). MIDA boronates
    and trifluoroborates (slow release) are accepted; the 4- and 5-positions of azoles are not read."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            borons = [nb for nb in proposal.leaving(c) if nb.GetSymbol() == "B"]
            if not borons or not atom.GetIsAromatic() or any(_slow_release_boron(x) for x in borons):
                continue
            site = _protodeboronating_site(proposal.reactants[c[0]], atom)
            if site == "2-pyridyl":
                return ("a coupling of a 2-pyridyl-type boronic acid or ester (boron beside a ring N: it "
                        "protodeboronates before it couples; use its MIDA ester or trifluoroborate)")
            if site == "2-azolyl":
                return ("a coupling of a 2-azolyl boronic acid or ester (boron between the ring N and a second "
                        "heteroatom of an imidazole, thiazole or oxazole: it protodeboronates before it couples; "
                        "use its MIDA ester or trifluoroborate)")
    return None


#: a haloformate or carbamoyl halide: a carbonic acid's halide (first atom: the carbonyl carbon)
_CARBONIC_HALIDE = "[CX3](=O)([OX2,NX3])[Cl,Br,I]"


def _goldberg_centre_problem(proposal: Proposal) -> str | None:
    """A Goldberg template at its new C-N bond, read on the halide partner's carbon. The generic template writes
    any carbon (``[#6]-[Cl,Br,I]``), so it also fires at an acyl carbon, where the step is an acylation under a
    coupling's name, and at an sp3 carbon. An aryl or vinyl carbon is the copper coupling itself. At an acyl
    carbon the acylation must be a sound one: a carboxylic acyl halide acylates an amine, an amide or a carbamate
    N-H (an Evans oxazolidinone, indapamide's Boc hydrazide), a haloformate or carbamoyl halide only an amine.
    A haloformate is a weaker acylating agent (its alkoxy group donates into the carbonyl), and an amide or
    carbamate N-H takes it only as the preformed N-anion; rivastigmine's N-methylacetamide and carisoprodol's
    Boc-isopropylamine "coupled" with a bromoformate are refused (carisoprodol's carries a chloroformate too).
    An sp3 carbon is an N-alkylation the template does not check."""
    for a, b in proposal.formed_bonds:
        for c, n in ((a, b), (b, a)):
            carbon = proposal.atom(c)
            if carbon.GetSymbol() != "C" or proposal.atom(n).GetSymbol() != "N" \
                    or not _halide_or_sulfonate(proposal, c):
                continue
            if _carbonyl(carbon):
                donor = proposal.reactants[c[0]]
                if _matches_at(donor, _ACYL_DONOR, c[1]):
                    return None
                amine = _matches_at(proposal.reactants[n[0]], _AMINE_NH, n[1])
                if amine and _matches_at(donor, _CARBONIC_HALIDE, c[1]):
                    return None
                return ("a Goldberg coupling at an acyl carbon that is no sound acylation: a haloformate or "
                        "carbamoyl halide at an amide or carbamate N-H (a weak acylating agent on a weak "
                        "nucleophile; only the preformed N-anion takes it)")
            if _sp2_carbon(carbon):
                return None
            return "a Goldberg coupling at an sp3 carbon (an N-alkylation under a coupling's name, not a Cu coupling)"
    return None


@dataclass(frozen=True)
class Site:
    """Where a tolerance table reads one step: ``substrate`` is the reacting atom whose molecule must tolerate
    the conditions (a nucleophile's O-H, the carbonyl carbon a ketone oxidation cleaves), ``partner`` the atom
    it bonds to (None for a one-reactant step), ``kind`` what the substrate atom is (see ``Intolerance``)."""

    substrate: tuple[int, int]
    partner: tuple[int, int] | None
    kind: str


#: where an ``Intolerance`` looks: the substrate's molecule, the partner's molecule, either of the two (other
#: than the reacting atoms themselves), or the partner atom itself (a group it carries at that atom)
WHERES = ("substrate", "partner", "either", "partner atom")


@dataclass(frozen=True)
class Intolerance:
    """A group a reaction class does not tolerate: ``smarts`` (its first atom is the group's reacting atom, or
    with ``where="partner atom"`` the atom the substrate bonds to), why in a few words, the substrate kinds it
    outcompetes or is destroyed beside (``alcohol``: an O-H on an sp3 carbon, ``phenol``: on an aryl or vinyl
    carbon or a heteroatom, ``acid``: on a carbonyl or sulfonyl, ``amine``: an N-H, ``ketone``: a carbonyl
    carbon that loses a carbon), and where it is looked for (``WHERES``)."""

    smarts: str
    reason: str
    against: frozenset[str]
    where: str = "substrate"

    def __post_init__(self) -> None:
        if self.where not in WHERES:
            raise ValueError(f"where must be one of {WHERES}: {self.where}")


@dataclass(frozen=True)
class Tolerance:
    """One reaction class's table: ``what`` the class is called in a refusal, ``roles`` the words for its
    substrate and partner, ``sites`` where a step of the class reacts, ``groups`` what it does not tolerate."""

    what: str
    roles: tuple[str, str]
    sites: Callable[[Proposal], Iterator[Site]]
    groups: tuple[Intolerance, ...]


_ANY_O_NUCLEOPHILE = frozenset({"alcohol", "phenol", "acid"})
_ALCOHOL_OR_PHENOL = frozenset({"alcohol", "phenol"})

#: what a base-mediated O-alkylation (Williamson ether synthesis, O-methylation with MeI or dimethyl sulfate)
#: does not tolerate: an X-H more acidic than the intended O-H is deprotonated first and takes the
#: electrophile (naproxen's, indomethacin's and febuxostat's acid is esterified, pioglitazone's
#: thiazolidinedione and sildenafil's pyrimidinone N-H are alkylated), and an electrophile with its own free
#: acid four or five bonds away closes a lactone (gemfibrozil's 5-chloro acid). The twin of the Mitsunobu rule,
#: ordered by acidity; a group less acidic than the nucleophile (an alcohol beside a phenol) is tolerated.
O_ALKYLATION_TOLERANCE: tuple[Intolerance, ...] = (
    Intolerance(_CARBOXYLIC_OH, "a free carboxylic acid (pKa 4-5: its carboxylate is alkylated to the ester)",
                _ALCOHOL_OR_PHENOL),
    Intolerance("[$([nH]1nnnc1),$([nH]1nncn1)]", "a tetrazole N-H (pKa 5: alkylated first)", _ALCOHOL_OR_PHENOL),
    Intolerance("[#7X3;H1]([#6]=[O,S])[#6]=O",
                "an imide N-H (thiazolidinedione, hydantoin, glutarimide; pKa 6-10: alkylated first)",
                _ALCOHOL_OR_PHENOL),
    Intolerance("[nH][#6]=O", "a pyrimidinone or pyridone N-H (pKa 8-11: N-alkylated as readily as a phenol)",
                _ALCOHOL_OR_PHENOL),
    Intolerance("[OX2H1]c", "a phenol (pKa 10: deprotonated before an aliphatic alcohol, pKa 16)",
                frozenset({"alcohol"})),
    Intolerance("[#7X3;!H0]S(=O)=O", "a sulfonamide N-H (pKa 10: deprotonated before an aliphatic alcohol)",
                frozenset({"alcohol"})),
    Intolerance("[CX4;$([CX4]~[#6]~[#6][CX3](=O)[OX2H1]),$([CX4]~[#6]~[#6]~[#6][CX3](=O)[OX2H1])]",
                "a free acid four or five bonds from the carbon it attacks (it closes a gamma- or delta-lactone)",
                _ANY_O_NUCLEOPHILE, where="partner atom"),
)

#: what the oxidation of a ketone to its acid (the haloform reaction: NaOCl or NaOBr, or permanganate) does not
#: tolerate on its substrate: a boronic acid or ester, which the oxidant turns into a phenol or alcohol before
#: the methyl ketone is cleaved (indomethacin's, febuxostat's and teriflunomide's rerouted boronic ketones)
KETONE_OXIDATION_TOLERANCE: tuple[Intolerance, ...] = (
    Intolerance("B[#6]", "a boronic acid or ester (the oxidant turns C-B into C-OH first)", frozenset({"ketone"})),
)

#: what a Chan-Lam O-arylation (an aryl boronic acid, copper(II), air) does not tolerate in either partner: a
#: free carboxylic acid, a better O-nucleophile at copper than an alcohol or phenol, is arylated to the aryl
#: ester (indomethacin's and febuxostat's boronic acids "etherified" beside their acid). N-arylations are left
#: alone: an amine binds the copper before a carboxylate does, and amino acids are N-arylated so.
CHAN_LAM_TOLERANCE: tuple[Intolerance, ...] = (
    Intolerance(_CARBOXYLIC_OH, "a free carboxylic acid (a better O-nucleophile at copper: the aryl ester forms)",
                _ALCOHOL_OR_PHENOL, where="either"),
)


def _o_nucleophile_kind(atom: Chem.Atom) -> str:
    """``acid``, ``alcohol`` or ``phenol`` (see ``Intolerance``) for an O-H oxygen."""
    heavy = [nb for nb in atom.GetNeighbors() if nb.GetAtomicNum() > 1]
    if any(nb.GetSymbol() in ("C", "S", "P") and any(
            b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(nb).GetSymbol() == "O" for b in nb.GetBonds())
           for nb in heavy):
        return "acid"
    if heavy and all(_sp3(nb) for nb in heavy):
        return "alcohol"
    return "phenol"


def _o_alkylation_sites(proposal: Proposal) -> Iterator[Site]:
    """Each new O-C bond from an O-H to a carbon that loses a leaving group: the O-H is the substrate."""
    for a, b in proposal.formed_bonds:
        for o, c in ((a, b), (b, a)):
            oxygen, carbon = proposal.atom(o), proposal.atom(c)
            if oxygen.GetSymbol() == "O" and oxygen.GetTotalNumHs() and carbon.GetSymbol() == "C" \
                    and proposal.leaving(c):
                yield Site(o, c, _o_nucleophile_kind(oxygen))


def _ketone_cleavage_sites(proposal: Proposal) -> Iterator[Site]:
    """Each carbonyl carbon at the centre that loses a carbon neighbour (a methyl ketone cleaved to its acid)."""
    for end in sorted(proposal.centre):
        atom = proposal.atom(end)
        if _carbonyl(atom) and any(nb.GetSymbol() == "C" for nb in proposal.leaving(end)):
            yield Site(end, None, "ketone")


def _chan_lam_sites(proposal: Proposal) -> Iterator[Site]:
    """Each new bond from an O-H or N-H to an aryl carbon that loses its boron: the X-H is the substrate."""
    for a, b in proposal.formed_bonds:
        for x, c in ((a, b), (b, a)):
            atom = proposal.atom(x)
            if atom.GetSymbol() not in ("O", "N") or not atom.GetTotalNumHs() or not _metal(proposal, c, ("B",)):
                continue
            yield Site(x, c, _o_nucleophile_kind(atom) if atom.GetSymbol() == "O" else "amine")


#: reaction classes (lowered template-name prefixes) -> their tolerance table; a class with a table is one row
#: here, walked by ``_tolerance_problem``
TOLERANCE: dict[tuple[str, ...], Tolerance] = {
    ("williamson", "o-methylation", "methylation of oh with dms"):
        Tolerance("an O-alkylation", ("nucleophile", "electrophile"), _o_alkylation_sites, O_ALKYLATION_TOLERANCE),
    ("oxidation of ketone to carboxylic acid",):
        Tolerance("a ketone oxidation to the acid (haloform)", ("substrate", "substrate"), _ketone_cleavage_sites,
                  KETONE_OXIDATION_TOLERANCE),
    ("chan-lam", "chan lam"):
        Tolerance("a Chan-Lam coupling", ("nucleophile", "aryl boron partner"), _chan_lam_sites, CHAN_LAM_TOLERANCE),
}


def _carries(mol: Chem.Mol, smarts: str, besides: int) -> bool:
    """Whether ``mol`` has a match of ``smarts`` whose first atom is not ``besides``."""
    return any(match[0] != besides for match in mol.GetSubstructMatches(_pattern(smarts)))


def _tolerance_problem(table: Tolerance) -> Callable[[Step], str | None]:
    """The check of one ``TOLERANCE`` row: at each of the step's sites, the molecules its groups are looked for
    in (``Intolerance.where``) carry none that outcompetes the substrate's kind or is destroyed beside it."""

    def check(step: Step) -> str | None:
        proposal = step.proposal
        substrate_role, partner_role = table.roles
        for site in table.sites(proposal):
            s, p = site.substrate, site.partner
            for group in table.groups:
                if site.kind not in group.against:
                    continue
                if group.where == "partner atom":
                    if p is not None and _matches_at(proposal.reactants[p[0]], group.smarts, p[1]):
                        return f"{table.what} whose {partner_role} carries {group.reason}"
                    continue
                if group.where in ("substrate", "either") and _carries(proposal.reactants[s[0]], group.smarts, s[1]):
                    return f"{table.what} whose {substrate_role} carries {group.reason}"
                if group.where in ("partner", "either") and p is not None and p[0] != s[0] \
                        and _carries(proposal.reactants[p[0]], group.smarts, p[1]):
                    return f"{table.what} whose {partner_role} carries {group.reason}"
        return None

    return check


def _reactant_carbon_problem(proposal: Proposal, lowered: str) -> str | None:
    """Substitutions that exist on one kind of carbon only: a diazonium replacement (Sandmeyer, Balz-Schiemann)
    of an aryl amine, an alcohol-to-alkyl-halide swap at an sp3 carbon (a phenol is no alcohol), an SN2
    alkylation at a carbon without two fluorines and no H (CF3Cl alkylates nothing); and no SN2 or Mitsunobu
    step at a stereocentre it claims (tamsulosin's (R)-amine was written from the (R)-chloride)."""
    for c in sorted(proposal.centre):
        atom = proposal.atom(c)
        if atom.GetSymbol() != "C" or not proposal.leaving(c):
            continue
        lost = {nb.GetSymbol() for nb in proposal.leaving(c)}
        if lowered.startswith("primary amine to") and "N" in lost and not atom.GetIsAromatic():
            return "an aliphatic primary amine replaced by a halogen (diazonium chemistry needs an aryl amine)"
        if "from alcohols" in lowered and "alkyl" in lowered and "O" in lost and not _sp3(atom):
            return "an alcohol-to-alkyl-halide swap at an aryl or vinyl carbon (a phenol is no alcohol)"
        fluorines = sum(nb.GetSymbol() == "F" for nb in atom.GetNeighbors())
        if lowered.startswith(_ALKYLATIONS) and fluorines >= 2 and atom.GetTotalNumHs() == 0:
            return "an SN2 alkylation at a perfluorinated carbon (CF3 and CF2 halides do not alkylate)"
        made = proposal.product.GetAtomWithIdx(proposal._product_index(atom))
        if (lowered.startswith(_ALKYLATIONS) or "mitsunobu" in lowered) and _sp3(atom) \
                and made.GetChiralTag() != Chem.ChiralType.CHI_UNSPECIFIED:
            return ("a substitution claiming a defined stereocentre at the carbon it attacks (the template copies "
                    "the product's configuration: SN2 and Mitsunobu invert it, SN1 scrambles it)")
    return None


def _reductive_amination_problem(proposal: Proposal) -> str | None:
    """A reductive amination at its new C-N bond: an amine N-H meets an aldehyde/ketone carbon or an sp3
    carbinol carbon (borrowing hydrogen), which becomes an sp3 carbon without a defined stereocentre (the
    step sets none): no phenol carbon, no amide nitrogen."""
    for a, b in proposal.formed_bonds:
        for c, n in ((a, b), (b, a)):
            atom, nitrogen = proposal.atom(c), proposal.atom(n)
            if atom.GetSymbol() != "C" or nitrogen.GetSymbol() != "N":
                continue
            carbonyl = _carbonyl(atom) and not any(nb.GetSymbol() not in ("C", "O") for nb in atom.GetNeighbors())
            carbinol = (_sp3(atom) and any(nb.GetSymbol() == "O" and nb.GetTotalNumHs() for nb in proposal.leaving(c)))
            amine = _matches_at(proposal.reactants[n[0]], _AMINE_NH, n[1])
            if not ((carbonyl or carbinol) and amine):
                continue
            made = proposal.product.GetAtomWithIdx(proposal._product_index(atom))
            if made.GetChiralTag() != Chem.ChiralType.CHI_UNSPECIFIED:
                return "a reductive amination claiming a defined stereocentre at its new C-N bond"
            return None
    return "reductive amination without an amine N-H and a carbonyl or alcohol carbon at the new C-N bond"


def _carbonyl(atom: Chem.Atom) -> bool:
    return atom.GetSymbol() == "C" and any(
        b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(atom).GetSymbol() == "O" for b in atom.GetBonds())


def _sp3(atom: Chem.Atom) -> bool:
    return atom.GetSymbol() == "C" and not atom.GetIsAromatic() and atom.GetHybridization() == Chem.HybridizationType.SP3


def _organometal_problem(proposal: Proposal, lowered: str) -> str | None:
    """An organometal (Zn, Mg, Li) reagent cannot carry an O-H or N-H: it would protonate itself. Grignard and
    organolithium templates write the halide the reagent is made from, so that halide is asked too."""
    acidic = (_pattern(_ACIDIC_H), _pattern(_ALIPHATIC_AMINE_NH))
    metal_made = any(word in lowered for word in ("grignard", "organolithium", "organometallic", "barbier"))
    for i, mol in enumerate(proposal.reactants):
        metal = any(a.GetSymbol() in ("Zn", "Mg", "Li") for a in mol.GetAtoms())
        halide = metal_made and any(end[0] == i and _halide_or_sulfonate(proposal, end)
                                    for bond in proposal.formed_bonds for end in bond)
        if (metal or halide) and any(mol.HasSubstructMatch(p) for p in acidic):
            return "an organozinc, -magnesium or -lithium reagent that carries an O-H or N-H"
        magnesium = any(a.GetSymbol() in ("Mg", "Li") for a in mol.GetAtoms()) or (
            halide and ("grignard" in lowered or "organolithium" in lowered))
        if magnesium and mol.HasSubstructMatch(_pattern(_CARBONYL_OR_NITRILE)):
            return "a Grignard or organolithium reagent that carries a carbonyl or nitrile (it attacks itself)"
    return None


def _makes_acid_derivative(proposal: Proposal) -> bool:
    """Whether a carbonyl carbon at the reaction centre is, in the product, an acid/ester/amide carbon."""
    for end in proposal.centre:
        atom = proposal.atom(end)
        if atom.GetSymbol() != "C":
            continue
        made = proposal.product.GetAtomWithIdx(proposal._product_index(atom))
        if _carbonyl(made) and any(nb.GetSymbol() in ("O", "N", "S", "Cl", "Br", "I", "F")
                                   and proposal.product.GetBondBetweenAtoms(made.GetIdx(), nb.GetIdx()).GetBondType()
                                   == Chem.BondType.SINGLE for nb in made.GetNeighbors()):
            return True
    return False


def _competing_amine_problem(proposal: Proposal) -> str | None:
    """An N-arylation of an amide, carbamate or aryl N-H while a partner carries a free aliphatic amine:
    the more nucleophilic amine is arylated instead (tocainide's unprotected alaninamide)."""
    aliphatic = _pattern(_ALIPHATIC_AMINE_NH)
    for a, b in proposal.formed_bonds:
        for n in (a, b):
            if proposal.atom(n).GetSymbol() != "N" or _matches_at(proposal.reactants[n[0]], _ALIPHATIC_AMINE_NH, n[1]):
                continue
            for i, mol in enumerate(proposal.reactants):
                if any((i, m[0]) != n for m in mol.GetSubstructMatches(aliphatic)):
                    return "an N-arylation beside a free aliphatic amine (it is arylated instead: protect it)"
    return None


def _pd_leaving_problem(proposal: Proposal) -> str | None:
    """A palladium coupling beside an allylic or benzylic halide/sulfonate away from its bond: Pd(0) takes
    that one first (a pi-allyl or benzyl complex)."""
    centre = proposal.centre
    pattern = _pattern(_ALLYLIC_LEAVING)
    for i, mol in enumerate(proposal.reactants):
        for match in mol.GetSubstructMatches(pattern):
            if (i, match[0]) not in centre:
                return "a Pd coupling with an allylic or benzylic leaving group elsewhere in a partner"
    return None


def _michael_problem(proposal: Proposal) -> str | None:
    """A Michael addition at its new bond: the carbon was a C=C whose other end carries an acceptor group."""
    ewg = _pattern(_MICHAEL_EWG)
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            mol = proposal.reactants[c[0]]
            for bond in atom.GetBonds():
                if bond.GetBondType() != Chem.BondType.DOUBLE or bond.GetOtherAtom(atom).GetSymbol() != "C":
                    continue
                alpha = bond.GetOtherAtom(atom)
                hits = {m[0] for m in mol.GetSubstructMatches(ewg)}
                if any(nb.GetIdx() in hits for nb in alpha.GetNeighbors() if nb.GetIdx() != atom.GetIdx()):
                    return None
    return "michael addition to an alkene without an acceptor group (no conjugated C=O, C#N, SO2, NO2)"


def _aldehyde_problem(proposal: Proposal) -> str | None:
    """An aldehyde template at its new bond: a carbonyl carbon with no second heteroatom (no formic acid,
    ester or amide in the aldehyde's place)."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            if atom.GetSymbol() == "C" and any(
                    bd.GetBondType() == Chem.BondType.DOUBLE and bd.GetOtherAtom(atom).GetSymbol() == "O"
                    for bd in atom.GetBonds()):
                hetero = [nb for nb in atom.GetNeighbors() if nb.GetSymbol() not in ("C", "H")
                          and atom.GetOwningMol().GetBondBetweenAtoms(atom.GetIdx(), nb.GetIdx()).GetBondType()
                          == Chem.BondType.SINGLE]
                if hetero:
                    return "an aldehyde template applied to an acid, ester or amide carbonyl"
    return None


def _halogenation_problem(proposal: Proposal) -> str | None:
    """A C-halogen bond made at a carbon that loses nothing (a C-H halogenation) needs X2, an N-X or S-X
    reagent: hydrogen halides and halide ions only displace leaving groups."""
    for a, b in proposal.formed_bonds:
        for c, x in ((a, b), (b, a)):
            if proposal.atom(c).GetSymbol() != "C" or proposal.atom(x).GetSymbol() not in ("F", "Cl", "Br", "I"):
                continue
            if not proposal.leaving(c) and proposal.atom(x).GetDegree() == 0:
                return "a C-H halogenation from a hydrogen halide or halide ion (needs X2, NXS or SO2X2)"
    return None


@dataclass(frozen=True)
class Step:
    """One proposal with what its template says about itself: the rules of ``RULES`` read this."""

    lowered: str  #: the template's name, lower case, without braces and underscores
    reaction_class: str
    amide_coupling: bool
    forward_smirks: str
    proposal: Proposal


@dataclass(frozen=True)
class Rule:
    """One row of ``RULES``: ``check`` runs on the steps ``applies`` selects and returns its refusal or None."""

    applies: Callable[[Step], bool]
    check: Callable[[Step], str | None]


def _always(step: Step) -> bool:
    return True


def _named(*words: str) -> Callable[[Step], bool]:
    """Templates whose lowered name contains one of ``words``."""
    return lambda step: any(word in step.lowered for word in words)


def _prefixed(prefixes: tuple[str, ...]) -> Callable[[Step], bool]:
    """Templates whose lowered name starts with one of ``prefixes``."""
    return lambda step: step.lowered.startswith(prefixes)


def _unisolable_reactant(step: Step) -> str | None:
    """A reactant that is no isolable compound, whether a building block or an intermediate another step
    makes: the step cannot take it (and the step that would make it makes nothing a chemist can use)."""
    for mol in step.proposal.reactants:
        problem = isolable_problem(mol)
        if problem:
            return f"a reactant that is no isolable compound: {problem}"
    return None


def _too_few_atoms(step: Step) -> str | None:
    proposal = step.proposal
    supplied = sum(1 for a in proposal.product.GetAtoms() if a.GetAtomMapNum() in proposal._where)
    if 2 * supplied < proposal.product.GetNumHeavyAtoms():
        return "the reactants supply fewer than half of the product's atoms (a template with unmapped atoms)"
    return None


def _unformed_ring(step: Step) -> str | None:
    proposal = step.proposal
    if _rings([proposal.product]) > _rings(proposal.reactants) and not template_forms_ring(step.forward_smirks) \
            and step.reaction_class not in _RING_FORMING_CLASSES:
        return f"{step.reaction_class.lower()} template closing a ring it does not form"
    return None


def _acid_derivative_carbonyl(step: Step) -> str | None:
    if _makes_acid_derivative(step.proposal):
        return "an aldehyde/ketone template whose carbonyl is an acid, ester or amide carbon"
    return None


def _no_synthesis_step(step: Step) -> str | None:
    return f"{step.lowered} only removes a group the precursor need never have had (not a synthesis step)"


def _ortho_metalation_problem(step: Step) -> str | None:
    if any(m.HasSubstructMatch(_pattern(_ACIDIC_H)) for m in step.proposal.reactants):
        return "an ortho metalation of an arene that carries an acidic O-H or N-H (the base takes that first)"
    return None


def _cyanate_problem(step: Step) -> str | None:
    proposal = step.proposal
    if any(m.HasSubstructMatch(_pattern(_CYANATE_ESTER)) for m in (proposal.product, *proposal.reactants)):
        return "a nitrile template applied to a cyanate ester (O-C#N is no nitrile)"
    return None


def _on_proposal(check: Callable[[Proposal], str | None]) -> Callable[[Step], str | None]:
    return lambda step: check(step.proposal)


def _on_proposal_and_name(check: Callable[[Proposal, str], str | None]) -> Callable[[Step], str | None]:
    return lambda step: check(step.proposal, step.lowered)


#: the checks ``reaction_problem`` runs, in order; the first refusal is the answer. A rule for a reaction
#: class is one row: which templates it reads (by lowered name, class or amide flag) and what it checks.
RULES: tuple[Rule, ...] = (
    Rule(_always, _too_few_atoms),
    Rule(_always, _unformed_ring),
    Rule(_always, lambda step: reactant_side_problem(step.forward_smirks, step.proposal)),
    Rule(lambda step: step.amide_coupling, _on_proposal(_amide_problem)),
    Rule(lambda step: step.lowered in _CARBOXYLIC_ESTERIFICATIONS, _on_proposal(_ester_problem)),
    Rule(_named("friedel-crafts acylation"), _on_proposal(_acylation_problem)),
    Rule(_prefixed(_ALKYLATIONS), _on_proposal(_alkylation_problem)),
    Rule(lambda step: step.lowered.startswith(_SN2_ALKYLATIONS) and "sn1" not in step.lowered,  # SN1 is no SN2
         _on_proposal(_hindered_sn2_problem)),
    Rule(_prefixed(_SN2_ALKYLATIONS), _on_proposal(_acyl_n_secondary_problem)),
    Rule(lambda step: "michael" in step.lowered and "aromatic" not in step.lowered, _on_proposal(_michael_problem)),
    Rule(_named("aldehyde"), _on_proposal(_aldehyde_problem)),
    Rule(_always, _on_proposal(_halogenation_problem)),
    Rule(_always, _on_proposal(_acyl_donor_amine_problem)),
    Rule(_named("to aldehyde", "to ketone", "aldehydes and ketones"), _acid_derivative_carbonyl),
    Rule(lambda step: step.lowered in _NO_SYNTHESIS_STEP, _no_synthesis_step),
    Rule(_named("reductive amination"), _on_proposal(_reductive_amination_problem)),
    Rule(_always, _on_proposal_and_name(_organometal_problem)),
    Rule(_named("mitsunobu"), _on_proposal(_mitsunobu_problem)),
    Rule(_always, _on_proposal_and_name(_reactant_carbon_problem)),
    Rule(lambda step: step.lowered.startswith(_ALKYLATIONS) or "methylation" in step.lowered,
         _on_proposal(_weak_n_alkylation_problem)),
    *(Rule(_prefixed(prefixes), _tolerance_problem(table)) for prefixes, table in TOLERANCE.items()),
    Rule(_named("minisci"), _on_proposal(_minisci_problem)),
    Rule(_named("ortho metalation"), _ortho_metalation_problem),
    Rule(_named(*_PD_COUPLINGS), _on_proposal(_pd_leaving_problem)),
    Rule(_named("buchwald", "ullmann", "goldberg", "chan-lam", "chan lam"), _on_proposal(_competing_amine_problem)),
    Rule(_named("goldberg"), _on_proposal(_goldberg_centre_problem)),
    Rule(_named("nitrile"), _cyanate_problem),
    Rule(_named(*_ARYL_COUPLING_WORDS), lambda step: _coupling_problem(step.lowered, step.proposal)),
    Rule(_named("suzuki", "chan-lam", "chan lam"), _on_proposal(_azinyl_boron_problem)),
    Rule(_always, _unisolable_reactant),  # last: a misfit at the reaction centre is the more telling reason
)


def reaction_problem(name: str, reaction_class: str, amide_coupling: bool, forward_smirks: str,
                     proposal: Proposal) -> str | None:
    """Why this proposal is chemically wrong for its template (the reaction centre does not fit), or None:
    the first refusal of ``RULES``, walked in order."""
    step = Step(name.lower().strip("{}").replace("_", " "), reaction_class, amide_coupling, forward_smirks, proposal)
    for rule in RULES:
        if rule.applies(step):
            problem = rule.check(step)
            if problem:
                return problem
    return None
