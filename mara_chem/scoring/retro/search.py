"""One molecule in, one route (or the reason there is none) out: syntheseus search over the template model.

``RetroSettings`` (``settings.py``) is everything that determines an outcome, picklable (the purchasable list travels as
text, so a Ray node needs no shared filesystem). ``RetroWorker`` builds the model and stock once and plans
many molecules; it is a ``scoring.workers`` worker, so the shared executors (``serial``, ``pool``, ``ray``)
run it. A target the exact stock holds (the user's file, building blocks, common reagents) is purchasable:
solved in 0 steps without a search (a Bloom filter hit alone is not enough: 7 % of random molecules are
one). Otherwise the search expands the target (a route has at least one reaction) and stops at its first
solution by default. Its limit is ``max_iterations`` (CPU-independent, so the same molecule gets the same
answer on a busy and an idle machine); ``time_limit_s`` is only a safety cap, and it counts the search's CPU
seconds (``_CpuCap``), so time spent waiting for a core never counts against it. A CPU second itself stretches
on a loaded machine (the same search held to a tenth of a core by a stop/continue duty cycle used 3-10x its
idle CPU seconds on a 2-core VM), hence a default cap far above any search's cost. An unsolved molecule
names why: no template applies, the iteration limit, or no purchasable building blocks within ``max_steps``,
with the nearest missing building block (the reactants still lacking in the best first disconnection), and, when the only
stock precursors hold the target's natural-product core, that it is a semisynthesis (``semisynthesis.py``;
``allow_semisynthesis`` accepts those, and the route lists them). An outcome stopped by the safety cap is a
pathological search and is not cached.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from collections.abc import Iterable

from rdkit import Chem

from mara_chem.scoring.retro.semisynthesis import holds_core
from mara_chem.scoring.retro.settings import RetroSettings
from mara_chem.scoring.workers.worker import Worker


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



@dataclass
class RouteOutcome:
    """One molecule's search: ``steps`` of the best (shortest) route, or None; ``route`` lists its reactions
    from the target down (each: product, reactants, reaction SMILES, name, class)."""

    smiles: str
    solved: bool = False
    steps: int | None = None
    n_routes: int = 0
    seconds: float = 0.0  # wall clock (what the time limit counts)
    cpu_seconds: float = 0.0  # this worker's CPU time: the one-core cost, whatever the machine's load
    route: list[dict[str, Any]] | None = None
    reason: str | None = None
    cacheable: bool = True
    #: the route's building blocks that only the Bloom filter vouches for (no exact list holds them)
    bloom_only: list[str] | None = None
    #: the target itself is held by the exact stock (no route needed: 0 steps)
    purchasable: bool = False
    #: the route's building blocks that already hold the target's natural-product core (a semisynthesis)
    semisynthesis: list[str] | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> "RouteOutcome":
        return cls(**json.loads(text))


class RetroWorker(Worker[RetroSettings, RouteOutcome]):
    """Template model + stock built once; ``run(smiles)`` (the executors' entry point) plans one molecule."""

    kind = "retrosynthesis worker"

    def __init__(self, settings: RetroSettings):
        from mara_chem.scoring.retro.model import TemplateBackwardModel
        from mara_chem.scoring.retro.stock import BloomStock

        self.settings = settings
        self.model = TemplateBackwardModel(settings.template_set(), default_num_results=settings.results_per_expansion,
                                           max_cache_size=20_000)
        self.stock = BloomStock(settings.catalog, settings.purchasable_smiles, settings.max_stock_heavy_atoms,
                                settings.building_blocks, settings.stock_confirmation)

    def run(self, smiles: str) -> RouteOutcome:
        return self.plan(smiles)

    @classmethod
    def failure(cls, smiles: str, reason: str, seconds: float) -> RouteOutcome:
        return RouteOutcome(smiles, reason=reason, seconds=seconds, cacheable=False)

    def plan(self, smiles: str) -> RouteOutcome:
        from syntheseus.interface.molecule import Molecule

        start, cpu_start = time.perf_counter(), time.process_time()
        try:
            target = Molecule(smiles)
        except Exception:
            return RouteOutcome(smiles, reason="invalid SMILES")
        if self.stock.source(target) == "exact":  # sold as it is: no route needed (a Bloom hit alone is not enough)
            return RouteOutcome(smiles, True, 0, 0, time.perf_counter() - start, time.process_time() - cpu_start,
                                [], purchasable=True)
        stock = _NotTheTarget(self.stock, target, self.settings.stock_margin_heavy_atoms,
                              self.settings.allow_semisynthesis)
        algorithm = self._algorithm(stock)
        graph, iterations = algorithm.run_from_mol(target)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        routes = [_route_steps(graph, nodes) for nodes in _solved_routes(graph, self.settings.max_routes)]
        routes = [r for r in routes if len(r) <= self.settings.max_steps]
        if routes:  # shortest, then fewest Bloom-only leaves, then the one whose reactions the model ranked highest
            unconfirmed = [self._bloom_only(r) for r in routes]
            i = min(range(len(routes)), key=lambda k: (len(routes[k]), len(unconfirmed[k]),
                                                       -sum(step["log_probability"] for step in routes[k])))
            cores = [leaf for leaf in _leaves(routes[i]) if leaf in stock.cores]
            return RouteOutcome(smiles, True, len(routes[i]), len(routes), seconds, cpu, routes[i],
                                bloom_only=unconfirmed[i], semisynthesis=cores or None)
        s = self.settings
        if algorithm.cpu_cap_reached:  # the safety cap: a pathological search, not the molecule's answer
            reason = f"safety cap of {s.time_limit_s:g} CPU s reached after {iterations} iterations"
            return RouteOutcome(smiles, seconds=seconds, cpu_seconds=cpu, reason=reason, cacheable=False)
        reason = self._why_unsolved(graph, iterations, stock)
        if stock.refused_cores:
            cores = sorted(stock.refused_cores, key=lambda c: (len(c), c))
            more = f" and {len(cores) - 3} more" if len(cores) > 3 else ""
            reason += ("; stock holds the target's own natural-product core (a semisynthesis, refused unless "
                       f"allow_semisynthesis = true): {'.'.join(cores[:3])}{more}")
        return RouteOutcome(smiles, seconds=seconds, cpu_seconds=cpu, reason=reason)

    def _bloom_only(self, route: list[dict[str, Any]]) -> list[str]:
        """The route's leaves (reactants no step makes) that the stock holds only through the Bloom filter."""
        from syntheseus.interface.molecule import Molecule

        return [leaf for leaf in _leaves(route) if self.stock.source(Molecule(leaf)) == "bloom"]

    def _why_unsolved(self, graph: Any, iterations: int, stock: Any) -> str:
        """No template / the iteration limit / no purchasable leaves within the steps, and the nearest miss."""
        s = self.settings
        first = [node for node in graph.successors(graph.root_node)]
        if not first:
            return "no template applies to the target"
        # syntheseus returns the last iteration's 0-based index: max_iterations - 1 when the limit ended it
        head = (f"iteration limit ({s.max_iterations}) reached without a route" if iterations + 1 >= s.max_iterations
                else f"no route to purchasable building blocks within {s.max_steps} steps")
        missing = _nearest_missing(first, stock)
        return f"{head}; nearest missing building block: {missing}" if missing else head

    def _algorithm(self, stock: Any) -> Any:
        from syntheseus.search.algorithms.best_first.retro_star import RetroStarSearch
        from syntheseus.search.algorithms.breadth_first import AndOr_BreadthFirstSearch
        from syntheseus.search.algorithms.mcts.base import pucb_bound
        from syntheseus.search.algorithms.mcts.molset import MolSetMCTS
        from syntheseus.search.node_evaluation.common import (
            ConstantNodeEvaluator,
            HasSolutionValueFunction,
            ReactionModelProbPolicy,
        )

        s = self.settings
        common: dict[str, Any] = dict(
            reaction_model=self.model, mol_inventory=stock, limit_iterations=s.max_iterations,
            expand_purchasable_target=True, prevent_repeat_mol_in_trees=True,
            stop_on_first_solution=s.stop_on_first_solution, cpu_limit_s=s.time_limit_s,
        )
        if s.algorithm == "retro_star":  # every reaction costs 1: the cheapest route is the shortest
            return _cpu_capped(RetroStarSearch)(and_node_cost_fn=ConstantNodeEvaluator(1.0), value_function=ConstantNodeEvaluator(0.0),
                                   max_expansion_depth=2 * s.max_steps - 1, **common)
        if s.algorithm == "mcts":
            return _cpu_capped(MolSetMCTS)(value_function=ConstantNodeEvaluator(0.5), reward_function=HasSolutionValueFunction(),
                              policy=ReactionModelProbPolicy(), bound_function=pucb_bound,
                              max_expansion_depth=s.max_steps, **common)
        return _cpu_capped(AndOr_BreadthFirstSearch)(max_expansion_depth=2 * s.max_steps - 1, **common)


class _CpuCap:
    """Mixed into a syntheseus algorithm: the safety cap counts this process's CPU seconds, not wall seconds,
    so the time a busy machine keeps the search waiting for a core never counts against it."""

    def __init__(self, *args: Any, cpu_limit_s: float = math.inf, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.cpu_limit_s = cpu_limit_s
        self.cpu_cap_reached = False
        self._cpu_start = 0.0

    def setup(self, graph: Any) -> None:
        self._cpu_start = time.process_time()
        self.cpu_cap_reached = False
        super().setup(graph)  # type: ignore[misc]

    def should_stop_search(self, graph: Any) -> bool:
        if time.process_time() - self._cpu_start >= self.cpu_limit_s:
            self.cpu_cap_reached = True
            return True
        return super().should_stop_search(graph)  # type: ignore[misc]


@lru_cache(maxsize=None)
def _cpu_capped(algorithm: type) -> type:
    return type(f"CpuCapped{algorithm.__name__}", (_CpuCap, algorithm), {})


class _NotTheTarget:
    """The stock as one search sees it: the target is never in stock (a route needs a reaction), and a
    filter hit must have at least ``margin`` heavy atoms fewer than the target. Without that rule a Bloom
    false positive one trivial step from the target (a deboronation, a hydrogenation, an intramolecular
    ring closure: same size or larger) 'solves' anything; molecules of the exact tier (the user's file,
    building blocks, common reagents) are exempt, and so are the carboxylic acids of the target's primary
    amides (acid + ammonia keeps the size). A stock molecule that holds the target's natural-product core
    (``semisynthesis``) is stock only with ``allow_semisynthesis``; the refused ones are kept for the reason."""

    def __init__(self, stock: Any, target: Any, margin: int, allow_semisynthesis: bool = False):
        self.stock, self.target = stock, target
        self.max_filter_atoms = target.rdkit_mol.GetNumHeavyAtoms() - margin
        self.amide_acids = _acids_of_primary_amides(target.rdkit_mol)
        self.allow_semisynthesis = allow_semisynthesis
        self.cores: set[str] = set()  # stock molecules that hold the target's core
        self.refused_cores: set[str] = set()

    def is_purchasable(self, mol: Any) -> bool:
        if mol == self.target:
            return False
        source = self.stock.source(mol)
        small = mol.rdkit_mol.GetNumHeavyAtoms() <= self.max_filter_atoms or mol.smiles in self.amide_acids
        if not (source == "exact" or (small and source == "bloom")):
            return False
        if holds_core(self.target.smiles, mol.rdkit_mol):
            self.cores.add(mol.smiles)
            if not self.allow_semisynthesis:
                self.refused_cores.add(mol.smiles)
                return False
        return True

    def fill_metadata(self, mol: Any) -> None:
        mol.metadata["is_purchasable"] = self.is_purchasable(mol)


def _nearest_missing(first_reactions: list, stock: Any) -> str | None:
    """The not-purchasable reactants of the first-step disconnection that lacks the fewest (the model's
    best-ranked among ties, then by SMILES: the graph's own order follows string hashes, which differ between
    processes), as dot-joined SMILES."""
    best: tuple[int, float, str] | None = None
    for node in first_reactions:
        reaction = getattr(node, "reaction", None)
        if reaction is None:
            continue
        lacking = ".".join(sorted(m.smiles for m in reaction.reactants if not stock.is_purchasable(m)))
        key = (lacking.count(".") + 1, -float(reaction.metadata.get("probability", 0.0)), lacking)
        if lacking and (best is None or key < best):
            best = key
    return best[2] if best else None


def _acids_of_primary_amides(mol: Any) -> set[str]:
    """Canonical SMILES of ``mol`` with one of its primary amides C(=O)NH2 turned into C(=O)OH."""
    from rdkit import Chem
    from rdkit.Chem import AllChem

    rxn = AllChem.ReactionFromSmarts("[C:1](=[O:2])[NH2]>>[C:1](=[O:2])[OH]")
    acids = set()
    for (product,) in rxn.RunReactants((mol,)):
        try:
            Chem.SanitizeMol(product)
            acids.add(Chem.MolToSmiles(product))
        except Exception:
            continue
    return acids


def _leaves(route: list[dict[str, Any]]) -> list[str]:
    """The route's building blocks: reactants no step makes, in route order."""
    made = {step["product"] for step in route}
    return list(dict.fromkeys(r for step in route for r in step["reactants"] if r not in made))


def _solved_routes(graph: Any, max_routes: int) -> list:
    from syntheseus.search.analysis.route_extraction import iter_routes_time_order

    if not graph.root_node.has_solution:
        return []
    return list(iter_routes_time_order(graph, max_routes=max_routes))


def _route_steps(graph: Any, nodes: Any) -> list[dict[str, Any]]:
    """The route's reactions, breadth-first from the target."""
    route = graph.to_synthesis_graph(nodes)
    steps, queue = [], [route.root_node]
    while queue:
        rxn = queue.pop(0)
        steps.append({
            "product": rxn.product.smiles,
            "reactants": [m.smiles for m in rxn.reactants],
            "reaction_smiles": rxn.reaction_smiles,
            "name": rxn.metadata.get("source", ""),
            "class": rxn.metadata.get("reaction_class", ""),
            "log_probability": float(rxn.metadata.get("log_probability", 0.0)),
        })
        queue.extend(route.successors(rxn))
    return steps
