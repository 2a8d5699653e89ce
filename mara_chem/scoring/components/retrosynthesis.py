"""``retrosynthesis``: is there a route from the molecule to purchasable building blocks?

Score 1 for a route found within the limits or a target the exact stock holds (purchasable, 0 steps), 0 for
none (``score = "graded"``: a purchasable target or a one-step route scores 1, each further step costs
1/max_steps). An unsolved molecule's 0 carries its reason to the reason column of the scores CSV and the
oracle log; a route from the target's own natural-product core is a semisynthesis, refused unless
``allow_semisynthesis``. The search (``mara_chem.scoring.retro``) applies rxn-insight's named
reactions backwards (rdchiral) inside a syntheseus Retro*, MCTS or breadth-first search, with a stock of
molbloom's ZINC in-stock filter plus an exact tier (an optional file of purchasable SMILES, the Enamine
building blocks of ``building_blocks_file``, molbloom's common reagents). ``stock_confirmation = "exact"``
counts a filter hit only when the exact tier holds it; with ``"none"`` it counts, and the route lists it under
``bloom_only``. ``reactions = "amide_only"``
allows amide couplings only, so every reaction of a route is one (the ALL-AMIDE protocol).

The search is limited by ``max_iterations`` (deterministic: the same answer on a busy or an idle machine);
``time_limit_s`` is a safety cap in CPU seconds (time waiting for a core never counts), and a molecule stopped by it is a failure with that reason (NaN, zero
reward when required) that is not cached. An unsolved molecule scores 0 and its routes-file record says
why (no template applies / iteration limit / no purchasable building blocks within ``max_steps``) with
the nearest missing building block. Each scored molecule's outcome (with the input's ``id`` when it has one) (steps, routes found, seconds, and the best route's reactions with
names and classes) is appended to ``routes_file``; set it to ``RUN_DIR/routes.jsonl`` and ``mara-chem
report`` shows the routes of the hits. Workers run on the shared executors (``scoring.workers``: ``pool``
or ``ray``).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from mara_chem.scoring.component import ComponentParams, Failure, Scored
from mara_chem.scoring.pooled_component import PooledComponent
from mara_chem.scoring.retro.cache import RouteCache
from mara_chem.scoring.retro.search import RetroWorker, RouteOutcome, canonical_smiles_list
from mara_chem.scoring.retro.exact_stock import read_building_blocks
from mara_chem.scoring.retro.settings import ALGORITHMS, CATALOGS, REACTION_SETS, STOCK_CONFIRMATIONS, RetroSettings
from mara_chem.scoring.workers.executors import Executor, build_executor, list_executors

#: the options that name one of a fixed set: what the error calls it, and the set
_CHOICES = {"reactions": ("reaction set", REACTION_SETS), "algorithm": ("search algorithm", ALGORITHMS),
            "score": ("score", ("graded", "solved")), "catalog": ("stock catalog", CATALOGS),
            "stock_confirmation": ("stock confirmation", STOCK_CONFIRMATIONS)}


class RetrosynthesisParams(ComponentParams):
    """Endpoint ``params`` of ``retrosynthesis``. Paths are relative to the working directory."""

    reactions: str = Field("any", description="any (all 527 rxn-insight templates) | medchem (the medicinal "
                                                  "chemist's common reactions) | amide_only (every reaction an "
                                                  "amide coupling)")
    algorithm: str = Field("retro_star", description="retro_star | mcts | bfs (syntheseus)")
    time_limit_s: float = Field(300.0, gt=0, description="safety cap on a molecule's search, in CPU seconds (a hit "
                                                         "is a failure, not cached); max_iterations is the limit")
    max_iterations: int = Field(200, ge=1, description="search iterations per molecule: the deterministic limit")
    max_steps: int = Field(5, ge=1, description="longest route accepted (reactions)")
    max_routes: int = Field(10, ge=1, description="routes extracted and counted per molecule")
    stop_on_first_solution: bool = Field(True, description="false: search on to count routes (slower)")
    results_per_expansion: int = Field(50, ge=1, description="template proposals kept per molecule expanded")
    score: str = Field("solved", description="solved (0/1) | graded (fewer steps better)")
    catalog: str = Field("zinc-instock-mini", description="molbloom catalog, or 'none' for purchasable_file only")
    max_stock_heavy_atoms: int | None = Field(30, ge=1, description="molbloom hits larger than this are not stock")
    stock_margin_heavy_atoms: int = Field(1, ge=0, description="molbloom hits need this many heavy atoms fewer than the target")
    purchasable_file: str | None = Field(None, description="purchasable SMILES, one per line (exact matches)")
    stock_confirmation: str = Field("none", description="none (a molbloom hit is stock alone, listed as Bloom-only) | "
                                                        "exact (only exact lists: building blocks, common reagents, "
                                                        "purchasable_file)")
    building_blocks_file: str | None = Field(None, description="CSV with a 'smiles' column of sold building blocks "
                                                               "(`mara-chem data building-blocks` writes "
                                                               "data/enamine_building_blocks.csv): the exact tier")
    templates_file: str | None = Field(None, description="JSON-lines SMIRKS file; None: rxn-insight's bundled one")
    allow_semisynthesis: bool = Field(False, description="a building block holding the target's natural-product "
                                                         "core (salvinorin B for salvinorin A) counts; the route "
                                                         "lists it under semisynthesis")
    executor: str = Field("pool", description="serial | pool | ray")
    n_workers: int | None = Field(None, ge=1, description="None: all cores (Ray with an address: all cluster CPUs)")
    address: str | None = Field(None, description="Ray cluster address; None: local")
    hard_timeout_s: float | None = Field(None, gt=0, description="kill a worker stuck this long (default 2 x time limit + 60)")
    cache_path: str | None = Field(None, description="sqlite file of searched molecules, reused across runs")
    routes_file: str | None = Field(None, description="append each molecule's outcome and best route (JSON lines)")

    @field_validator("reactions", "algorithm", "score", "catalog", "stock_confirmation")
    @classmethod
    def _one_of(cls, value: str, info: ValidationInfo) -> str:
        what, valid = _CHOICES[info.field_name]
        if value not in valid:
            raise ValueError(f"unknown {what} {value!r}; valid: {list(valid)}")
        return value

    @field_validator("executor")
    @classmethod
    def _executor(cls, value: str) -> str:
        if value.lower() not in list_executors():
            raise ValueError(f"unknown executor {value!r}; valid: {list_executors()}")
        return value.lower()

    @field_validator("purchasable_file", "templates_file")
    @classmethod
    def _exists(cls, value: str | None) -> str | None:
        if value is not None and not Path(value).is_file():
            raise ValueError(f"file not found: {value}")
        return value

    @field_validator("building_blocks_file")
    @classmethod
    def _blocks_exist(cls, value: str | None) -> str | None:
        if value is not None and not Path(value).is_file():
            raise ValueError(f"file not found: {value} (write it with `mara-chem data building-blocks`)")
        return value

    @model_validator(mode="after")
    def _stock(self) -> "RetrosynthesisParams":
        if self.catalog == "none" and self.purchasable_file is None and self.building_blocks_file is None:
            raise ValueError("catalog = 'none' needs a purchasable_file or building_blocks_file "
                             "(otherwise nothing is in stock)")
        if self.stock_confirmation == "exact" and self.purchasable_file is None and self.building_blocks_file is None:
            raise ValueError("stock_confirmation = 'exact' needs a building_blocks_file or purchasable_file "
                             "(otherwise only common reagents are in stock); `mara-chem data building-blocks` "
                             "writes data/enamine_building_blocks.csv")
        return self


class Retrosynthesis(PooledComponent[RouteOutcome]):
    """Route found (1) or not (0) per molecule; executor and cache live as long as the component."""

    name = "retrosynthesis"
    aliases = ("Retrosynthesis", "retro", "MaraRetrosynthesis")  # its REINVENT plugin name (reinvent_plugins/)
    required_by_default = True  # an expensive oracle: failing it must not let QED alone carry the score
    Params = RetrosynthesisParams
    params: RetrosynthesisParams
    computed = "searched"
    raw_range = (0.0, 1.0)  # solved (1) or not (0), or the graded score: usable without a transform
    # the contract suite's example: amide couplings only, in this process (fast and machine-independent)
    example_params = {"executor": "serial", "reactions": "amide_only", "time_limit_s": 60}

    def __init__(self, params: RetrosynthesisParams | dict | None = None):
        super().__init__(params)
        missing = [m for m in ("syntheseus", "rdchiral", "molbloom") if importlib.util.find_spec(m) is None]
        if missing:
            raise ValueError(f"retrosynthesis needs {', '.join(missing)}: pip install 'mara-chem[retro]' "
                             "and pip install --no-deps rxn-insight")
        p = self.params
        purchasable = canonical_smiles_list(Path(p.purchasable_file).read_text().splitlines()) if p.purchasable_file else frozenset()
        self.settings = RetroSettings(
            algorithm=p.algorithm, reactions=p.reactions, time_limit_s=p.time_limit_s, max_iterations=p.max_iterations,
            max_steps=p.max_steps, max_routes=p.max_routes, stop_on_first_solution=p.stop_on_first_solution,
            results_per_expansion=p.results_per_expansion, catalog=p.catalog,
            max_stock_heavy_atoms=p.max_stock_heavy_atoms, stock_margin_heavy_atoms=p.stock_margin_heavy_atoms,
            purchasable_smiles=purchasable, stock_confirmation=p.stock_confirmation,
            building_blocks=read_building_blocks(p.building_blocks_file) if p.building_blocks_file else frozenset(),
            templates_path=p.templates_file, allow_semisynthesis=p.allow_semisynthesis,
        )
        self.fingerprint = self.settings.fingerprint()
        self.cache = RouteCache(p.cache_path, self.fingerprint) if p.cache_path else None
        self._routes_written: set[str] = set()

    def _start_executor(self) -> Executor[RetroSettings, RouteOutcome]:
        p = self.params
        timeout = p.hard_timeout_s or 2 * p.time_limit_s + 60
        return build_executor(p.executor, self.settings, n_workers=p.n_workers, timeout_s=timeout,
                              address=p.address, worker_cls=RetroWorker)

    def _counts(self, outcomes: Sequence[RouteOutcome]) -> str:
        return f"{sum(1 for o in outcomes if o.solved)} solved"

    def _value(self, outcome: RouteOutcome | None) -> float | Failure | Scored:
        if outcome is None:
            return Failure("invalid SMILES")
        if outcome.purchasable:
            return Scored(1.0, "purchasable (held by the exact stock)")
        if outcome.solved:
            value = 1.0
            if self.params.score == "graded":
                value = (self.params.max_steps - outcome.steps + 1) / self.params.max_steps  # type: ignore[operator]
            if outcome.semisynthesis:
                return Scored(value, f"semisynthesis from {'.'.join(outcome.semisynthesis)}")
            return value
        if not outcome.cacheable:  # stopped by the safety cap: a pathological search, not the molecule's answer
            return Failure(outcome.reason or "search stopped by the safety cap")
        return Scored(0.0, outcome.reason or "no route")  # why: no template, iteration limit, nearest missing block

    def _write_outcomes(self, outcomes: Sequence[RouteOutcome]) -> None:
        """With ``routes_file``, append every newly seen molecule's outcome (with its id) as a JSON line."""
        if not self.params.routes_file:
            return
        path = Path(self.params.routes_file)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as handle:
            for o in outcomes:
                if o.smiles in self._routes_written:
                    continue
                record = json.loads(o.to_json())
                ident = self._ids.get(o.smiles)
                if ident:
                    record = {"id": ident, **record}
                record["reactions"] = self.params.reactions
                handle.write(json.dumps(record) + "\n")
                self._routes_written.add(o.smiles)


__all__: list[Any] = ["Retrosynthesis", "RetrosynthesisParams"]
