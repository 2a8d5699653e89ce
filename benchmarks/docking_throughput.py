"""Docking throughput: ligands/s against worker count, overhead against plain Vina, scaling efficiency.

    python benchmarks/docking_throughput.py --ligands 12 --workers 1,2 --exhaustiveness 1

Baseline ("direct"): one in-process ``vina.Vina`` with maps computed once, docking the same ligands with
the same settings and the same preparation (ETKDG + MMFF + Meeko, in the loop, as any caller must do).
Overhead = pool(1 worker) time / direct time - 1 (aim <= 5 %). Efficiency at w workers =
rate(w) / (w * rate(1)) (aim >= 0.85 at 15 workers). Worker start-up (maps) is reported apart, as it is
paid once per run. The receptor defaults to ClpP 7UVU from ../shared (the SYNTH box), else dockstring DRD2.
Ligands are the first N of tests/data/moses_sample.smi (MOSES test split).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from mara_chem.scoring.workers.executors import available_cores, build_executor
from mara_chem.scoring.docking.ligand_prep import prepare_ligand
from mara_chem.scoring.docking.targets import DockingTarget, resolve_target
from mara_chem.scoring.docking.vina_runner import DockingSettings, VinaWorker

REPO = Path(__file__).resolve().parents[1]
CLPP = REPO.parent / "shared" / "data" / "receptors" / "clpp_7uvu" / "7uvu-2-monomers-pdbfixer.pdbqt"
CLPP_BOX = ((-29.497, 72.553, 15.125), (20.0, 20.0, 20.0))


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", help="dockstring target name (default: ClpP 7UVU from ../shared, else DRD2)")
    ap.add_argument("--receptor", type=Path, help="a ClpP 7UVU PDBQT elsewhere (docked in the SYNTH box)")
    ap.add_argument("--ligands", type=int, default=12)
    ap.add_argument("--workers", default=None, help="comma list, default 1,2,4,.. up to the cores")
    ap.add_argument("--exhaustiveness", type=int, default=1)
    ap.add_argument("--executor", default="pool", choices=["pool", "ray"])
    ap.add_argument("--json", type=Path, help="also write the results here")
    return ap.parse_args()


def pick_target(name: str | None, receptor: Path | None = None) -> DockingTarget:
    if receptor is not None:
        return resolve_target(None, receptor, *CLPP_BOX)
    if name is None and CLPP.is_file():
        return resolve_target(None, CLPP, *CLPP_BOX)
    return resolve_target(name or "DRD2", None)


def direct_vina(settings: DockingSettings, smiles: list[str]) -> tuple[float, float, list[float | None]]:
    """Plain Vina in this process: (maps seconds, docking seconds incl. preparation, scores)."""
    import tempfile

    from vina import Vina

    t0 = time.perf_counter()
    v = Vina(sf_name=settings.scoring_function, cpu=1, seed=settings.seed, verbosity=0)
    with tempfile.NamedTemporaryFile("w", suffix=".pdbqt") as handle:
        handle.write(settings.receptor_pdbqt)
        handle.flush()
        v.set_receptor(handle.name)
    v.compute_vina_maps(center=list(settings.center), box_size=list(settings.size), spacing=settings.spacing)
    t1 = time.perf_counter()
    scores: list[float | None] = []
    for smi in smiles:
        try:
            ligand = prepare_ligand(smi, settings.ph, settings.protonation, settings.seed)
            v.set_ligand_from_string(ligand.pdbqt)
            v.dock(exhaustiveness=settings.exhaustiveness, n_poses=settings.n_poses)
            scores.append(float(v.energies(n_poses=1)[0][0]))
        except Exception:
            scores.append(None)
    return t1 - t0, time.perf_counter() - t1, scores


def run_executor(name: str, settings: DockingSettings, smiles: list[str], workers: int) -> tuple[float, float, list]:
    """(start-up seconds, docking seconds, scores) for one executor and worker count."""
    with build_executor(name, settings, n_workers=workers, timeout_s=3600.0, worker_cls=VinaWorker) as executor:
        t0 = time.perf_counter()
        executor.start()
        t1 = time.perf_counter()
        outcomes = executor.map(smiles)
        return t1 - t0, time.perf_counter() - t1, [o.score for o in outcomes]


def main() -> None:
    args = parse_args()
    target = pick_target(args.target, args.receptor)
    settings = DockingSettings(
        target.name, target.receptor.read_text(), target.center, target.size, exhaustiveness=args.exhaustiveness
    )
    lines = (REPO / "tests" / "data" / "moses_sample.smi").read_text().split()
    smiles = lines[: args.ligands]
    cores = available_cores()
    counts = [int(w) for w in args.workers.split(",")] if args.workers else sorted({1, *[2**i for i in range(1, 8) if 2**i <= cores], cores})

    maps_s, direct_s, direct_scores = direct_vina(settings, smiles)
    rows = []
    for w in counts:
        start_s, dock_s, scores = run_executor(args.executor, settings, smiles, w)
        rows.append({"workers": w, "startup_s": start_s, "dock_s": dock_s, "ligands_per_s": len(smiles) / dock_s,
                     "same_scores_as_direct": scores == direct_scores})
    base = next((r for r in rows if r["workers"] == 1), None)
    for r in rows:
        r["efficiency"] = r["ligands_per_s"] / (r["workers"] * base["ligands_per_s"]) if base else None
    overhead = base["dock_s"] / direct_s - 1 if base else None

    print(f"target {target.name}, box {target.size}, exhaustiveness {args.exhaustiveness}, {len(smiles)} ligands, "
          f"{cores} cores ({platform.node()}), executor {args.executor}")
    print(f"direct Vina: maps {maps_s:.1f} s, {direct_s / len(smiles):.2f} s/ligand, {len(smiles) / direct_s:.3f} ligands/s")
    print("| workers | start-up s | ligands/s | s/ligand/worker | efficiency | scores = direct |")
    print("|---:|---:|---:|---:|---:|:--:|")
    for r in rows:
        eff = f"{r['efficiency']:.2f}" if r["efficiency"] is not None else "-"
        print(f"| {r['workers']} | {r['startup_s']:.1f} | {r['ligands_per_s']:.3f} | "
              f"{r['workers'] * r['dock_s'] / len(smiles):.2f} | {eff} | {'yes' if r['same_scores_as_direct'] else 'NO'} |")
    if overhead is not None:
        print(f"overhead of the 1-worker {args.executor} against direct Vina: {100 * overhead:+.1f} %")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"target": target.name, "exhaustiveness": args.exhaustiveness,
                                         "ligands": len(smiles), "cores": cores, "direct_s": direct_s,
                                         "direct_maps_s": maps_s, "overhead": overhead, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
