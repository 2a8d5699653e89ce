"""``run_type = "scoring"``: score a SMILES, CSV or SDF file with a scoring section, as RL would.

The same ``Scorer`` (components, transforms, aggregation; docking through its executors and persistent
cache) scores the molecules in chunks of ``batch_size``; each chunk is appended and flushed, so a killed
run continues after the last complete row when started again. Every endpoint's score and raw value and
the failure reasons are written.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from rdkit import Chem

from mara_chem.atomic import write_text_atomic
from mara_chem.chem.sdf import write_rows_sdf
from mara_chem.chem.smiles import MAX_ATOMS, canonicalize, to_mol
from mara_chem.chem.smiles_file import SmilesFileError, open_text
from mara_chem.rl.summary_csv import append_csv_rows
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


def carried_columns(extra: list[str], endpoints: list[str], own: list[str]) -> dict[str, str]:
    """Input column -> its output name. An input that already holds every result column of this scoring
    (``score``, each endpoint and its raw value, ``reason``: a library sampled or scored with the same objective)
    gets them written again, once, by this scoring; any other clashing column is kept as ``input_<name>``."""
    results = score_columns(endpoints)
    if set(results) <= set(extra):
        extra = [c for c in extra if c not in results]
    return output_names(extra, own)


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


def _sdf_molecules(path: Path) -> list[tuple[str, str]]:
    """(title or record number, SMILES) of each SDF record; a record above the atom guard (MAX_ATOMS) is never
    handed to RDKit's writer (a 20,000-atom record crashed MolToSmiles) and scores as an invalid input."""
    out = []
    for n, mol in enumerate(Chem.SDMolSupplier(str(path)), start=1):
        name = mol.GetProp("_Name") if mol is not None and mol.HasProp("_Name") else ""
        ok = mol is not None and mol.GetNumAtoms() <= MAX_ATOMS
        out.append((name or str(n), Chem.MolToSmiles(mol) if ok else ""))
    return out


def _sdf_counts_guard(path: Path) -> None:
    """Refuse an SDF record whose counts line declares more atoms than the guard, before RDKit parses it."""
    with open_text(path) as handle:
        record, line_in_record = 1, 0
        for n, line in enumerate(handle, start=1):
            line_in_record += 1
            if line.startswith("$$$$"):
                record, line_in_record = record + 1, 0
                continue
            atoms = None
            if line_in_record == 4 and line.rstrip().endswith("V2000"):
                atoms = line[:3].strip()
            elif line.startswith("M  V30 COUNTS"):
                atoms = line.split()[3]
            if atoms is not None and atoms.isdigit() and int(atoms) > MAX_ATOMS:
                raise RunModeError(f"[parameters.smiles_file] {path} line {n}: record {record} has {atoms} atoms, "
                                   f"above the {MAX_ATOMS}-atom guard; remove it")


def read_molecules(path: Path, smiles_column: str) -> list[tuple[str, str]]:
    """(id, SMILES) pairs from .sdf (title or row number as id), .csv (``smiles_column``) or .smi/.txt files
    (plain or gzip, by their bytes); a file that cannot be read as one is refused naming the file and line."""
    if not path.is_file():
        raise RunModeError(f"[parameters.smiles_file] file {path} does not exist")
    try:
        if path.suffix.lower() == ".sdf":
            _sdf_counts_guard(path)
            return _sdf_molecules(path)
        if path.suffix.lower() == ".csv":
            return _csv_molecules(path, smiles_column)
        return _smi_molecules(path)
    except SmilesFileError as exc:
        raise RunModeError(f"[parameters.smiles_file] {exc}") from None
    except UnicodeDecodeError:
        raise RunModeError(f"[parameters.smiles_file] {path} is not UTF-8 text (a binary file?)") from None


def _csv_molecules(path: Path, smiles_column: str) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    with open_text(path) as handle:
        reader = csv.DictReader(handle)
        try:
            if smiles_column not in (reader.fieldnames or []):
                raise RunModeError(f"[parameters.smiles_column] {path} has no column {smiles_column!r} "
                                   f"(columns: {', '.join(reader.fieldnames or [])})")
            for n, row in enumerate(reader, start=1):
                rows.append((str(n), row[smiles_column] or ""))
            return rows
        except csv.Error as exc:  # e.g. a field over the csv module's size limit (131,072 characters)
            raise RunModeError(f"[parameters.smiles_file] {path} data row {len(rows) + 1}: {exc}") from None


