"""Mol GA (Tripp & Hernández-Lobato 2023; the ``mol-ga`` 0.2.1 package itself) as a peer on a benchmark task.

    mara-chem-bench-peer mol_ga --task zaleplon_mpo --budget 10000 --seed 0 --out runs/molga/zaleplon/seed0

As PMO runs it (Genetic GFN's ``main/mol_ga``): the starting population is drawn from ZINC 250k by mol-ga's
own ``random_zinc`` with the run's seeded ``random.Random``, then ``mol_ga.default_ga`` (Graph GA crossover
and mutation, quantile sampling, the best ``population_size`` kept). Defaults are the tuned settings of
Genetic GFN's Mol GA row (starting population 100, population 500, offspring 5 a generation).

The GA's scoring function is mara-chem's oracle (``peer_run.open_oracle``): SMILES are canonicalised, an
invalid SMILES scores 0 and costs nothing, a repeated molecule comes from the oracle's cache for free, and
the run stops when a generation holds a new molecule the budget cannot pay for. Every paid call is a row of
``oracle_log.csv`` (mara-chem's writer), so ``mara-chem metrics`` measures the run like any of mara-chem's.

mol-ga removes Graph GA's size constraint, and on objectives that do not penalise size its offspring can grow
to 150 heavy atoms and more, where one PHCO similarity (``scaffold_hop``, ``deco_hop``) takes minutes. ``--max-cpu-s``
caps the run's CPU seconds (not wall seconds, so the cap does not depend on the machine's load): the run stops
before the next new molecule once the cap is spent, records ``stop_reason = "cpu cap"``, and PMO's AUC holds the last
top-10 flat to the budget, as for any run that stops early.

Python's string hashing orders mol-ga's sets, and so the order of its offspring: the command re-runs itself
with ``PYTHONHASHSEED=0`` (unless set) so that a seed gives the same run every time.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import random
import sys
import time
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

from benchlab.peers.peer_run import (PeerError, PeerRecord, add_common_args, open_oracle, prepare_run_dir, report,
                                    resolve_task)

PMO_SETTINGS = {"starting_population_size": 100, "population_size": 500, "offspring_size": 5}
"""Genetic GFN's ``main/mol_ga/hparams_default.yaml`` (the tuned Mol GA of its Table 1)."""


class BudgetSpent(Exception):
    """The oracle budget cannot pay for a molecule the GA asked for: the run ends here."""


class CpuCapSpent(Exception):
    """The run's CPU-seconds cap is spent: the run ends before the next new molecule is scored."""


class AccountedObjective:
    """Mol GA's batch scoring function over mara-chem's oracle (one call per new valid canonical SMILES), which
    ends the run (:class:`CpuCapSpent`) when the process has used ``max_cpu_s`` CPU seconds."""

    def __init__(self, oracle, max_cpu_s: float | None = None) -> None:
        self.oracle = oracle
        self.max_cpu_s = max_cpu_s
        self.cpu_start = time.process_time()
        self.batches = 0  # the log's ``step``: 1 for the starting population, then one per generation

    def cpu_s(self) -> float:
        """CPU seconds this process has used since the objective was made (the GA and the scoring)."""
        return time.process_time() - self.cpu_start

    def __call__(self, smiles: list[str]) -> list[float]:
        from mara_chem.chem.smiles import canonicalize

        if self.max_cpu_s is not None and self.cpu_s() >= self.max_cpu_s:
            raise CpuCapSpent
        self.batches += 1
        canon = [canonicalize(s) for s in smiles]
        valid = [c for c in canon if c is not None]
        if self.max_cpu_s is None:
            scored = self.oracle.score(valid, self.batches)
        else:  # one molecule at a time, so that one generation of giants cannot run far past the cap
            scored = {}
            for smi in dict.fromkeys(valid):
                if smi not in self.oracle.cache and self.cpu_s() >= self.max_cpu_s:
                    raise CpuCapSpent
                scored.update(self.oracle.score([smi], self.batches))
        if any(c is not None and c not in scored for c in canon):
            raise BudgetSpent
        # a failed score (NaN) is 0 for the GA, as in PMO; the log keeps it as a failure
        return [0.0 if c is None or math.isnan(scored[c].total) else scored[c].total for c in canon]


