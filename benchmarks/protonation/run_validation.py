"""Dominant microspecies at pH 7.4 of 59 drugs (``drugs.csv``: literature pKa values and their sources) against
each installed protonation tool, with the pKa the rules estimate for each site. A state is compared as (positive charges, negative charges); where a pKa lies
within 0.4 of the pH both states are accepted (``expected`` lists them, "1:0|0:0").

    python benchmarks/protonation/run_validation.py --set drugs|holdout|piperidines   # writes results_<set>.md/.csv

Exits 1 if the default tool (``pka_rules``) gets fewer than 90 % right.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import platform
import importlib.util
import sys
from pathlib import Path

from rdkit import Chem

HERE = Path(__file__).resolve().parent
TOOLS = ("pka_rules", "dimorphite", "molscrub", "openbabel")


NITRO = Chem.MolFromSmarts("[N+](=O)[O-]")


def charges(mol: Chem.Mol) -> str:
    """'positive:negative' ionised groups (a nitro group's formal charges are not an ionisation)."""
    nitro = {i for match in mol.GetSubstructMatches(NITRO) for i in match}
    pos = sum(1 for a in mol.GetAtoms() if a.GetFormalCharge() > 0 and a.GetIdx() not in nitro)
    neg = sum(1 for a in mol.GetAtoms() if a.GetFormalCharge() < 0 and a.GetIdx() not in nitro)
    return f"{pos}:{neg}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument("--ph", type=float, default=7.4)
    parser.add_argument("--set", default="drugs", choices=["drugs", "holdout", "piperidines"],
                        help="drugs.csv (the set the rules were written against), holdout.csv (written after) or "
                             "piperidines.csv (N-alkyl piperidines and sulfonyl piperazines, written after the "
                             "ring-path corrections)")
    args = parser.parse_args(argv)
    from mara_chem.scoring.docking.pka_rules import charge_state
    from mara_chem.scoring.docking.protonation import PROTONATORS, protonate

    tools = [t for t in TOOLS if t in PROTONATORS.names() and importlib.util.find_spec(PROTONATORS.get(t).module or "rdkit")]
    rows = list(csv.DictReader((HERE / f"{args.set}.csv").open()))
    results = []
    for row in rows:
        mol = Chem.MolFromSmiles(row["SMILES"])
        accepted = row["expected"].split("|")
        out = {"name": row["name"], "class": row["class"], "pKa": row["pKa"], "expected": row["expected"],
               "rules_pKa": "; ".join(f"{s.kind} {s.pka:.1f}" for s, _ in charge_state(mol, args.ph)[1])}
        for tool in tools:
            try:
                state = protonate(mol, args.ph, tool)
                got = charges(state)
                out[f"{tool}_smiles"] = Chem.MolToSmiles(state)
            except Exception as exc:  # a tool that fails on a molecule counts as wrong
                got = f"error: {type(exc).__name__}"
            out[tool] = got
            out[f"{tool}_ok"] = got in accepted
        results.append(out)
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / f"results_{args.set}.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(results[0]))
        writer.writeheader()
        writer.writerows(results)
    score = {t: sum(r[f"{t}_ok"] for r in results) for t in tools}
    lines = [f"# Dominant state at pH {args.ph}: {len(results)} drugs ({args.set}.csv)",
             "", f"Measured {datetime.date.today().isoformat()} ({platform.machine()} CPU). "
             f"Command: `python benchmarks/protonation/run_validation.py --set {args.set}`. State = (positive:negative charges); "
             "`|` separates states accepted when a pKa is within 0.4 of the pH.", "",
             "| tool | right | share |", "|---|---:|---:|",
             *(f"| {t} | {score[t]}/{len(results)} | {score[t] / len(results):.0%} |" for t in tools), "",
             "| drug | class | pKa (literature) | pKa (rules) | expected | " + " | ".join(tools) + " |",
             "|---|---|---|---|---|" + "---|" * len(tools)]
    for r in results:
        cells = [f"{r[t]}{'' if r[f'{t}_ok'] else ' ✗'}" for t in tools]
        lines.append(f"| {r['name']} | {r['class']} | {r['pKa']} | {r['rules_pKa']} | {r['expected']} | "
                     + " | ".join(cells) + " |")
    (args.out / f"results_{args.set}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if args.set == "holdout" or score.get("pka_rules", 0) >= 0.9 * len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
