"""Retrosynthesis templates from the named-reaction SMIRKS that ``rxn-insight`` ships in its wheel.

rxn-insight's ``data/smirks.json`` holds 528 atom-mapped *forward* reactions with a name each. A backward
(retro) template is the forward one with its two sides swapped: ``product>>reactants``, its unmapped halogen
lists made one halogen (``concrete_leaving_groups``). What the reactant side demands beyond the atoms it
writes (``[C;$(C=O):1]``) a swapped template cannot enforce: ``checks.template_fit.reactant_side_problem``
reads it back onto each proposal. The file is read through the installed distribution's file list, so
rxn-insight is never imported (its own imports pull rxnmapper and transformers; ``pip install --no-deps
rxn-insight`` is enough). Its maps often start at 0, which RDKit reads as *no map*; such a template is
renumbered from 1 first (``renumber_zero_maps``), and an atom mapped only on the reactant side (a leaving
group) is written unmapped (``unmap_leaving_atoms``), as rdchiral needs.

Each template keeps its reaction name and gets a reaction class: one of rxn-insight's eleven superclass
names, assigned from the name by keyword (the wheel carries names, not classes). Whether a template is an
**amide coupling** is decided from its atoms, not its name: the forward reaction makes a new bond from a
carbonyl carbon (one =O, otherwise carbon neighbours: not a carbamate or urea) to a nitrogen of another
reactant (not from an azide), outside a ring. That is what ``reactions = "amide_only"`` allows.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from rdkit import Chem
from rdkit.Chem import AllChem

from mara_chem.scoring.retro.medchem_reactions import medchem_names

#: rxn-insight's superclass names, in the order used to rank proposals: roughly how often each class
#: appears in medicinal-chemistry syntheses (amide formation first; Brown & Bostrom, J. Med. Chem. 2016).
CLASS_ORDER = (
    "Acylation",
    "Heteroatom Alkylation and Arylation",
    "C-C Coupling",
    "Deprotection",
    "Reduction",
    "Aromatic Heterocycle Formation",
    "Functional Group Interconversion",
    "Protection",
    "Oxidation",
    "Functional Group Addition",
    "Miscellaneous",
)

# (class, name keywords), first match wins; matched case-insensitively against the reaction name.
_CLASS_KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Deprotection", ("deprotection", "hydrolysis", "hydrogenolysis", "cleavage", "deboronation")),
    ("Protection", ("protection",)),
    ("Reduction", ("reduction", "hydrogenation", "reductive", "staudinger")),
    ("Oxidation", ("oxidation", "epoxidation", "dehydrogenation", "quinone")),
    ("Acylation", ("acylation", "amide", "ester", "schotten", "urea", "carbamate", "aminolysis", "anhydride",
                   "hydroxamic")),
    ("C-C Coupling", ("suzuki", "negishi", "stille", "heck", "sonogashira", "grignard", "wittig", "aldol",
                      "kumada", "friedel", "olefination", "catellani", "michael", "knoevenagel", "c-methylation",
                      "organometallic", "organolithium", "hiyama", "cyanation", "petasis", "hydroarylation")),
    ("Aromatic Heterocycle Formation", ("benz", "azole", "pyr", "indol", "quinol", "quinaz", "heterocycle",
                                        "cycloaddition", "oxadiaz", "triazol", "thiophen", "furan", "imide")),
    ("Heteroatom Alkylation and Arylation", ("alkylation", "arylation", "buchwald", "ullmann", "chan-lam",
                                             "mitsunobu", "williamson", "snar", "amination", "ether",
                                             "addition of", "methylation")),
    ("Functional Group Interconversion", ("chlorination", "bromination", "iodination", "fluorination",
                                          "conversion", "triflate", "halide", "formation", "preparation",
                                          "synthesis", " to ", " from ")),
)


@dataclass(frozen=True)
class RetroTemplate:
    """One backward template: ``retro_smarts`` is ``product>>reactants`` (rdchiral's direction)."""

    index: int  # line in the source file, a stable id
    name: str
    reaction_class: str
    amide_coupling: bool
    forward_smirks: str
    retro_smarts: str

    @property
    def class_rank(self) -> int:
        return CLASS_ORDER.index(self.reaction_class)


@dataclass(frozen=True)
class TemplateSet:
    """The usable templates, what was skipped and why, and a hash that keys caches."""

    templates: tuple[RetroTemplate, ...]
    source: str
    n_read: int
    skipped: tuple[str, ...]

    @property
    def sha256(self) -> str:
        payload = json.dumps([(t.index, t.name, t.retro_smarts, t.amide_coupling) for t in self.templates])
        return hashlib.sha256(payload.encode()).hexdigest()

    def amide_only(self) -> "TemplateSet":
        return TemplateSet(tuple(t for t in self.templates if t.amide_coupling), self.source, self.n_read,
                           self.skipped)

    def medchem(self) -> "TemplateSet":
        """The templates of the ``medchem`` reaction set (``medchem_reactions``); a name of that list that this
        file lacks is an error, so a renamed template cannot leave the set unnoticed."""
        wanted = medchem_names()
        missing = sorted(wanted - {t.name for t in self.templates})
        if missing:
            raise ValueError(f"the medchem reaction set names templates that {self.source} lacks: {missing}")
        return TemplateSet(tuple(t for t in self.templates if t.name in wanted), self.source, self.n_read,
                           self.skipped)


#: an unmapped halogen list on the reactant side (``[Cl,Br,I]``, ``[Cl,F,Br,I;H0;D1;+0]``): a leaving group
_HALIDE_LIST = re.compile(r"\[((?:Cl|Br|I|F)(?:,(?:Cl|Br|I|F))+)((?:;[^\]:]*)?)\]")


def concrete_leaving_groups(reactant_side: str) -> str:
    """The reactant side with each unmapped halogen list made one halogen, so that the backward template
    writes a real molecule: rdchiral writes a list atom as a ``*`` wildcard, which no stock holds, and every
    aryl-halide Suzuki coupling and acyl-halide amide coupling was lost. The acyl halide lists (with F) become
    the chloride, the others the bromide (the aryl and alkyl halides of medicinal chemistry's couplings)."""
    def one(match: re.Match) -> str:
        options = match.group(1).split(",")
        return f"[{'Cl' if 'F' in options else 'Br' if 'Br' in options else options[0]}{match.group(2)}]"
    return _HALIDE_LIST.sub(one, reactant_side)


#: an atom map in a SMARTS atom (``[#6:0]``, ``[C;H0;D3;+0:12]``)
_ATOM_MAP = re.compile(r":(\d+)\]")


def renumber_zero_maps(smirks: str) -> str:
    """The SMIRKS with every atom map moved up by one when any is 0. rxn-insight numbers the maps of many
    templates from 0, and RDKit and rdchiral read ``:0`` as *unmapped*: that atom was no longer carried from
    product to reactant (an ester aminolysis wrote its acyl carbon's R group as nothing) and the template either
    failed in rdchiral or proposed the wrong reactants."""
    if not re.search(r":0\]", smirks):
        return smirks
    return _ATOM_MAP.sub(lambda m: f":{int(m.group(1)) + 1}]", smirks)


def unmap_leaving_atoms(reactant_side: str, product_side: str) -> str:
    """The reactant side with the maps that the product side does not have removed. Such an atom leaves in
    the forward reaction (an ester's alkoxy oxygen in aminolysis); rdchiral, writing the reactants from the
    product, looks a mapped atom up in the product and raises, so it is written as an unmapped template atom,
    which is what a leaving group is."""
    kept = set(_ATOM_MAP.findall(product_side))
    return _ATOM_MAP.sub(lambda m: m.group(0) if m.group(1) in kept else "]", reactant_side)


def rxn_insight_smirks_path() -> Path:
    """``rxn_insight/data/smirks.json`` of the installed rxn-insight distribution (not imported)."""
    try:
        path = Path(str(distribution("rxn-insight").locate_file("rxn_insight/data/smirks.json")))
    except PackageNotFoundError:
        raise FileNotFoundError(
            "retrosynthesis templates need the rxn-insight wheel: pip install --no-deps rxn-insight"
        ) from None
    if not path.is_file():
        raise FileNotFoundError(f"rxn-insight is installed but {path} is missing")
    return path


def reaction_class(name: str, amide_coupling: bool) -> str:
    """rxn-insight superclass name for a reaction name (keyword rules above; amide couplings are Acylation)."""
    if amide_coupling:
        return "Acylation"
    lowered = name.lower()
    for cls, words in _CLASS_KEYWORDS:
        if any(w in lowered for w in words):
            return cls
    return "Miscellaneous"


def _is_element(atom: Chem.Atom, symbol: str) -> bool:
    """Whether a SMARTS query atom can be this element (``[C;H0..]``, ``[O,S;..]``, ``O``)."""
    if atom.GetAtomicNum() == Chem.GetPeriodicTable().GetAtomicNumber(symbol):
        return True
    return re.search(rf"(^|[\[,;&]){symbol}($|[;,:&\]])", atom.GetSmarts()) is not None


def is_amide_coupling(rxn: AllChem.ChemicalReaction) -> bool:
    """A new C(=O)-N bond between two reactants, the carbon otherwise bonded to carbon only, not in a ring."""
    if rxn.GetNumReactantTemplates() < 2:
        return False  # rearrangements and one-reactant rewrites (Schmidt, hydroxamic acids from aldehydes)
    owner: dict[int, int] = {}
    reactant_atoms: dict[int, Chem.Atom] = {}
    for i in range(rxn.GetNumReactantTemplates()):
        for atom in rxn.GetReactantTemplate(i).GetAtoms():
            if atom.GetAtomMapNum():
                owner[atom.GetAtomMapNum()] = i
                reactant_atoms[atom.GetAtomMapNum()] = atom
    product = Chem.Mol(rxn.GetProductTemplate(0))
    product.UpdatePropertyCache(strict=False)
    Chem.FastFindRings(product)
    for bond in product.GetBonds():
        if bond.IsInRing():
            continue
        for c, n in ((bond.GetBeginAtom(), bond.GetEndAtom()), (bond.GetEndAtom(), bond.GetBeginAtom())):
            if not (_is_element(c, "C") and _is_element(n, "N")):
                continue
            c_owner, n_owner = owner.get(c.GetAtomMapNum()), owner.get(n.GetAtomMapNum())
            if c_owner is None or c_owner == n_owner:
                continue  # the bond existed in one reactant (an unmapped N, e.g. ammonia, counts as new)
            donor = reactant_atoms.get(n.GetAtomMapNum())
            if donor is not None and any(_is_element(nb, "N") for nb in donor.GetNeighbors()):
                continue  # N from an azide or hydrazine (Schmidt, hydrazides): not an amine acylation
            others = [nb for nb in c.GetNeighbors() if nb.GetIdx() != n.GetIdx()]
            oxo = [nb for nb in others if _is_element(nb, "O")
                   and product.GetBondBetweenAtoms(c.GetIdx(), nb.GetIdx()).GetBondType() == Chem.BondType.DOUBLE]
            rest = [nb for nb in others if nb not in oxo]
            if len(oxo) == 1 and not any(_is_element(x, "O") or _is_element(x, "N") for x in rest):
                return True
    return False


@lru_cache(maxsize=4)
def load_templates(path: str | None = None) -> TemplateSet:
    """Parse, reverse and classify the SMIRKS (JSON lines with ``name`` and ``smirks``); cached per path."""
    source = Path(path) if path else rxn_insight_smirks_path()
    templates: list[RetroTemplate] = []
    skipped: list[str] = []
    lines = [line for line in source.read_text().splitlines() if line.strip()]
    for index, line in enumerate(lines):
        record = json.loads(line)
        name, smirks = str(record["name"]).strip(), renumber_zero_maps(str(record["smirks"]))
        try:
            rxn = AllChem.ReactionFromSmarts(smirks)
        except ValueError:
            skipped.append(f"{index} {name}: RDKit cannot parse the SMIRKS")
            continue
        if rxn.GetNumProductTemplates() != 1:
            skipped.append(f"{index} {name}: {rxn.GetNumProductTemplates()} products (retro needs one)")
            continue
        reactants, product = smirks.split(">>")
        amide = is_amide_coupling(rxn)
        templates.append(RetroTemplate(index, name, reaction_class(name, amide), amide, smirks,
                                       f"{product}>>{concrete_leaving_groups(unmap_leaving_atoms(reactants, product))}"))
    return TemplateSet(tuple(templates), str(source), len(lines), tuple(skipped))