def run_mol_ga(task_name: str, out: Path, budget: int, seed: int, *, starting_population_size: int,
               population_size: int, offspring_size: int, max_generations: int, max_cpu_s: float | None = None,
               overwrite: bool = False) -> PeerRecord:
    """One Mol GA run on a task until the budget (or ``max_generations``, or ``max_cpu_s`` CPU seconds of this
    process) is spent; returns its record."""
    from mol_ga import default_ga
    from mol_ga.mol_libraries import random_zinc

    for name, value in (("--starting-population-size", starting_population_size), ("--population-size", population_size),
                        ("--offspring-size", offspring_size), ("--max-generations", max_generations)):
        if value < 1:
            raise PeerError(f"{name} must be at least 1, got {value}")
    if max_cpu_s is not None and not max_cpu_s > 0:
        raise PeerError(f"--max-cpu-s must be a positive number of seconds, got {max_cpu_s}")
    task = resolve_task(task_name)
    lock = prepare_run_dir(out, overwrite)  # noqa: F841 (held until the process ends)
    oracle = open_oracle(task, out, budget)
    rng = random.Random(seed)
    start = time.perf_counter()
    objective = AccountedObjective(oracle, max_cpu_s)
    try:
        starting = random_zinc(starting_population_size, rng)
        default_ga(starting_population_smiles=starting, scoring_function=objective,
                   max_generations=max_generations, offspring_size=offspring_size, population_size=population_size,
                   rng=rng, logger=logging.getLogger("mol_ga_peer"))
        reason = "max_generations"
    except BudgetSpent:
        reason = "oracle budget"
    except CpuCapSpent:
        reason = "cpu cap"
    finally:
        oracle.scorer.close()
    wall = time.perf_counter() - start
    record = PeerRecord(
        peer="mol_ga", version=f"mol-ga {version('mol-ga')}", task=task.name, task_sha256=task.sha256, budget=budget,
        seed=seed, settings={"starting_population": "mol_ga.mol_libraries.random_zinc (ZINC 250k)",
                             "starting_population_size": starting_population_size, "population_size": population_size,
                             "offspring_size": offspring_size, "max_generations": max_generations,
                             "max_cpu_s": max_cpu_s},
        oracle_calls=oracle.calls, wall_s=wall, stop_reason=reason, cpu_s=objective.cpu_s())
    record.write(out)
    return record


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    parser.add_argument("--starting-population-size", type=int, default=PMO_SETTINGS["starting_population_size"])
    parser.add_argument("--population-size", type=int, default=PMO_SETTINGS["population_size"])
    parser.add_argument("--offspring-size", type=int, default=PMO_SETTINGS["offspring_size"])
    parser.add_argument("--max-generations", type=int, default=1_000_000,
                        help="a cap; the budget normally ends the run first")
    parser.add_argument("--max-cpu-s", type=float, default=None,
                        help="stop before the next new molecule once the run has used this many CPU seconds "
                             "(default: no cap)")
    args = parser.parse_args(argv)
    try:
        record = run_mol_ga(args.task, args.out, args.budget, args.seed,
                            starting_population_size=args.starting_population_size,
                            population_size=args.population_size, offspring_size=args.offspring_size,
                            max_generations=args.max_generations, max_cpu_s=args.max_cpu_s,
                            overwrite=args.overwrite)
    except PeerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report("Mol GA", record, args.out, resolve_task(args.task), args.budget)
    return 0


def main_with_fixed_hash_seed(argv: Sequence[str]) -> int:
    """:func:`main`, in a process whose ``PYTHONHASHSEED`` is fixed (0 unless set): mol-ga's set order follows
    string hashing, so only then does a seed give one run. Without it the process re-runs itself, fixed."""
    if os.environ.get("PYTHONHASHSEED") is None:
        os.execve(sys.executable, [sys.executable, "-m", "benchlab.peers.mol_ga", *argv],
                  {**os.environ, "PYTHONHASHSEED": "0"})
    return main(argv)


if __name__ == "__main__":
    sys.exit(main_with_fixed_hash_seed(sys.argv[1:]))
