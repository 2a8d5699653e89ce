"""How many retro templates rdchiral can use on the validation molecules.

    PYTHONPATH=$PWD python benchmarks/retro_validation/template_coverage.py [--per-set N]

Every template of the default set is initialised in rdchiral and run on every molecule of ``molecules.csv``,
``holdout/``, ``holdout2/`` and ``holdout3/``; printed: how many initialise, how many run on every molecule
without an exception (the search skips a template that raises, silently), and how many propose something for
at least one molecule. A template that never fires on 279 drugs and natural products is not wrong by that
alone, but a template that raises is lost to every search.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
from pathlib import Path

from rdchiral.initialization import rdchiralReactants, rdchiralReaction
from rdchiral.main import rdchiralRun
from rdkit import RDLogger

from mara_chem.scoring.retro.templates import load_templates

HERE = Path(__file__).resolve().parent
SETS = ("", "holdout", "holdout2", "holdout3")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-set", type=int, default=None, help="only the first N molecules of each set")
    args = parser.parse_args(argv)
    RDLogger.DisableLog("rdApp.*")
    targets = []
    for name in SETS:
        with open(HERE / name / "molecules.csv", newline="") as handle:
            rows = list(csv.DictReader(handle))[:args.per_set]
        for row in rows:
            with contextlib.suppress(Exception):
                targets.append(rdchiralReactants(row["smiles"]))
    templates = load_templates().templates
    initialised = clean = fired = 0
    for template in templates:
        try:
            reaction = rdchiralReaction(template.retro_smarts)
        except Exception:
            continue
        initialised += 1
        raised = proposed = False
        for target in targets:
            try:
                with contextlib.redirect_stdout(io.StringIO()):  # rdchiral prints its debugging to stdout
                    proposed = bool(rdchiralRun(reaction, target, combine_enantiomers=False)) or proposed
            except Exception:
                raised = True
        clean += not raised
        fired += proposed
    print(f"{len(targets)} molecules, {len(templates)} templates: {initialised} initialise in rdchiral, "
          f"{clean} run on every molecule without an exception, {fired} propose for at least one molecule")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
