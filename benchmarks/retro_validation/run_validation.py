"""Validation of the retrosynthesis oracle: solve rate and time per molecule, per group, for both variants.

    mara-chem data building-blocks      # the exact tier (data/enamine_building_blocks.csv)
    nice -n 19 python benchmarks/retro_validation/run_validation.py [--workers 2]

Reads ``molecules.csv`` (groups: ``amide_drug`` drugs whose last step is an amide coupling, ``drug`` drugs
with another short last step, ``natural_product``, ``unbuyable`` molecules built to be unbuyable), searches
every molecule under ``reactions = "amide_only"`` and ``"any"``, each with ``stock_confirmation = "none"``
(molbloom hits count alone) and ``"exact"`` (only the exact tier: Enamine building blocks, common reagents),
with the component's other defaults, and writes ``results.csv`` (one row per molecule, variant and
confirmation), ``routes.md`` (every route, Bloom-only building blocks marked) and ``results.md`` (the
table of docs/oracles.md, "Retrosynthesis"). Each (confirmation, variant) pass is kept under ``parts/`` as it
finishes, named by the settings' fingerprint, and is not searched again while the settings, templates and checks
version stay (delete the folder to start over), so a stopped run resumes; molecules a pass lost to a dead
worker or the executor's hard timeout are searched again on the next start. Times are each molecule's CPU
seconds in its worker (the one-core cost, independent of the machine's load); the limit is the iteration
count, the wall-clock cap only a safety net.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from mara_chem.data.building_blocks import DEFAULT_PATH
from mara_chem.scoring.retro.exact_stock import read_building_blocks
from mara_chem.scoring.retro.search import RetroWorker, RouteOutcome
from mara_chem.scoring.retro.settings import REACTION_SETS, STOCK_CONFIRMATIONS, RetroSettings
from mara_chem.scoring.workers.executors import build_executor

HERE = Path(__file__).resolve().parent

#: reasons a pass records when the executor lost a molecule (a dead worker, the hard timeout)
LOST = ("worker died", "timeout after")
GROUPS = {"amide_drug": "drugs, last step an amide coupling", "drug": "drugs, other short last step",
          "natural_product": "complex natural products", "unbuyable": "molecules built to be unbuyable"}


def formula_mismatches(mols: pd.DataFrame) -> list[str]:
    """Rows whose SMILES does not parse or whose molecular formula is not the one written beside it (a
    ``formula`` column, where the set has one): a hand transcription that lost or gained an atom."""
    from rdkit import Chem
    from rdkit.Chem.rdMolDescriptors import CalcMolFormula

    if "formula" not in mols.columns:
        return []
    wrong = []
    for row in mols.itertuples():
        mol = Chem.MolFromSmiles(row.smiles)
        made = CalcMolFormula(mol) if mol is not None else "unparsable"
        if made != row.formula:
            wrong.append(f"{row.name}: {made}, expected {row.formula}")
    return wrong


def search(smiles: list[str], settings: RetroSettings, workers: int) -> list[RouteOutcome]:
    executor = build_executor("pool" if workers > 1 else "serial", settings, n_workers=workers,
                              timeout_s=2 * settings.time_limit_s + 60, worker_cls=RetroWorker)
    with executor:
        return executor.map(smiles)


def summary_table(df: pd.DataFrame) -> str:
    lines = ["| confirmation | variant | group | molecules | solved | solve rate | solved with Bloom-only blocks |"
             " median CPU s | 95th pct CPU s | iteration-limit ends | safety-cap hits |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for (confirmation, variant, group), part in df.groupby(["confirmation", "variant", "group"], sort=False):
        t = part["seconds"].to_numpy(float)
        bloom = int((part["solved"] & (part["bloom_only"].fillna("") != "")).sum())
        lines.append(f"| {confirmation} | {variant} | {GROUPS[group]} | {len(part)} | {int(part['solved'].sum())} | "
                     f"{part['solved'].mean():.0%} | {bloom} | {np.median(t):.2f} | {np.percentile(t, 95):.2f} | "
                     f"{int(part['reason'].fillna('').str.startswith('iteration limit').sum())} | "
                     f"{int(part['reason'].fillna('').str.contains('safety cap').sum())} |")
    return "\n".join(lines)


def routes_for_review(df: pd.DataFrame) -> str:
    """Every solved molecule's route (reaction names and SMILES, Bloom-only building blocks named) and every
    unsolved one's reason, for a chemist to read."""
    lines = ["# Routes found (for review)", "",
             "Written by `run_validation.py`. *Bloom-only*: a building block that only molbloom's filter (7 % false "
             "positives) holds, not the exact tier (Enamine building blocks, molbloom's common reagents).", ""]
    for (confirmation, variant, group), part in df.groupby(["confirmation", "variant", "group"], sort=False):
        lines += [f"## stock_confirmation = {confirmation}, {variant}: {GROUPS[group]}", ""]
        for row in part.itertuples():
            if row.solved and not int(row.steps):
                lines.append(f"- **{row.name}**: purchasable as such ({row.reason or 'held by the stock'})")
            elif row.solved:
                bloom = f" — Bloom-only: `{row.bloom_only}`" if isinstance(row.bloom_only, str) and row.bloom_only else ""
                lines.append(f"- **{row.name}** ({int(row.steps)} step(s)): " + "; ".join(
                    f"{step.split(': ', 1)[0]}: `{step.split(': ', 1)[1]}`" for step in row.route.split(" | ")) + bloom)
            else:
                lines.append(f"- {row.name}: not solved ({row.reason or 'no reason recorded'})")
        lines.append("")
    return "\n".join(lines) + "\n"


