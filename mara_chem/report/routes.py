"""Retrosynthesis routes of the hits, from the ``routes.jsonl`` the ``retrosynthesis`` component writes."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path

from mara_chem.chem.alerts import join_names
from mara_chem.report.page import section

ROUTES_NAME = "routes.jsonl"
#: the columns ``route_columns`` adds to a hit table
ROUTE_COLUMNS = ("route_steps", "bloom_only")


def routes_files(sections: Sequence[dict], default: Path | None = None) -> list[Path]:
    """The routes files the retrosynthesis endpoints of these scoring sections append to (``routes_file``),
    and ``default`` (a run folder's routes.jsonl) when it is there; only files that exist."""
    found: list[Path] = []
    for scoring in sections:
        for entry in scoring.get("component", []):
            for spec in entry.values():
                for ep in spec.get("endpoint", []):
                    path = (ep.get("params") or {}).get("routes_file")
                    if path:
                        found.append(Path(path))
    if default is not None:
        found.append(default)
    return [p for p in dict.fromkeys(found) if p.is_file()]


def read_all_routes(paths: Sequence[Path]) -> dict[str, dict]:
    """``read_routes`` over several files (a later file's record wins)."""
    records: dict[str, dict] = {}
    for path in paths:
        records.update(read_routes(path))
    return records


def route_columns(smiles: Sequence[str], records: dict[str, dict]) -> dict[str, list[object]]:
    """``route_steps`` (steps of the best route; empty when unsolved or not searched) and ``bloom_only`` (the
    route's building blocks only molbloom's filter vouches for, joined) per molecule."""
    steps: list[object] = []
    bloom: list[object] = []
    for smi in smiles:
        record = records.get(smi) or {}
        solved = bool(record.get("solved"))
        steps.append(int(record["steps"]) if solved and record.get("steps") is not None else None)
        bloom.append(join_names(record.get("bloom_only") or []) if solved else "")
    return {"route_steps": steps, "bloom_only": bloom}


def read_routes(path: Path) -> dict[str, dict]:
    """Last record per SMILES (a resumed run may append a molecule's record again)."""
    records: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            records[record["smiles"]] = record
    return records


def routes_section(run_dir: Path, hit_smiles: Sequence[str], top: int, records: dict[str, dict] | None = None) -> str:
    """One table per hit with a route: each reaction's name, class and reaction SMILES; '' without a file.

    ``records``: routes already read (``read_all_routes``), else ``run_dir``'s routes.jsonl."""
    if records is None:
        path = run_dir / ROUTES_NAME
        records = read_routes(path) if path.is_file() else {}
    if not records:
        return ""
    blocks = []
    for smi in hit_smiles:
        record = records.get(smi)
        if not record or not record.get("solved"):
            continue
        rows = "".join(
            f"<tr><td>{i + 1}</td><td>{html.escape(step['name'])}</td><td>{html.escape(step['class'])}</td>"
            f"<td style=\"text-align:left\"><code>{html.escape(step['reaction_smiles'])}</code></td></tr>"
            for i, step in enumerate(record["route"])
        )
        blocks.append(f"<h3><code>{html.escape(smi)}</code>: {record['steps']} step(s), {record['n_routes']} route(s) "
                      f"found in {record['seconds']:.1f} s ({html.escape(record.get('reactions', ''))})</h3>"
                      f"<table class=\"metrics\"><tr><th>step</th><th>reaction</th><th>class</th><th>reaction SMILES</th></tr>"
                      f"{rows}</table>" + _bloom_only_note(record.get("bloom_only")))
        if len(blocks) == top:
            break
    body = "\n".join(blocks) if blocks else "<p>No hit has a route in routes.jsonl.</p>"
    return section("Retrosynthesis routes of the top hits", body)


def _bloom_only_note(bloom_only: list[str] | None) -> str:
    """A warning under a route whose building blocks only molbloom's filter vouches for (7 % false positives)."""
    if not bloom_only:
        return ""
    names = ", ".join(f"<code>{html.escape(s)}</code>" for s in bloom_only)
    return (f"<p class=\"warning\">Bloom-only building block(s), not in any exact list (check a catalogue): "
            f"{names}</p>")
