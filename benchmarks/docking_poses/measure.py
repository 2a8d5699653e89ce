"""Does Vina's best score depend on how many poses it keeps? DRD2 (dockstring receptor and box), 20 ligands.

For each ligand of ``drd2_ligands.csv`` (10 DRD2 actives, 10 decoys) this docks with ``n_poses`` 1, 9 and
20 at seed 1, and with ``n_poses`` 9 at seeds 2 and 3 (the seed noise), through mara-chem's own worker
(``VinaWorker``: the same ligand preparation and best-energy rule as a run). It writes ``results.csv`` (one
row per ligand) and ``summary.md`` (the check and the cost), and exits 1 if a ligand's best score moves
between 9 and 20 poses by more than Vina's seed noise (the largest range over the three seeds at 9 poses,
over all ligands, which is how far a run's number can move by chance alone).

    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/docking_poses/measure.py --exhaustiveness 4
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ligands", type=Path, default=HERE / "drd2_ligands.csv")
    parser.add_argument("--exhaustiveness", type=int, default=4)
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument("--limit", type=int, default=None, help="first N ligands only (a quick try)")
    args = parser.parse_args(argv)

    from mara_chem.scoring.docking.targets import dockstring_target
    from mara_chem.scoring.docking.vina_runner import DockingSettings, VinaWorker

    with args.ligands.open() as handle:
        ligands = list(csv.DictReader(handle))[: args.limit]
    target = dockstring_target("DRD2")
    base = DockingSettings(receptor_name="DRD2", receptor_pdbqt=target.receptor.read_text(),
                           center=tuple(target.center), size=tuple(target.size),  # type: ignore[arg-type]
                           exhaustiveness=args.exhaustiveness)
    # (label, seed, n_poses); one worker per seed (its maps computed once), n_poses is a per-dock argument
    runs = [("p1_s1", 1, 1), ("p9_s1", 1, 9), ("p20_s1", 1, 20), ("p9_s2", 2, 9), ("p9_s3", 3, 9)]
    workers = {seed: VinaWorker(dataclasses.replace(base, seed=seed)) for seed in sorted({r[1] for r in runs})}
    rows, seconds = [], {label: [] for label, _, _ in runs}
    for lig in ligands:
        row: dict[str, object] = {"id": lig["id"], "role": lig["role"]}
        for label, seed, n_poses in runs:
            worker = workers[seed]
            worker.settings = dataclasses.replace(worker.settings, n_poses=n_poses)
            start = time.perf_counter()
            outcome = worker.run(lig["SMILES"])
            seconds[label].append(time.perf_counter() - start)
            if not outcome.ok:
                raise SystemExit(f"{lig['id']}: {outcome.reason}")
            row[label] = round(float(outcome.score), 3)  # type: ignore[arg-type]
        seeds9 = [float(row[k]) for k in ("p9_s1", "p9_s2", "p9_s3")]  # type: ignore[arg-type]
        row["seed_range_9"] = round(max(seeds9) - min(seeds9), 3)
        row["delta_9_20"] = round(float(row["p20_s1"]) - float(row["p9_s1"]), 3)  # type: ignore[arg-type]
        row["delta_1_9"] = round(float(row["p1_s1"]) - float(row["p9_s1"]), 3)  # type: ignore[arg-type]
        rows.append(row)
        print(row, flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "results.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    noise = max(float(r["seed_range_9"]) for r in rows)  # type: ignore[arg-type]
    worst = max(rows, key=lambda r: abs(float(r["delta_9_20"])))  # type: ignore[arg-type]
    worst1 = max(rows, key=lambda r: abs(float(r["delta_1_9"])))  # type: ignore[arg-type]
    passed = abs(float(worst["delta_9_20"])) <= noise  # type: ignore[arg-type]
    lines = [
        f"# Best Vina score vs n_poses, DRD2 (dockstring box), {len(rows)} ligands, exhaustiveness {args.exhaustiveness}",
        "",
        f"Command: `OMP_NUM_THREADS=1 nice -n 5 python benchmarks/docking_poses/measure.py --exhaustiveness "
        f"{args.exhaustiveness}` ({platform.machine()}, one Vina thread, shared 2-core machine).",
        "",
        f"- seed noise (largest range of the best score over seeds 1-3 at 9 poses): {noise:.3f} kcal/mol",
        f"- largest |best(20 poses) - best(9 poses)|, seed 1: {abs(float(worst['delta_9_20'])):.3f} kcal/mol "  # type: ignore[arg-type]
        f"({worst['id']}); check {'PASSED' if passed else 'FAILED'}",
        f"- largest |best(1 pose) - best(9 poses)|, seed 1: {abs(float(worst1['delta_1_9'])):.3f} kcal/mol ({worst1['id']}); "  # type: ignore[arg-type]
        f"ligands that move by more than 0.1: {sum(abs(float(r['delta_1_9'])) > 0.1 for r in rows)}",  # type: ignore[arg-type]
        "",
        "| n_poses, seed | mean s per ligand | median s |",
        "|---|---:|---:|",
        *(f"| {label} | {statistics.mean(v):.2f} | {statistics.median(v):.2f} |" for label, v in seconds.items()),
        "",
        "| ligand | role | 1 pose | 9 poses | 20 poses | 9 poses seed 2 | 9 poses seed 3 | seed range | Δ 9→20 |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        *(f"| {r['id']} | {r['role']} | {r['p1_s1']} | {r['p9_s1']} | {r['p20_s1']} | {r['p9_s2']} | {r['p9_s3']} | "
          f"{r['seed_range_9']} | {r['delta_9_20']} |" for r in rows),
    ]
    (args.out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
