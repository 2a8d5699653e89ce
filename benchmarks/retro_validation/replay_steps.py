"""Every recorded route step asked again of the reaction-centre checks, without a search.

    PYTHONPATH=$PWD python benchmarks/retro_validation/replay_steps.py [--out step_verdicts.csv]

Reads the routes each validation set recorded (``routes.md`` and ``routes_first_pass.md`` of the tuning set,
``holdout/`` to ``holdout6/``, ``holdout5/exact/``, ``holdout6/exact/``): each step is a template name and
``reactants>>product``. The step's product is given to every template of that name exactly as the search's model
applies it (rdchiral with atom maps, the same outcome filters), the outcome whose reactants are the recorded ones is
taken, and ``reaction_problem`` reads it. One row per step: ``accepted``, ``refused`` (with the reason), or ``not
proposed`` (no template of that name writes those reactants for that product any more). A change to the checks shows
as a diff of this CSV, step by step; it takes seconds, where searching the sets again takes hours.

``--every-template OUT`` also writes, for each distinct recorded product, every outcome of every template with
the verdict the checks give it (thousands of proposals, most of them refused): a wider net for a refactor of
the checks, which should leave that file unchanged too (a minute or two; not committed).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rdkit import Chem, RDLogger

from mara_chem.scoring.retro.model import mapped_proposal, outcome_molecules
from mara_chem.scoring.retro.checks import reaction_problem
from mara_chem.scoring.retro.templates import RetroTemplate, load_templates

HERE = Path(__file__).resolve().parent
#: the sets whose routes are replayed, as folders under this one ("" is the tuning set)
SETS = ("", "holdout", "holdout2", "holdout3", "holdout4", "holdout5", "holdout5/exact", "holdout6", "holdout6/exact")
ROUTE_FILES = ("routes.md", "routes_first_pass.md")
COLUMNS = ("set", "file", "section", "molecule", "step", "template", "reaction", "verdict", "template_index",
           "reason")

_SECTION = re.compile(r"^## stock_confirmation = (\w+), (\w+): (.+)$")
_ROUTE = re.compile(r"^- \*\*(.+?)\*\* \(\d+ step\(s\)\): (.*)$")
_STEP = re.compile(r"(?:^|; )(.+?): `([^`]+)`")


@dataclass(frozen=True)
class RecordedStep:
    """One step of a recorded route: where it was written and what it says."""

    set: str
    file: str
    section: str
    molecule: str
    step: int
    template: str
    reaction: str


def recorded_steps(folder: Path, set_name: str, file_name: str) -> Iterator[RecordedStep]:
    """The steps of every route in one routes file (``run_validation.py``'s format), in file order."""
    path = folder / file_name
    if not path.exists():
        return
    section = ""
    for line in path.read_text().splitlines():
        head = _SECTION.match(line)
        if head:
            section = f"{head.group(1)}/{head.group(2)}"
            continue
        route = _ROUTE.match(line)
        if not route:
            continue
        body = route.group(2).split(" — Bloom-only")[0]
        for k, (template, reaction) in enumerate(_STEP.findall(body), start=1):
            yield RecordedStep(set_name or "tuning", file_name, section, route.group(1), k, template, reaction)


def _canonical(smiles: str) -> str | None:
    """Sorted canonical SMILES of a dot-joined set, or None when a piece does not parse."""
    mols = [Chem.MolFromSmiles(piece) for piece in smiles.split(".")]
    if any(m is None for m in mols):
        return None
    return ".".join(sorted(Chem.MolToSmiles(m) for m in mols))


@lru_cache(maxsize=None)
def _templates_named(name: str) -> tuple[tuple[RetroTemplate, object], ...]:
    from rdchiral.initialization import rdchiralReaction

    compiled = []
    for template in load_templates(None).templates:
        if template.name != name:
            continue
        with contextlib.suppress(Exception):  # the model leaves out what rdchiral cannot initialise too
            compiled.append((template, rdchiralReaction(template.retro_smarts)))
    return tuple(compiled)


@lru_cache(maxsize=None)
def replay(template_name: str, reaction: str) -> tuple[str, str, str]:
    """(verdict, template index, reason) of one recorded step: the first template of that name (file order)
    that writes the recorded reactants and passes, else the first one's refusal, else ``not proposed``."""
    from rdchiral.initialization import rdchiralReactants
    from rdchiral.main import rdchiralRun

    reactants, product = reaction.split(">>")
    wanted = _canonical(reactants)
    product_key = _canonical(product)
    try:
        target = rdchiralReactants(product)
    except Exception:
        return "not proposed", "", "rdchiral cannot read the product"
    n_atoms = Chem.MolFromSmiles(product).GetNumHeavyAtoms()
    refusal: tuple[str, str, str] | None = None
    for template, compiled in _templates_named(template_name):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                found = rdchiralRun(compiled, target, combine_enantiomers=False, return_mapped=True)
        except Exception:
            continue
        if not found:
            continue
        outcomes, mapped = found
        for smiles in outcomes:
            if _canonical(smiles) != wanted:
                continue
            mols = outcome_molecules(smiles)
            if not mols or product_key in {m.smiles for m in mols} \
                    or sum(m.rdkit_mol.GetNumHeavyAtoms() for m in mols) < n_atoms:
                continue  # filtered before the checks, as in the model
            proposal = mapped_proposal(target.reactants, mapped.get(smiles))
            problem = ("no atom-mapped outcome to check" if proposal is None else
                       reaction_problem(template.name, template.reaction_class, template.amide_coupling,
                                        template.forward_smirks, proposal))
            if problem is None:
                return "accepted", str(template.index), ""
            if refusal is None:
                refusal = ("refused", str(template.index), problem)
    return refusal or ("not proposed", "", "no template of this name writes these reactants for this product")


def every_template(products: list[str], out: Path) -> int:
    """Every template's outcomes for each product, each with its verdict (``--every-template``); rows written."""
    from rdchiral.initialization import rdchiralReaction, rdchiralReactants
    from rdchiral.main import rdchiralRun

    compiled = []
    for template in load_templates(None).templates:
        with contextlib.suppress(Exception):
            compiled.append((template, rdchiralReaction(template.retro_smarts)))
    rows = 0
    with out.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(("product", "template_index", "template", "reactants", "reason"))
        for product in products:
            try:
                target = rdchiralReactants(product)
            except Exception:
                continue
            for template, rxn in compiled:
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        found = rdchiralRun(rxn, target, combine_enantiomers=False, return_mapped=True)
                except Exception:
                    continue
                if not found:
                    continue
                outcomes, mapped = found
                for smiles in sorted(outcomes):
                    proposal = mapped_proposal(target.reactants, mapped.get(smiles))
                    if proposal is None:
                        continue
                    reason = reaction_problem(template.name, template.reaction_class, template.amide_coupling,
                                              template.forward_smirks, proposal)
                    writer.writerow((product, template.index, template.name, smiles, reason or ""))
                    rows += 1
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "step_verdicts.csv")
    parser.add_argument("--every-template", type=Path, metavar="OUT",
                        help="also write every template's outcomes for each recorded product, with verdicts")
    args = parser.parse_args()
    RDLogger.DisableLog("rdApp.*")
    counts: dict[str, int] = {}
    products: dict[str, None] = {}  # distinct recorded products, in file order
    with args.out.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLUMNS)
        for set_name in SETS:
            for file_name in ROUTE_FILES:
                for step in recorded_steps(HERE / set_name, set_name, file_name):
                    verdict, index, reason = replay(step.template, step.reaction)
                    counts[verdict] = counts.get(verdict, 0) + 1
                    products.setdefault(step.reaction.split(">>")[1])
                    writer.writerow((step.set, step.file, step.section, step.molecule, step.step, step.template,
                                     step.reaction, verdict, index, reason))
    print(f"{sum(counts.values())} steps ({', '.join(f'{n} {v}' for v, n in sorted(counts.items()))}) -> {args.out}")
    if args.every_template:
        rows = every_template(list(products), args.every_template)
        print(f"{rows} outcomes of every template for {len(products)} products -> {args.every_template}")


if __name__ == "__main__":
    main()
