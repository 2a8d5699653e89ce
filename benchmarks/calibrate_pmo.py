"""Write the PMO task files (``benchmarks/tasks/pmo/<objective>.toml``) with thresholds calibrated on the prior.

One shared sample of the prior (5,000 SMILES, torch seed 0, the same sample as ``run_benchmark.py
--prior-hit-rates 5000``) is scored once per objective with the task's own scoring section; the thresholds follow
the project's rule (``benchlab.calibration``: strict ≈ 0.5 %, lenient ≈ 2 % of the unique valid samples above
it, rounded to 0.01). Writes the task files and ``calibration.md`` / ``calibration.json`` next to them.

    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/calibrate_pmo.py

The same objectives calibrated on another prior form their own task group (task names must be unique over
the groups, so they carry a suffix): the ZINC 250k prior's set is

    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/calibrate_pmo.py --prior priors/zinc-gru-2x256.prior \
        --out benchmarks/tasks/pmo_zinc --name-suffix _zinc
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from benchlab.calibration import TARGETS, calibrate
from benchlab.paths import DEFAULT_PRIOR as PRIOR
from benchlab.paths import TASK_DIR
from benchlab.prior_rates import sample_prior, task_scores
from benchlab.summary import prior_info
from benchlab.tables import repo_relative
from benchlab.tasks import Task

DESCRIPTIONS = {
    "celecoxib_rediscovery": "Tanimoto similarity (ECFP4) to celecoxib; 1 only for celecoxib itself",
    "troglitazone_rediscovery": "Tanimoto similarity (ECFP4) to troglitazone; 1 only for troglitazone itself",
    "thiothixene_rediscovery": "Tanimoto similarity (ECFP4) to thiothixene; 1 only for thiothixene itself",
    "albuterol_similarity": "Tanimoto similarity (FCFP4) to albuterol, clipped: 1 from 0.75 on",
    "mestranol_similarity": "Tanimoto similarity (atom pairs) to mestranol, clipped: 1 from 0.75 on",
    "isomers_c7h8n2o2": "closeness of the molecular formula to C7H8N2O2 (Gaussians on element counts)",
    "isomers_c9h10n2o2pf2cl": "closeness of the molecular formula to C9H10N2O2PF2Cl (Gaussians on element counts)",
    "median1": "geometric mean of Tanimoto similarities (ECFP4) to camphor and menthol",
    "median2": "geometric mean of Tanimoto similarities (ECFP6) to tadalafil and sildenafil",
    "osimertinib_mpo": "similar to osimertinib (FCFP4) but not too similar (ECFP6), TPSA over 100, logP under 1",
    "fexofenadine_mpo": "similar to fexofenadine (atom pairs), TPSA over 90, logP under 4",
    "ranolazine_mpo": "similar to ranolazine (atom pairs), logP under 7, TPSA over 95, one fluorine",
    "perindopril_mpo": "similar to perindopril (ECFP4) with two aromatic rings",
    "amlodipine_mpo": "similar to amlodipine (ECFP4) with three rings",
    "sitagliptin_mpo": "dissimilar to sitagliptin (ECFP4) with its logP, TPSA and formula C16H15F6N5O",
    "zaleplon_mpo": "similar to zaleplon (ECFP4) with formula C19H17N3O2",
    "valsartan_smarts": "valsartan's SMARTS present, with sitagliptin's logP, TPSA and Bertz complexity",
    "deco_hop": "keep the quinazoline scaffold, change the decorations, stay pharmacophore-similar (PHCO)",
    "scaffold_hop": "keep the decorations, change the quinazoline scaffold, stay pharmacophore-similar (PHCO)",
    "qed": "QED (quantitative estimate of drug-likeness)",
}
REGIONS = {  # the two references of a median task: the nearest one (ECFP4) says which side a hit leans to
    "median1": [("camphor", "CC1(C)C2CCC1(C)C(=O)C2"), ("menthol", "CC(C)C1CCC(C)CC1O")],
    "median2": [("tadalafil", "O=C1N(CC(N2C1CC3=C(C2C4=CC5=C(OCO5)C=C4)NC6=C3C=CC=C6)=O)C"),
                ("sildenafil", "CCCC1=NN(C2=C1N=C(NC2=O)C3=C(C=CC(=C3)S(=O)(=O)N4CCN(CC4)C)OCC)C")],
}


def fmt(threshold: float) -> str:
    """A threshold with two decimals, or three where the calibration needed them."""
    return f"{threshold:.2f}" if round(threshold, 2) == threshold else f"{threshold:.3f}"


def scoring(objective: str) -> dict:
    """One Guacamol endpoint, weight 1, no transform: the task score is guacamol's own score."""
    return {"type": "arithmetic_mean",
            "component": [{"Guacamol": {"endpoint": [{"name": objective, "weight": 1,
                                                      "params": {"objective": objective}}]}}]}