def _smi_molecules(path: Path) -> list[tuple[str, str]]:
    out = []
    with open_text(path) as handle:
        for n, line in enumerate(handle, start=1):
            if "\0" in line:
                raise RunModeError(f"[parameters.smiles_file] {path} line {n}: NUL bytes (a binary file?)")
            fields = line.split()
            if not fields or (n == 1 and fields[0].lower() in ("smiles", "smile")):
                continue
            out.append((fields[1] if len(fields) > 1 else str(len(out) + 1), fields[0]))
    return out


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


def _record_path(out: Path) -> Path:
    """``<output_csv>.run.json``: what the rows of ``output_csv`` were scored from, for a resume to compare."""
    return out.with_name(out.name + ".run.json")


def _scoring_record(cfg: ScoringRunConfig) -> dict[str, object]:
    """The input file's SHA-256 and every setting that decides a row: a resume must match them all."""
    p = cfg.parameters
    digest = hashlib.sha256(Path(p.smiles_file).read_bytes()).hexdigest()
    return {"smiles_file_sha256": digest, "smiles_column": p.smiles_column,
            "standardize_smiles": p.standardize_smiles, "scoring": cfg.scoring.model_dump(mode="json")}


def _check_resume(out: Path, record: dict[str, object]) -> None:
    """Refuse to append to ``out`` when its rows came from another input or another scoring section."""
    if not out.exists() or out.stat().st_size == 0:
        return
    path = _record_path(out)
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        recorded = None
    if not isinstance(recorded, dict):
        raise RunModeError(f"[parameters.output_csv] {out} exists but {path.name} (what it was scored from) is "
                           "missing or unreadable, so a resume cannot be checked; use --overwrite or another name")
    changed = sorted(k for k in record if recorded.get(k) != record[k])
    if changed:
        what = ", ".join("the input file's contents" if k == "smiles_file_sha256" else
                         ("the [scoring] section" if k == "scoring" else f"parameters.{k}") for k in changed)
        raise RunModeError(f"[parameters.output_csv] {out} was scored from other settings ({what} changed); "
                           "resuming would mix rows; use --overwrite or another name")


def run_scoring(cfg: ScoringRunConfig, overwrite: bool = False, quiet: bool = False) -> ScoringResult:
    import time

    p = cfg.parameters
    say = (lambda text: None) if quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    read_molecules(Path(p.smiles_file), p.smiles_column)  # the file's guards and one-line refusals first
    source = read_scoring_input(Path(p.smiles_file), p.smiles_column, p.id_column)  # ids and every column
    molecules = source.molecules
    out = Path(p.output_csv)
    scorer = Scorer(cfg.scoring)
    own = ["row", "id", "input_SMILES", "SMILES", *score_columns(scorer.endpoint_names)]
    carried = carried_columns(source.extra_columns, scorer.endpoint_names, own)  # input column -> output name
    if len(carried) < len(source.extra_columns):
        say(f"{p.smiles_file} already holds this objective's score columns; they are scored again, not copied")
    columns = [*own[:4], *carried.values(), *own[4:]]
    record = _scoring_record(cfg)
    if overwrite:
        out.unlink(missing_ok=True)
        _record_path(out).unlink(missing_ok=True)
    else:
        try:
            _check_resume(out, record)
        except RunModeError:
            scorer.close()
            raise
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(_record_path(out), json.dumps(record, indent=2) + "\n")
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
                             **{carried[k]: v for k, v in m.extra.items() if k in carried}})
            scorer.name_molecules(_ids_by_smiles(rows))
            score_rows(scorer, rows)
            append_csv_rows(out, columns, rows)
            say(f"scored {first + len(chunk)}/{len(molecules)}")
    finally:
        scorer.close()
    if p.sdf_file:
        write_rows_sdf(_rows_done(out, columns), Path(p.sdf_file))
    return ScoringResult(out, len(molecules), len(done), time.perf_counter() - start)
