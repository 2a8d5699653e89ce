"""The metrics table (one row per threshold), as plain text for the terminal and HTML for the report."""

from __future__ import annotations

import html
from collections.abc import Mapping

from mara_chem.metrics import metric
from mara_chem.text import format_number


def _threshold_cell(value: float) -> str:
    return format_number(value, ".2f", missing="n/a")


def table_rows(metrics: Mapping[str, object]) -> tuple[list[str], list[list[str]]]:
    """Headers (with N and k filled in) and formatted rows, one per threshold: τ, then every declared column
    in table order (a run-level column, AUC, repeats on every row)."""
    columns = metric.columns()
    rows = []
    for row in metrics["thresholds"]:  # type: ignore[union-attr]
        rows.append([_threshold_cell(row["threshold"])] + [
            column.cell(row[column.key] if producer.scope == "threshold" else metrics[column.key])
            for producer, column in columns])
    first = metrics["thresholds"][0] if metrics["thresholds"] else {"n": 100}  # type: ignore[index]
    return ["τ"] + [column.header(**metrics, **first) for _, column in columns], rows


def footer(metrics: Mapping[str, object]) -> list[str]:
    """Lines that state budget, fingerprint, circle parameters and the log's skipped rows."""
    log, circles, dup = metrics["log"], metrics["circles"], metrics["batch_duplicates"]  # type: ignore[index]
    dup_text = f"mean {dup['mean']:.3f}, last step {dup['last']:.3f}" if dup["available"] else "n/a (no summary CSV)"
    return [
        f"budget {metrics['budget']} ({metrics['budget_source']}); calls spent {log['n_calls']}; "
        f"unique molecules {metrics['unique_molecules']}",
        f"log: {log['invalid_smiles']} invalid SMILES, {log['duplicates']} repeated SMILES, "
        f"{log['failed_scores']} failed scores, {log['dropped_lines']} dropped lines",
        *_source_line(metrics),
        f"fingerprint: {metrics['fingerprint']['description']}",
        f"#Circles: distance > {circles['distance']}, hits visited in "
        + ("discovery order" if circles["seed"] is None else f"a random order (seed {circles['seed']})"),
        f"in-batch duplicate fraction: {dup_text}",
    ]


def _source_line(metrics: Mapping[str, object]) -> list[str]:
    """Calls by source, when genetic exploration made any (a log without the column is all the agent's)."""
    sources = metrics.get("calls_by_source") or {}
    if not sources.get("genetic"):
        return []
    return ["calls by source: " + ", ".join(f"{name} {n}" for name, n in sources.items())]  # type: ignore[union-attr]


def format_table(metrics: Mapping[str, object]) -> str:
    """Fixed-width text table plus the footer lines."""
    headers, rows = table_rows(metrics)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) for c, w in zip(cells, widths))

    body = [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]
    return "\n".join(body + [""] + footer(metrics))


def html_table(metrics: Mapping[str, object]) -> str:
    """The same table as an HTML fragment (class ``metrics``), with the footer as a list."""
    headers, rows = table_rows(metrics)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    notes = "".join(f"<li>{html.escape(x)}</li>" for x in footer(metrics))
    return f'<table class="metrics"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table><ul>{notes}</ul>'
