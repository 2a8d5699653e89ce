"""Validation of the retrosynthesis oracle: solve rate and time per molecule, per group, for both variants.

    nice -n 10 python benchmarks/retro_validation/run_validation.py [--workers 2] [--time-limit 10]

Reads ``molecules.csv`` (groups: ``amide_drug`` drugs whose last step is an amide coupling, ``drug`` drugs
with another short last step, ``natural_product``), searches every molecule under ``reactions = "any"``
and ``"amide_only"`` with the component's default settings on the pool executor, and writes
``results.csv`` (one row per molecule and variant) and ``results.md`` (the table quoted in the README).
Times are each molecule's CPU seconds in its worker (the one-core cost, independent of the machine's load);
the time limit itself is wall clock, as in the component, so on a loaded machine pass a larger one.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from mara_chem.scoring.workers.executors import build_executor  # noqa: E402
from mara_chem.scoring.retro.search import RetroWorker, RouteOutcome  # noqa: E402
from mara_chem.scoring.retro.settings import RetroSettings  # noqa: E402

GROUPS = {"amide_drug": "drugs, last step an amide coupling", "drug": "drugs, other short last step",
          "natural_product": "complex natural products"}


def search(smiles: list[str], settings: RetroSettings, workers: int) -> list[RouteOutcome]:
    executor = build_executor("pool" if workers > 1 else "serial", settings, n_workers=workers,
                              timeout_s=2 * settings.time_limit_s + 60, worker_cls=RetroWorker)
    with executor:
        return executor.map(smiles)


def summary_table(df: pd.DataFrame) -> str:
    lines = ["| variant | group | molecules | solved | solve rate | median CPU s | 95th pct CPU s | time-limit hits |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for (variant, group), part in df.groupby(["variant", "group"], sort=False):
        t = part["seconds"].to_numpy(float)
        lines.append(f"| {variant} | {GROUPS[group]} | {len(part)} | {int(part['solved'].sum())} | "
                     f"{part['solved'].mean():.0%} | {np.median(t):.2f} | {np.percentile(t, 95):.2f} | "
                     f"{int(part['reason'].fillna('').str.contains('time limit').sum())} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--molecules", type=Path, default=HERE / "molecules.csv")
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--max-iterations", type=int, default=200)
    parser.add_argument("--max-stock-heavy-atoms", type=int, default=30, help="molbloom hits above this are not stock")
    args = parser.parse_args(argv)
    mols = pd.read_csv(args.molecules)
    rows = []
    for variant in ("amide_only", "any"):
        settings = RetroSettings(reactions=variant, time_limit_s=args.time_limit, max_iterations=args.max_iterations,
                                 max_stock_heavy_atoms=args.max_stock_heavy_atoms)
        t0 = time.perf_counter()
        outcomes = search(mols["smiles"].tolist(), settings, args.workers)
        print(f"{variant}: {len(mols)} molecules in {time.perf_counter() - t0:.0f} s wall", flush=True)
        for mol, out in zip(mols.itertuples(), outcomes):
            if not isinstance(out, RouteOutcome):  # the executor's hard timeout or a dead worker
                out = RouteOutcome(out.smiles, seconds=out.seconds, cpu_seconds=out.seconds, reason=out.reason)
            rows.append({"variant": variant, "group": mol.group, "name": mol.name, "solved": out.solved,
                         "steps": out.steps, "wall_s": round(out.seconds, 3), "seconds": round(out.cpu_seconds, 3),
                         "reason": out.reason,
                         "route": " | ".join(f"{s['name']}: {s['reaction_smiles']}" for s in out.route or [])})
    df = pd.DataFrame(rows)
    df.to_csv(args.out / "results.csv", index=False)
    table = summary_table(df)
    header = (f"time limit {args.time_limit:g} s, {args.max_iterations} iterations, Retro*, "
              f"stock zinc-instock-mini (all kekulé forms, <= {args.max_stock_heavy_atoms} heavy atoms and >= 1 fewer than the target; acyl halides as their acids); {args.workers} worker(s)\n\n")
    (args.out / "results.md").write_text(header + table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