def task_text(objective: str, cal: dict, prior: str, n: int, unique: int, seed: int, suffix: str = "") -> str:
    """The task file: a comment with the calibration, the [task] table and the [scoring] section."""
    regions = REGIONS.get(objective, [])
    lines = [
        f"# PMO task: the GuacaMol objective `{objective}`, scored by the guacamol package (see README.md).",
        f"# Thresholds [lenient, strict]: the scores above which ~{TARGETS['lenient']:.0%} / "
        f"~{TARGETS['strict']:.1%} of the unique valid prior",
        f"# samples lie (98th / 99.5th percentile of {unique} unique valid of {n} SMILES sampled from",
        f"# {repo_relative(prior)}, seed {seed}), rounded to 0.01; prior hit rates {cal['rate@lenient']:.2%} / "
        f"{cal['rate@strict']:.2%}.",
    ]
    if cal["note"]:
        lines.append(f"# {cal['note']}.")
    lines += ["# Written by benchmarks/calibrate_pmo.py (calibration.md); edit that script, not this file.", "",
              "[task]", f'name = "{objective}{suffix}"', f'description = "{DESCRIPTIONS[objective]}"',
              f"thresholds = [{fmt(cal['lenient'])}, {fmt(cal['strict'])}]   # lenient, strict",
              f'regions = "{"nearest_reference" if regions else "none"}"']
    for name, smiles in regions:
        lines += ["", "[[task.region]]", f'name = "{name}"', f'smiles = "{smiles}"']
    lines += ["", "[scoring]", 'type = "arithmetic_mean"   # one endpoint of weight 1: the total is its raw value',
              "", "[[scoring.component]]", "[scoring.component.Guacamol]", "[[scoring.component.Guacamol.endpoint]]",
              f'name = "{objective}"', "weight = 1", f'params.objective = "{objective}"', ""]
    return "\n".join(lines)


def table(rows: list[dict], info: dict) -> str:
    """calibration.md: per objective, quantiles, thresholds, prior hit rates and scoring time."""
    p = info["prior"]
    lines = [f"# PMO task thresholds, calibrated on the prior\n",
             f"{info['n']} SMILES sampled from `{repo_relative(p['path'])}` (sha256 `{p['sha256'][:16]}…`, "
             f"epochs {p.get('epochs')}), torch seed {info['seed']}: {info['valid']} valid, {info['unique']} unique "
             "valid, each scored once per objective with the task's scoring section (guacamol's own score). "
             f"Rule: strict = 99.5th, lenient = 98th percentile, rounded to 0.01 (`benchlab/calibration.py`); "
             "rates = hits / unique valid. Time: scoring wall time per molecule on one core (machine shared with "
             f"a running grid). Command: `{info['command']}`.\n",
             "| objective | median | q90 | q98 | q99.5 | q99.9 | max | = 0 | lenient | strict | rate ≥ lenient "
             "| rate ≥ strict | ms / mol | note |", "|" + "---|" * 14]
    for r in rows:
        c = r["calibration"]
        lines.append(f"| {r['objective']} | {c['q50']:.3f} | {c['q90']:.3f} | {c['q98']:.3f} | {c['q99.5']:.3f} | "
                     f"{c['q99.9']:.3f} | {c['max']:.3f} | {c['zero']:.1%} | {fmt(c['lenient'])} | {fmt(c['strict'])} | "
                     f"{c['rate@lenient']:.2%} | {c['rate@strict']:.2%} | {r['ms_per_molecule']:.2f} | "
                     f"{c['note'] or '–'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--prior", default=str(PRIOR))
    p.add_argument("--n", type=int, default=5000, help="SMILES sampled from the prior (one shared sample)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--objectives", nargs="+", default=list(DESCRIPTIONS))
    p.add_argument("--out", default=str(TASK_DIR / "pmo"), help="folder of the task files and the table")
    p.add_argument("--name-suffix", default="", help="appended to each task name (a second calibration's group)")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    canon, unique = sample_prior(args.prior, args.n, args.seed)
    rows = []
    for objective in args.objectives:
        probe = Task(objective, "", (0.01, 0.02), scoring(objective), "none")  # thresholds do not enter scores
        start = time.perf_counter()
        scores = task_scores(probe, unique, args.prior, out)
        seconds = time.perf_counter() - start
        cal = calibrate(scores)
        rows.append({"objective": objective, "ms_per_molecule": 1000 * seconds / len(unique), "calibration": cal})
        (out / f"{objective}.toml").write_text(task_text(objective, cal, args.prior, args.n, len(unique), args.seed,
                                                         args.name_suffix))
        print(f"{objective}: [{fmt(cal['lenient'])}, {fmt(cal['strict'])}] rates {cal['rate@lenient']:.2%} / "
              f"{cal['rate@strict']:.2%}, {rows[-1]['ms_per_molecule']:.2f} ms/mol {cal['note']}", flush=True)
    command = "python benchmarks/calibrate_pmo.py " + " ".join(sys.argv[1:] if argv is None else argv)
    info = {"command": command.strip(), "prior": prior_info(args.prior), "n": args.n, "seed": args.seed,
            "valid": sum(c is not None for c in canon), "unique": len(unique), "targets": TARGETS, "objectives": rows}
    (out / "calibration.json").write_text(json.dumps(info, indent=2))
    (out / "calibration.md").write_text(table(rows, info))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
