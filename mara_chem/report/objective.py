"""What the run was asked to do, read back from ``run.json``: the report's first section.

A results page is only readable next to its objective: components with their parameters, transforms,
weights and thresholds, the learning strategy and its options, the budget and the prior. Also: the
per-molecule files that components attach (docking poses), looked up for the top hits.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from rdkit import Chem


def _kv(data: dict[str, Any] | None) -> str:
    if not data:
        return ""
    return ", ".join(f"{k} = {json.dumps(v) if not isinstance(v, str) else v}" for k, v in data.items())


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td style=\"text-align:left\">{html.escape(c)}</td>" for c in r) + "</tr>"
                   for r in rows)
    return f'<table class="metrics"><tr>{head}</tr>{body}</table>'


def objective_html(record: dict[str, Any]) -> str:
    """Prior, strategy, budget and every stage's scoring function as HTML."""
    p = record["parameters"]
    strategy = dict(record.get("learning_strategy") or {"type": "dap"})
    lines = [
        f"Prior: {p['prior_file']}; agent starts from: {p['agent_file']}",
        f"Learning strategy: {strategy.pop('type')} ({_kv(strategy) or 'defaults'})",
        f"Batch size {p['batch_size']}, temperature {p.get('temperature', 1.0)}, hit threshold {p.get('hit_threshold')}",
    ]
    if record.get("diversity_filter"):
        lines.append(f"Diversity filter: {_kv(record['diversity_filter'])}")
    if record.get("inception"):
        lines.append(f"Replay memory (inception): {_kv(record['inception'])}")
    out = "".join(f"<p>{html.escape(x)}</p>" for x in lines)
    for n, stage in enumerate(record["stage"], start=1):
        budget = stage.get("max_oracle_calls")
        out += (f"<h3>Stage {n}: budget {budget if budget else 'unlimited'} oracle calls, at most {stage['max_steps']} "
                f"steps{'' if stage.get('max_score') is None else ', stops early at mean score ' + str(stage['max_score'])}</h3>")
        if stage.get("diversity_filter"):
            out += f"<p>{html.escape('Diversity filter: ' + _kv(stage['diversity_filter']))}</p>"
        scoring = stage["scoring"]
        source = f" (from {scoring['filename']})" if scoring.get("filename") else ""
        rows = []
        for entry in scoring["component"]:
            for cname, spec in entry.items():
                for ep in spec["endpoint"]:
                    transform = dict(ep.get("transform") or {})
                    kind = transform.pop("type", "none (raw value clipped to [0, 1])")
                    rows.append([cname, ep["name"], f"{ep['weight']:g}", _kv(ep.get("params")) or "defaults",
                                 f"{kind} {_kv(transform)}".strip(),
                                 "yes" if ep.get("required") else "component default" if ep.get("required") is None else "no"])
        out += f"<p>{html.escape('Aggregation: ' + scoring['type'] + source)}</p>"
        out += _table(["component", "endpoint", "weight", "parameters", "transform (thresholds)", "required"], rows)
    return out


def pose_files(record: dict[str, Any] | None) -> dict[str, Path]:
    """Endpoint name -> the pose SDF its docking component appends to (``params.pose_sdf``)."""
    found: dict[str, Path] = {}
    for stage in (record or {}).get("stage", []):
        for entry in stage["scoring"]["component"]:
            for spec in entry.values():
                for ep in spec["endpoint"]:
                    if (ep.get("params") or {}).get("pose_sdf"):
                        found[ep["name"]] = Path(ep["params"]["pose_sdf"])
    return found


def pose_index(files: dict[str, Path]) -> dict[str, dict[str, str]]:
    """Endpoint -> {SMILES: 'file #record'} for the poses present on disk."""
    index: dict[str, dict[str, str]] = {}
    for name, path in files.items():
        if not path.exists() or path.stat().st_size == 0:
            continue
        entries: dict[str, str] = {}
        for k, mol in enumerate(Chem.SDMolSupplier(str(path), removeHs=False), start=1):
            if mol is not None and (mol.HasProp("SMILES") or mol.HasProp("_Name")):  # the title may be an input id
                key = mol.GetProp("SMILES") if mol.HasProp("SMILES") else mol.GetProp("_Name")
                entries.setdefault(key, f"{path} #{k}")
        index[name] = entries
    return index