def run_pass(mols: pd.DataFrame, settings: RetroSettings, workers: int) -> pd.DataFrame:
    """One (confirmation, variant) pass over every molecule."""
    t0 = time.perf_counter()
    outcomes = search(mols["smiles"].tolist(), settings, workers)
    print(f"{settings.stock_confirmation}/{settings.reactions}: {len(mols)} molecules in "
          f"{time.perf_counter() - t0:.0f} s wall", flush=True)
    rows = []
    for mol, out in zip(mols.itertuples(), outcomes):
        if not isinstance(out, RouteOutcome):  # the executor's hard timeout or a dead worker
            out = RouteOutcome(out.smiles, seconds=out.seconds, cpu_seconds=out.seconds, reason=out.reason)
        rows.append({"confirmation": settings.stock_confirmation, "variant": settings.reactions, "group": mol.group,
                     "name": mol.name, "solved": out.solved, "steps": out.steps, "wall_s": round(out.seconds, 3),
                     "seconds": round(out.cpu_seconds, 3), "reason": out.reason,
                     "bloom_only": ".".join(out.bloom_only or []),
                     "route": " | ".join(f"{s['name']}: {s['reaction_smiles']}" for s in out.route or [])})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--molecules", type=Path, default=HERE / "molecules.csv")
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=300.0, help="safety cap (s); the iterations are the limit")
    parser.add_argument("--max-iterations", type=int, default=200)
    parser.add_argument("--max-stock-heavy-atoms", type=int, default=30, help="molbloom hits above this are not stock")
    parser.add_argument("--building-blocks", type=Path, default=DEFAULT_PATH, help="the exact tier's building blocks")
    parser.add_argument("--confirmations", nargs="+", default=list(STOCK_CONFIRMATIONS), choices=STOCK_CONFIRMATIONS)
    parser.add_argument("--variants", nargs="+", default=list(REACTION_SETS), choices=REACTION_SETS)
    args = parser.parse_args(argv)
    mols = pd.read_csv(args.molecules)
    wrong = formula_mismatches(mols)
    if wrong:
        parser.error("SMILES that do not match their formula: " + "; ".join(wrong))
    if args.building_blocks.is_file():
        blocks = read_building_blocks(args.building_blocks)
    elif "exact" in args.confirmations:
        parser.error(f"{args.building_blocks} not found: `mara-chem data building-blocks` writes it "
                     "(or run --confirmations none)")
    else:
        blocks = frozenset()
    parts = args.out / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    frames = []
    for variant in sorted(args.variants, key=REACTION_SETS.index, reverse=True):  # amide_only (cheap) first
        for confirmation in args.confirmations:
            settings = RetroSettings(reactions=variant, time_limit_s=args.time_limit,
                                     max_iterations=args.max_iterations,
                                     max_stock_heavy_atoms=args.max_stock_heavy_atoms,
                                     stock_confirmation=confirmation, building_blocks=blocks)
            # keyed by the settings' fingerprint (templates, checks version, stock, libraries): a pass made
            # with other checks is searched again, not read back
            part = parts / f"{confirmation}_{variant}_{settings.fingerprint()[:12]}.csv"
            if not part.exists():
                run_pass(mols, settings, args.workers).to_csv(part, index=False)
            done = pd.read_csv(part, keep_default_na=False, na_values={"steps": [""]})
            lost = done["reason"].str.startswith(LOST)  # the executor's answer, not the search's: search again
            if lost.any():
                print(f"{confirmation}/{variant}: searching again {list(done.loc[lost, 'name'])}", flush=True)
                again = run_pass(mols[mols["name"].isin(done.loc[lost, "name"])], settings, args.workers)
                done = pd.concat([done[~lost], again]).set_index("name").loc[mols["name"]].reset_index()
                done.to_csv(part, index=False)
            frames.append(done)
    df = pd.concat(frames, ignore_index=True)
    df["solved"] = df["solved"].astype(str).eq("True")
    df.to_csv(args.out / "results.csv", index=False)
    (args.out / "routes.md").write_text(routes_for_review(df))
    table = summary_table(df)
    header = (f"{args.max_iterations} iterations (safety cap {args.time_limit:g} s), Retro*, reaction-centre and "
              f"building-block checks, stock zinc-instock-mini (kekulé, stereo-free, stereoisomer and tautomer forms, "
              f"<= {args.max_stock_heavy_atoms} heavy atoms and >= 1 fewer than the target; acyl halides as their acids) "
              f"plus the exact tier ({len(blocks):,} Enamine building blocks from {args.building_blocks.name}, molbloom's "
              f"common reagents); {args.workers} worker(s); measured {datetime.date.today().isoformat()} on a "
              f"{platform.machine()} CPU (`{' '.join(['python', 'benchmarks/retro_validation/run_validation.py', *(argv or sys.argv[1:])])}`)\n\n")
    (args.out / "results.md").write_text(header + table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
