"""DRD2 enrichment: do Vina scores separate D2 actives from property-matched decoys, and per heavy atom?

    mara-chem data zinc                       # writes data/zinc250k.smi
    OMP_NUM_THREADS=1 nice -n 19 python benchmarks/drd2_enrichment/run.py [--decoys-per-active 3]

Actives: the ten D2 ligands of ``benchmarks/docking_poses/drd2_ligands.csv`` (role ``active``). Decoys are
chosen here, DUD-E style, from a seeded sample of ZINC 250k: for each active, molecules with the same net
charge at pH 7.4 (``pka_rules``), HBD and HBA within 1, rotatable bonds within 2, molecular weight within 40
and cLogP within 1, topologically unlike every active (Morgan radius-2 Tanimoto below 0.35), the nearest in
scaled property distance first, none used twice. Every ligand is docked with ``vina_docking`` (dockstring's
DRD2 receptor and box, the same settings for all) and its best pose checked by ``vina_salt_bridge`` (a
cationic N within 4 A of Asp114's carboxylate) from the same cache, so nothing is docked twice.

Writes ``decoys.csv`` (the decoys and the active each matches), ``results.csv`` (per ligand: properties,
score, score per heavy atom, salt bridge) and ``summary.md``: AUROC of the score (lower is better) and of
the score per heavy atom, actives against the matched decoys, and how many of each make the salt bridge.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import random
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

from rdkit import Chem, DataStructs, RDLogger  # noqa: E402
from rdkit.Chem import Crippen, Descriptors, rdFingerprintGenerator, rdMolDescriptors  # noqa: E402

from mara_chem.scoring.docking.pka_rules import charge_state  # noqa: E402

#: how far a decoy may be from its active (the DUD-E windows, a little wider for a 250k pool)
WINDOWS = {"hbd": 1, "hba": 1, "rotb": 2, "mw": 40.0, "logp": 1.0}
SCALE = {"mw": 40.0, "logp": 1.0, "hbd": 1.0, "hba": 1.0, "rotb": 2.0}
MAX_TANIMOTO = 0.35
_MORGAN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)


def properties(mol: Chem.Mol) -> dict[str, float]:
    return {"mw": Descriptors.MolWt(mol), "logp": Crippen.MolLogP(mol), "hbd": rdMolDescriptors.CalcNumHBD(mol),
            "hba": rdMolDescriptors.CalcNumHBA(mol), "rotb": rdMolDescriptors.CalcNumRotatableBonds(mol)}


def net_charge(mol: Chem.Mol, ph: float = 7.4) -> int:
    return sum(a.GetFormalCharge() for a in charge_state(mol, ph)[0].GetAtoms())


def auroc(actives: np.ndarray, decoys: np.ndarray) -> float:
    """P(an active scores better, i.e. lower, than a decoy), ties half: the Mann-Whitney form of the AUROC."""
    a, d = actives[:, None], decoys[None, :]
    return float(((a < d).sum() + 0.5 * (a == d).sum()) / (len(actives) * len(decoys)))


def choose_decoys(actives: pd.DataFrame, zinc: list[str], per_active: int, pool: int, seed: int) -> pd.DataFrame:
    RDLogger.DisableLog("rdApp.*")
    rng = random.Random(seed)
    sample = rng.sample(zinc, min(pool, len(zinc)))
    active_mols = [Chem.MolFromSmiles(s) for s in actives["SMILES"]]
    active_fps = [_MORGAN.GetFingerprint(m) for m in active_mols]
    active_props = [properties(m) | {"charge": net_charge(m)} for m in active_mols]
    candidates = []
    for smi in sample:
        mol = Chem.MolFromSmiles(smi)
        if mol is None:
            continue
        candidates.append((Chem.MolToSmiles(mol), mol, properties(mol)))
    used: set[str] = set()
    rows = []
    for active_id, props in zip(actives["id"], active_props):
        near = [(c, m, p) for c, m, p in candidates if c not in used
                and all(abs(p[k] - props[k]) <= w for k, w in WINDOWS.items())]
        near.sort(key=lambda item: sum(((item[2][k] - props[k]) / SCALE[k]) ** 2 for k in SCALE))
        picked = 0
        for smi, mol, p in near:
            if picked == per_active:
                break
            if max(DataStructs.BulkTanimotoSimilarity(_MORGAN.GetFingerprint(mol), active_fps)) >= MAX_TANIMOTO:
                continue
            if net_charge(mol) != props["charge"]:
                continue
            used.add(smi)
            picked += 1
            rows.append({"id": f"decoy_{active_id}_{picked}", "role": "decoy", "matches": active_id, "SMILES": smi,
                         **{k: round(v, 2) for k, v in p.items()}, "charge": props["charge"]})
        if picked < per_active:
            print(f"{active_id}: only {picked} decoys within the windows", flush=True)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zinc", type=Path, default=Path("data") / "zinc250k.smi")
    parser.add_argument("--actives", type=Path, default=REPO / "benchmarks" / "docking_poses" / "drd2_ligands.csv")
    parser.add_argument("--decoys-per-active", type=int, default=3)
    parser.add_argument("--pool", type=int, default=20000, help="ZINC molecules sampled as the decoy pool")
    parser.add_argument("--seed", type=int, default=0, help="ZINC sample seed")
    parser.add_argument("--exhaustiveness", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args(argv)
    if not args.zinc.is_file():
        parser.error(f"{args.zinc} not found: `mara-chem data zinc` writes data/zinc250k.smi")
    from mara_chem.scoring.components.docking import VinaDocking
    from mara_chem.scoring.components.pose_filter import VinaSaltBridge

    actives = pd.read_csv(args.actives)
    actives = actives[actives["role"] == "active"][["id", "role", "SMILES"]].reset_index(drop=True)
    zinc = [line.split()[0] for line in args.zinc.read_text().splitlines() if line.strip()]
    t0 = time.perf_counter()
    decoys = choose_decoys(actives, zinc, args.decoys_per_active, args.pool, args.seed)
    if decoys.empty:
        raise SystemExit(f"no molecule of {args.zinc} (pool {args.pool}) falls within the property windows of any "
                         "active: give a larger --pool or another --zinc")
    args.out.mkdir(parents=True, exist_ok=True)
    decoys.to_csv(args.out / "decoys.csv", index=False)
    print(f"{len(decoys)} decoys chosen in {time.perf_counter() - t0:.0f} s", flush=True)
    ligands = pd.concat([actives.assign(matches=actives["id"]), decoys[["id", "role", "matches", "SMILES"]]],
                        ignore_index=True)
    ligands["SMILES"] = [Chem.MolToSmiles(Chem.MolFromSmiles(s)) for s in ligands["SMILES"]]
    cache = args.out / "parts" / "docking.sqlite"
    cache.parent.mkdir(exist_ok=True)
    common = {"target": "DRD2", "exhaustiveness": args.exhaustiveness, "seed": 1, "executor": "serial",
              "cache_path": str(cache), "timeout_s": 1200.0}
    docking = VinaDocking(common | {"pose_sdf": str(args.out / "parts" / "poses.sdf")})
    bridge = VinaSaltBridge(common)
    t0 = time.perf_counter()
    try:
        scores = docking(ligands["SMILES"].tolist())
        contacts = bridge(ligands["SMILES"].tolist())
    finally:
        docking.close()
        bridge.close()
    wall = time.perf_counter() - t0
    ligands["score"] = scores.values
    ligands["heavy_atoms"] = [Chem.MolFromSmiles(s).GetNumHeavyAtoms() for s in ligands["SMILES"]]
    ligands["score_per_heavy_atom"] = ligands["score"] / ligands["heavy_atoms"]
    ligands["salt_bridge"] = contacts.values
    ligands["salt_bridge_note"] = [(r or "").removeprefix("vina_salt_bridge: ") for r in contacts.reasons]
    ligands.to_csv(args.out / "results.csv", index=False)
    ok = ligands[np.isfinite(ligands["score"])]
    act, dec = ok[ok["role"] == "active"], ok[ok["role"] == "decoy"]
    lines = [
        "# DRD2 enrichment: actives against property-matched ZINC decoys",
        "",
        f"Measured {datetime.date.today().isoformat()} on a {platform.machine()} CPU, one Vina thread, shared 2-core "
        f"machine ({wall / 60:.1f} min docking). Command: `OMP_NUM_THREADS=1 nice -n 19 python "
        f"benchmarks/drd2_enrichment/run.py {' '.join(argv if argv is not None else sys.argv[1:])}`.",
        "",
        f"{len(act)} actives, {len(dec)} decoys ({args.decoys_per_active} per active from {args.pool:,} ZINC 250k "
        f"molecules, seed {args.seed}: same charge at pH 7.4, HBD/HBA within 1, rotatable bonds within 2, MW within "
        f"40, cLogP within 1, Tanimoto to every active < {MAX_TANIMOTO}); dockstring DRD2 box, exhaustiveness "
        f"{args.exhaustiveness}, seed 1; {int((~np.isfinite(ligands['score'])).sum())} docking failures.",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| AUROC, Vina score | {auroc(act['score'].to_numpy(), dec['score'].to_numpy()):.2f} |",
        f"| AUROC, Vina score per heavy atom | "
        f"{auroc(act['score_per_heavy_atom'].to_numpy(), dec['score_per_heavy_atom'].to_numpy()):.2f} |",
        f"| median score, actives / decoys (kcal/mol) | {act['score'].median():.2f} / {dec['score'].median():.2f} |",
        f"| median heavy atoms, actives / decoys | {act['heavy_atoms'].median():.0f} / {dec['heavy_atoms'].median():.0f} |",
        f"| best pose makes the Asp114 salt bridge, actives | {int(act['salt_bridge'].sum())} of {len(act)} |",
        f"| best pose makes the Asp114 salt bridge, decoys | {int(dec['salt_bridge'].sum())} of {len(dec)} |",
        "",
        "| ligand | role | score | per heavy atom | salt bridge |",
        "|---|---|---:|---:|---|",
        *(f"| {r.id} | {r.role} | {r.score:.2f} | {r.score_per_heavy_atom:.3f} | {r.salt_bridge_note} |"
          for r in ok.itertuples()),
    ]
    (args.out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:16]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
