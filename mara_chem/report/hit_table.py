"""The report's table of top hits: one row per molecule with its structure and everything known about it.

Structure (inline SVG), id, SMILES, score, every endpoint's score and raw value, known/alert flags and the
scaffold group; rows come grouped by scaffold (groups in the order of their best hit) and every column
sorts on a click (numbers as numbers, empty cells last). The page stays self-contained: the drawing is
SVG text and the sorting a few lines of inline JavaScript, so the file works offline and from an e-mail.
``#sort=COLUMN`` or ``#sort=COLUMN:desc`` in the page's address opens it sorted (a link to a view).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import pandas as pd
from rdkit.Chem.Draw import rdMolDraw2D

from mara_chem.chem.smiles import to_mol

#: columns shown first, in this order, when the table has them; every other column follows
LEADING = ("id", "call", "smiles", "score")
#: columns shown last
TRAILING = ("known_in", "alert_names", "scaffold_group", "scaffold")
HIDDEN = ("step", "stage", "canonical", "row", "input_SMILES", "valid")

SORT_SCRIPT = """
function sortHits(table, col, desc) {
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const key = r => { const c = r.cells[col]; const v = c.dataset.v !== undefined ? c.dataset.v : c.textContent;
                     const x = parseFloat(v); return [v === '' ? 1 : 0, isNaN(x) ? v : x]; };
  rows.sort((a, b) => { const ka = key(a), kb = key(b);
    if (ka[0] !== kb[0]) return ka[0] - kb[0];
    const r = ka[1] < kb[1] ? -1 : ka[1] > kb[1] ? 1 : 0; return desc ? -r : r; });
  rows.forEach(r => body.appendChild(r));
  table.querySelectorAll('th').forEach((th, i) => th.dataset.sorted = i === col ? (desc ? 'desc' : 'asc') : '');
}
document.querySelectorAll('table.hits th').forEach((th, i) => th.addEventListener('click', () => {
  sortHits(th.closest('table'), i, th.dataset.sorted === 'asc'); }));
const m = location.hash.match(/^#sort=([^:]+)(:desc)?$/);
if (m) { document.querySelectorAll('table.hits').forEach(t => {
  const i = Array.from(t.querySelectorAll('th')).findIndex(th => th.dataset.col === decodeURIComponent(m[1]));
  if (i >= 0) sortHits(t, i, !!m[2]); }); }
"""

STYLE = """
table.hits { border-collapse: collapse; font-size: 0.85em; }
table.hits th { cursor: pointer; background: #eee; position: sticky; top: 0; }
table.hits th[data-sorted=asc]::after { content: " \\25B2"; } table.hits th[data-sorted=desc]::after { content: " \\25BC"; }
table.hits td, table.hits th { border: 1px solid #bbb; padding: 3px 6px; text-align: right; vertical-align: middle; }
table.hits td.text { text-align: left; max-width: 22em; word-break: break-all; }
table.hits td.smiles { min-width: 14em; }
table.hits tr.known td { background: #fff4d6; } table.hits tr.alert td.alerts { color: #b00; font-weight: bold; }
table.hits td.mol svg { display: block; }
"""


def structure_svg(smiles: str, size: tuple[int, int] = (180, 140)) -> str:
    """The molecule as an inline SVG drawing ('' when it does not parse)."""
    mol = to_mol(smiles)
    if mol is None:
        return ""
    drawer = rdMolDraw2D.MolDraw2DSVG(*size)
    drawer.drawOptions().clearBackground = False
    drawer.DrawMolecule(mol)
    drawer.FinishDrawing()
    text = drawer.GetDrawingText()
    return text[text.index("<svg"):]  # drop the XML declaration: the SVG sits inside HTML


def column_order(columns: Sequence[str]) -> list[str]:
    """Leading columns, then every endpoint (a score beside its raw value), then the flags."""
    cols = [c for c in columns if c not in HIDDEN and not c.startswith("input_")]  # input_*: in the CSV/SDF only
    lead = [c for c in LEADING if c in cols]
    trail = [c for c in TRAILING if c in cols]
    middle = [c for c in cols if c not in lead and c not in trail]
    paired: list[str] = []
    for c in middle:
        if c in paired:
            continue
        paired.append(c)
        if f"{c}_raw" in middle:
            paired.append(f"{c}_raw")
    return lead + paired + trail


def _cell(col: str, value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return '<td data-v=""></td>'
    if isinstance(value, float):
        text = f"{value:.4f}" if 0.0 <= value <= 1.0 and not col.endswith("_raw") else f"{value:.3f}"
        return f'<td data-v="{value!r}">{text}</td>'
    text = html.escape(str(value))
    if str(value).lstrip("-").isdigit():
        return f"<td>{text}</td>"
    cls = {"alert_names": ' class="text alerts"', "smiles": ' class="text smiles"'}.get(col, ' class="text"')
    return f"<td{cls}>{text}</td>"


def hits_table(df: pd.DataFrame, top: int, smiles_col: str = "smiles") -> str:
    """The ``top`` best hits, grouped by scaffold (the best group first), as a sortable HTML table."""
    if not len(df):
        return "<p>No hits at this threshold.</p>"
    best = df.head(top)
    if "scaffold_group" in best:
        best = best.sort_values(["scaffold_group", "score"], ascending=[True, False], kind="stable")
    cols = column_order(list(best.columns))
    head = '<th data-col="structure">structure</th>' + "".join(
        f'<th data-col="{html.escape(c)}">{html.escape(c)}</th>' for c in cols)
    rows = []
    for row in best.to_dict("records"):
        classes = [name for name, flag in (("known", row.get("known_in")), ("alert", row.get("alert_names"))) if flag]
        cells = f'<td class="mol" data-v="">{structure_svg(str(row[smiles_col]))}</td>' + "".join(
            _cell(c, row.get(c)) for c in cols)
        rows.append(f'<tr class="{" ".join(classes)}">{cells}</tr>')
    return (f"<style>{STYLE}</style><table class=\"hits\"><thead><tr>{head}</tr></thead><tbody>"
            + "\n".join(rows) + f"</tbody></table><script>{SORT_SCRIPT}</script>")
