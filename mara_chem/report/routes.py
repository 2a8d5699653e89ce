"""Retrosynthesis routes of the hits, from the ``routes.jsonl`` the ``retrosynthesis`` component writes."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path

from mara_chem.report.page import section

ROUTES_NAME = "routes.jsonl"


def read_routes(path: Path) -> dict[str, dict]:
    """Last record per SMILES (a resumed run may append a molecule's record again)."""
    records: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            records[record["smiles"]] = record
    return records


def routes_section(run_dir: Path, hit_smiles: Sequence[str], top: int) -> str:
    """One table per hit with a route: each reaction's name, class and reaction SMILES; '' without a file."""
    path = run_dir / ROUTES_NAME
    if not path.is_file():
        return ""
    records = read_routes(path)
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
