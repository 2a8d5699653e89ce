"""``run_type = "scoring"``: score a SMILES, CSV or SDF file with a scoring section, as RL would.

The same ``Scorer`` (components, transforms, aggregation; docking through its executors and persistent
cache) scores the molecules in chunks of ``batch_size``; each chunk is appended and flushed, so a killed
run continues after the last complete row when started again. Every endpoint's score and raw value and
the failure reasons are written.
"""

from __future__ import annotations

import csv
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from mara_chem.chem.smiles import canonicalize, to_mol
from mara_chem.chem.sdf import write_rows_sdf
from mara_chem.rl.summary import append_csv_rows
from mara_chem.runmodes.config import ScoringRunConfig
from mara_chem.runmodes.errors import RunModeError
from mara_chem.runmodes.scoring_input import output_names, read_scoring_input
from mara_chem.scoring.scorer import Scorer


@dataclass
class ScoringResult:
    output_csv: Path
    rows: int
    resumed_from: int
    seconds: float


def score_columns(endpoints: list[str]) -> list[str]:
    return ["score", *endpoints, *(f"{e}_raw" for e in endpoints), "reason"]


def _fmt(value: float) -> str:
    return "" if not math.isfinite(value) else f"{value:.6g}"


def score_rows(scorer: Scorer, rows: list[dict[str, object]]) -> None:
    """Add score, endpoint, raw and reason columns to rows keyed by ``SMILES``; invalid SMILES are not scored."""
    names = scorer.endpoint_names
    todo = list(dict.fromkeys(str(r["SMILES"]) for r in rows if r["SMILES"] and to_mol(str(r["SMILES"])) is not None))
    result = scorer(todo)
    at = {smi: i for i, smi in enumerate(todo)}
    for row in rows:
        i = at.get(str(row["SMILES"]))
        if i is None:
            row.update({c: "" for c in score_columns(names)}, reason="invalid SMILES")
            continue
        row["score"] = _fmt(float(result.total[i]))
        for e in names:
            row[e] = _fmt(float(result.scores[e][i]))
            row[f"{e}_raw"] = _fmt(float(result.raw[e][i]))
        row["reason"] = result.reasons[i] or ""


def _ids_by_smiles(rows: list[dict[str, object]]) -> dict[str, str]:
    """Canonical SMILES -> the input ids that share it (joined by ', ' when a molecule is listed twice)."""
    ids: dict[str, list[str]] = {}
    for row in rows:
        canon = canonicalize(str(row["SMILES"]))
        if canon:
            ids.setdefault(canon, []).append(str(row["id"]))
    return {smi: ", ".join(dict.fromkeys(v)) for smi, v in ids.items()}


def _rows_done(path: Path, columns: list[str]) -> list[dict[str, str]]:
    """Complete rows already written (a torn last line is cut off), or a refusal if the columns differ."""
    if not path.exists():
        return []
    text = path.read_text()
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
        path.write_text(text)
    reader = csv.DictReader(text.splitlines())
    rows = list(reader)
    if reader.fieldnames and list(reader.fieldnames) != columns:
        raise RunModeError(f"[parameters.output_csv] {path} was written with other scoring endpoints; "
                           "use --overwrite or another name")
    return rows


def run_scoring(cfg: ScoringRunConfig, overwrite: bool = False, quiet: bool = False) -> ScoringResult:
    import time

    p = cfg.parameters
    say = (lambda text: None) if quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    source = read_scoring_input(Path(p.smiles_file), p.smiles_column, p.id_column)
    molecules = source.molecules
    out = Path(p.output_csv)
    scorer = Scorer(cfg.scoring)
    own = ["row", "id", "input_SMILES", "SMILES", *score_columns(scorer.endpoint_names)]
    carried = output_names(source.extra_columns, own)  # input column -> its output name
    columns = [*own[:4], *carried.values(), *own[4:]]
    if overwrite:
        out.unlink(missing_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = _rows_done(out, columns)
    if [r["id"] for r in done] != [m.ident for m in molecules[: len(done)]]:
        scorer.close()
        raise RunModeError(f"[parameters.output_csv] {out} holds rows of another input file; "
                           "use --overwrite or another name")
    if done:
        say(f"resuming {out} after row {len(done)} of {len(molecules)}")
    start = time.perf_counter()
    try:
        for first in range(len(done), len(molecules), p.batch_size):
            chunk = molecules[first: first + p.batch_size]
            rows: list[dict[str, object]] = []
            for n, m in enumerate(chunk, start=first + 1):
                std = (canonicalize(m.smiles) or "") if p.standardize_smiles else m.smiles
                rows.append({"row": n, "id": m.ident, "input_SMILES": m.smiles, "SMILES": std,
                             **{carried[k]: v for k, v in m.extra.items()}})
            scorer.name_molecules(_ids_by_smiles(rows))
            score_rows(scorer, rows)
            append_csv_rows(out, columns, rows)
            say(f"scored {first + len(chunk)}/{len(molecules)}")
    finally:
        scorer.close()
    if p.sdf_file:
        write_rows_sdf(_rows_done(out, columns), Path(p.sdf_file))
    return ScoringResult(out, len(molecules), len(done), time.perf_counter() - start)
