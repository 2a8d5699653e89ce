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
RETRO_VERSION = 2
ALGORITHMS = ("retro_star", "mcts", "bfs")
REACTION_SETS = ("any", "amide_only")
CATALOGS = ("zinc-instock-mini", "zinc-instock", "zinc20", "none")
#: commodity amines sold as solutions or salts, which molbloom's filter and common-reagent list lack
REAGENTS = frozenset({"NO", "CN", "CNC", "CCN"})


@dataclass(frozen=True)
class RetroSettings:
    """Search, stock and template settings (``cpu_per_worker`` is layout only, for the executors)."""

    algorithm: str = "retro_star"
    reactions: str = "any"
    time_limit_s: float = 10.0
    max_iterations: int = 200
    max_steps: int = 5
    max_routes: int = 10
    stop_on_first_solution: bool = True
    results_per_expansion: int = 50
    catalog: str = "zinc-instock-mini"
    max_stock_heavy_atoms: int | None = 30
    stock_margin_heavy_atoms: int = 1
    purchasable_smiles: frozenset[str] = field(default=frozenset(), repr=False)
    templates_path: str | None = None
    cpu_per_worker: int = 1

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown search algorithm {self.algorithm!r}; valid: {list(ALGORITHMS)}")
        if self.reactions not in REACTION_SETS:
            raise ValueError(f"unknown reaction set {self.reactions!r}; valid: {list(REACTION_SETS)}")

    def template_set(self) -> TemplateSet:
        templates = load_templates(self.templates_path)
        return templates.amide_only() if self.reactions == "amide_only" else templates

    def fingerprint(self) -> str:
        """Hash of what changes an outcome: settings, template set, purchasable list, library versions."""
        payload: dict[str, Any] = {k: v for k, v in asdict(self).items()
                                   if k not in ("cpu_per_worker", "purchasable_smiles", "templates_path")}
        payload["purchasable_sha256"] = hashlib.sha256("\n".join(sorted(self.purchasable_smiles)).encode()).hexdigest()
        payload["template_sha256"] = self.template_set().sha256
        payload["retro_version"] = RETRO_VERSION
        payload["versions"] = {p: _version(p) for p in ("syntheseus", "rdkit", "rdchiral", "molbloom", "rxn-insight")}
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "absent"
