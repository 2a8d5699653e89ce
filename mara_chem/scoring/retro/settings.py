"""What determines a retrosynthesis outcome: the search, stock and template settings and their constants.

Its own module so that ``search`` (the worker) and ``stock`` (the inventory) both read it without importing
each other.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mara_chem.scoring.retro.templates import TemplateSet, load_templates

# Bump when the model, stock or route extraction changes in a way that changes outcomes (invalidates caches).
RETRO_VERSION = 14  # 14: diamines N-arylated at the hindered amine, one of several methyl ethers cleaved, 2- and 4-hydroxyazines O-alkylated by SN2, amide reductions beside a second amide, electrophiles with an amine N-H across their ring, anti-Bredt alkenes, CH2 cyclopropenes, sulfonyl halides with their own amine, sulfonyl nitro compounds, Mitsunobu carbinols that keep their configuration; 13: Wittig phosphonic acids, reductive methylation of amides, aryl O-H to halide only at hydroxyazines, nitro Grignards, mercapto acyl halides, amino aldehydes, self-lactamising acyl donors, trifluoroethyl halides and tertiary alpha-halo ketones in SN2, electrophiles that cyclise on their own N-H, reductive amination of diamines and tertiary carbinols, Julia sulfones, ketones from dimethylamides held to the organometal rule, no reductive methylation of guanidines, the medchem reaction set; 12: Friedel-Crafts acylated rings (deactivated, basic N, phenol, aryl amine), Friedel-Crafts alkylation at enol ethers and of furans and pyrroles, non-aromatic nitration at an enol or active methylene, nitrile reduction tolerance; 11: C-methylation only at an enolate, Friedel-Crafts cations, dehydrative ethers, diazo amide N-alkylation, activated alkoxy displacement, O-alkylation beside an aliphatic amine, O-methylation beside a tertiary amine, simple enols, Michael donors, Friedel-Crafts donors and cations, nitrite hydrazines, arylation beside an imide, electrophiles with a distant amine, Wittig halides, Friedel-Crafts arenes, nitration directing, heteroatom acyl templates, cyclopropyl SN2, trifluoromethanol; 10: rxn-insight templates whose maps start at 0 renumbered, leaving atoms unmapped on the written side; 9: no carbons added by a reduction, oxidation or deprotection, Bloom-only ynamides and acyl cyanides, amide hydrolysis tolerance; 8: hindered SN2, per-class tolerance rows, Minisci sites, 2-azinyl boron, Goldberg at acyl carbon, one of two acyl halides, primary-amine mono-methylation; 7: Michael acceptors, aldehydes, C-H halogenation sources, unprotected amino-acid donors, self-alkylating blocks; 4: exact stock tier (building blocks, common reagents), Bloom-only leaves listed; 5: esterifications need a carboxylic acyl donor, nitrile templates refuse cyanate esters; 6: checks at the reaction centre (atom-mapped), the template's reactant side read back, semisynthesis refused, exact-stock targets purchasable, CPU-second safety cap
ALGORITHMS = ("retro_star", "mcts", "bfs")
REACTION_SETS = ("any", "medchem", "amide_only")
CATALOGS = ("zinc-instock-mini", "zinc-instock", "zinc20", "none")
#: "none": a molbloom hit is stock on its own (a Bloom-only leaf); "exact": only the exact tier is stock
STOCK_CONFIRMATIONS = ("none", "exact")
#: commodity amines sold as solutions or salts, which molbloom's filter and common-reagent list lack
REAGENTS = frozenset({"NO", "CN", "CNC", "CCN"})


@dataclass(frozen=True)
class RetroSettings:
    """Search, stock and template settings (``cpu_per_worker`` is layout only, for the executors)."""

    algorithm: str = "retro_star"
    reactions: str = "any"
    time_limit_s: float = 300.0  # a safety cap only, in CPU seconds of the search: max_iterations is the limit
    max_iterations: int = 200
    max_steps: int = 5
    max_routes: int = 10
    stop_on_first_solution: bool = True
    results_per_expansion: int = 50
    catalog: str = "zinc-instock-mini"
    max_stock_heavy_atoms: int | None = 30
    stock_margin_heavy_atoms: int = 1
    purchasable_smiles: frozenset[str] = field(default=frozenset(), repr=False)
    stock_confirmation: str = "none"
    building_blocks: frozenset[str] = field(default=frozenset(), repr=False)  # the exact tier's building blocks
    templates_path: str | None = None
    allow_semisynthesis: bool = False  # a building block holding the target's natural-product core counts
    cpu_per_worker: int = 1

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown search algorithm {self.algorithm!r}; valid: {list(ALGORITHMS)}")
        if self.reactions not in REACTION_SETS:
            raise ValueError(f"unknown reaction set {self.reactions!r}; valid: {list(REACTION_SETS)}")
        if self.stock_confirmation not in STOCK_CONFIRMATIONS:
            raise ValueError(f"unknown stock confirmation {self.stock_confirmation!r}; "
                             f"valid: {list(STOCK_CONFIRMATIONS)}")

    def template_set(self) -> TemplateSet:
        templates = load_templates(self.templates_path)
        if self.reactions == "amide_only":
            return templates.amide_only()
        return templates.medchem() if self.reactions == "medchem" else templates

    def fingerprint(self) -> str:
        """Hash of what changes an outcome: settings, template set, purchasable list, library versions."""
        payload: dict[str, Any] = {k: v for k, v in asdict(self).items()
                                   if k not in ("cpu_per_worker", "purchasable_smiles", "building_blocks",
                                                "templates_path")}
        payload["purchasable_sha256"] = _sha256_of_set(self.purchasable_smiles)
        payload["building_blocks_sha256"] = _sha256_of_set(self.building_blocks)
        payload["template_sha256"] = self.template_set().sha256
        payload["retro_version"] = RETRO_VERSION
        payload["versions"] = {p: _version(p) for p in ("syntheseus", "rdkit", "rdchiral", "molbloom", "rxn-insight")}
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _sha256_of_set(smiles: frozenset[str]) -> str:
    return hashlib.sha256("\n".join(sorted(smiles)).encode()).hexdigest()


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "absent"
