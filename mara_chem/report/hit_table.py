"""The report's table of hits: one row per molecule with its structure and everything known about it, to
choose from: sorted, filtered, paged, a selection marked and exported, all inside the page.

Structure (inline SVG), id, SMILES, score, every endpoint (its score with the raw value under it), the
properties, route length, nearest reference, alerts, cluster and scaffold group; rows come grouped by
scaffold (groups in the order of their best hit). In the page:

- every column sorts on a click (numbers as numbers, empty cells last); ``#sort=COLUMN`` or
  ``#sort=COLUMN:desc`` in the page's address opens it sorted (a link to a view);
- a text box finds rows by any text, and column filters (``cLogP ≤ 3``, ``alert_names is empty``, ...)
  narrow the rows; they combine (and);
- a tick marks a row; "mark all shown" marks every row passing the filters; "marked only" shows them;
- "Export marked as CSV/SDF" downloads the marked rows with every column of hits.csv, the SDF records
  being those of hits.sdf (written by ``chem.sdf``, so the two agree);
- rows are paged (25, 50, 100 or all per page); the table fits a 1,600 px window (a column empty in every
  row, such as ``reason`` when nothing failed, is left to hits.csv).

The page stays self-contained (no CDN, no network): drawings are SVG text, data and SDF records JSON, the
behaviour a few lines of inline JavaScript, so the file works offline and from an e-mail.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence

import pandas as pd
from rdkit.Chem.Draw import rdMolDraw2D

from mara_chem.chem.alerts import SOFT_ALERTS, split_names
from mara_chem.chem.sdf import prop_text, sdf_record
from mara_chem.chem.smiles import to_mol
from mara_chem.report.molecules import rounded

#: columns shown first, in this order, when the table has them; every other column follows
LEADING = ("id", "call", "smiles", "score")
#: the computed properties, in this order, after the endpoints
PROPERTY_COLUMNS = ("MW", "cLogP", "TPSA", "HBD", "HBA", "rot_bonds", "Fsp3", "SA_score", "charge_7.4",
                    "route_steps", "bloom_only")
#: columns shown last
TRAILING = ("known_in", "nearest_known", "alert_names", "cluster", "scaffold_group")
#: in hits.csv and the export, not in the page's table
HIDDEN = ("step", "stage", "canonical", "row", "input_SMILES", "valid", "scaffold", "nearest_known_in")
#: short headers (the column's own name is the tooltip, the sort key and the filter's name)
HEADERS = {"rot_bonds": "RotB", "SA_score": "SA", "charge_7.4": "charge pH 7.4", "route_steps": "route steps",
           "bloom_only": "Bloom-only", "known_in": "known in", "nearest_known": "nearest reference",
           "alert_names": "alert names", "scaffold_group": "Murcko group", "smiles": "SMILES"}
#: decimals shown for a property (the data keeps every digit)
DECIMALS = {"MW": 1, "cLogP": 2, "TPSA": 1, "Fsp3": 2, "SA_score": 2, "nearest_known": 2}
PAGE_SIZES = (25, 50, 100, 0)  # 0: all

SCRIPT = r"""
(function () {
document.querySelectorAll('div.hits-view').forEach(view => {
  const table = view.querySelector('table.hits'), body = table.tBodies[0];
  const records = JSON.parse(view.querySelector('script.hit-records').textContent);
  const sdf = JSON.parse(view.querySelector('script.hit-sdf').textContent);
  const columns = JSON.parse(view.querySelector('script.hit-columns').textContent);
  const rows = Array.from(body.rows);
  const marked = new Set();
  const state = {order: rows.map((r, i) => i), filters: [], text: '', onlyMarked: false, page: 0,
                 pageSize: parseInt(view.querySelector('select.page-size').value, 10)};
  const $ = sel => view.querySelector(sel);
  const value = (i, col) => { const v = records[i][col]; return v === null || v === undefined ? '' : v; };
  const num = v => (typeof v === 'number' ? v : (v !== '' && !isNaN(Number(v)) ? Number(v) : NaN));
  const passes = (i, f) => {
    const v = value(i, f.col), x = num(v), y = num(f.value);
    switch (f.op) {
      case '>=': return !isNaN(x) && x >= y;
      case '<=': return !isNaN(x) && x <= y;
      case '=': return isNaN(y) ? String(v) === f.value : x === y;
      case '!=': return isNaN(y) ? String(v) !== f.value : x !== y;
      case 'contains': return String(v).toLowerCase().includes(f.value.toLowerCase());
      case 'empty': return v === '';
      case 'nonempty': return v !== '';
    }
    return true;
  };
  const shown = () => state.order.filter(i =>
    (!state.onlyMarked || marked.has(i)) && state.filters.every(f => passes(i, f)) &&
    (!state.text || rows[i].textContent.toLowerCase().includes(state.text)));
  function render() {
    const visible = shown(), size = state.pageSize || visible.length || 1;
    const pages = Math.max(1, Math.ceil(visible.length / size));
    state.page = Math.min(state.page, pages - 1);
    const first = state.page * size, page = visible.slice(first, first + size);
    body.replaceChildren(...page.map(i => rows[i]));
    $('.page-info').textContent = visible.length ? `rows ${first + 1}\u2013${first + page.length} of ${visible.length}` +
      ` shown (${rows.length} in all), page ${state.page + 1} of ${pages}` : `no row passes (${rows.length} in all)`;
    $('.mark-info').textContent = `(${marked.size} marked)`;
    view.querySelectorAll('button.export').forEach(b => b.disabled = marked.size === 0);
    $('button.prev').disabled = state.page === 0;
    $('button.next').disabled = state.page >= pages - 1;
    $('.filter-list').replaceChildren(...state.filters.map((f, k) => {
      const chip = document.createElement('button');
      chip.className = 'chip'; chip.title = 'remove this filter';
      chip.textContent = `${f.col} ${f.op === 'empty' ? 'is empty' : f.op === 'nonempty' ? 'is not empty' : f.op + ' ' + f.value} \u00d7`;
      chip.addEventListener('click', () => { state.filters.splice(k, 1); state.page = 0; render(); });
      return chip; }));
  }
  function sortBy(col, desc) {
    const key = i => { const v = value(i, col), x = num(v); return [v === '' ? 1 : 0, isNaN(x) ? String(v) : x]; };
    state.order.sort((a, b) => { const ka = key(a), kb = key(b);
      if (ka[0] !== kb[0]) return ka[0] - kb[0];
      const r = ka[1] < kb[1] ? -1 : ka[1] > kb[1] ? 1 : 0; return desc ? -r : r; });
    table.querySelectorAll('th').forEach(th => th.dataset.sorted = th.dataset.col === col ? (desc ? 'desc' : 'asc') : '');
    render();
  }
  table.querySelectorAll('th[data-col]').forEach(th => th.addEventListener('click', () => {
    if (th.dataset.col in records[0]) sortBy(th.dataset.col, th.dataset.sorted === 'asc'); }));
  rows.forEach((r, i) => r.querySelector('input.mark').addEventListener('change', e => {
    if (e.target.checked) marked.add(i); else marked.delete(i);
    r.classList.toggle('marked', e.target.checked); render(); }));
  const setMark = (i, on) => { const box = rows[i].querySelector('input.mark'); box.checked = on;
    rows[i].classList.toggle('marked', on); if (on) marked.add(i); else marked.delete(i); };
  $('button.mark-shown').addEventListener('click', () => { shown().forEach(i => setMark(i, true)); render(); });
  $('button.unmark').addEventListener('click', () => { Array.from(marked).forEach(i => setMark(i, false)); render(); });
  $('input.only-marked').addEventListener('change', e => { state.onlyMarked = e.target.checked; state.page = 0; render(); });
  $('input.find').addEventListener('input', e => { state.text = e.target.value.trim().toLowerCase(); state.page = 0; render(); });
  $('button.add-filter').addEventListener('click', () => {
    const f = {col: $('select.filter-col').value, op: $('select.filter-op').value, value: $('input.filter-value').value.trim()};
    if (f.value === '' && f.op !== 'empty' && f.op !== 'nonempty') return;
    state.filters.push(f); state.page = 0; render(); });
  $('select.page-size').addEventListener('change', e => { state.pageSize = parseInt(e.target.value, 10); state.page = 0; render(); });
  $('button.prev').addEventListener('click', () => { state.page -= 1; render(); });
  $('button.next').addEventListener('click', () => { state.page += 1; render(); });
  const chosen = () => state.order.filter(i => marked.has(i));
  const cell = v => { const t = String(v === null || v === undefined ? '' : v);
    return /[",\n\r]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t; };
  function download(name, text, type) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([text], {type: type}));
    a.download = name; document.body.appendChild(a); a.click(); a.remove();
  }
  $('button.export-csv').addEventListener('click', () => download(view.dataset.stem + 'marked.csv',
    [columns.map(cell).join(','), ...chosen().map(i => columns.map(c => cell(records[i][c])).join(','))].join('\n') + '\n',
    'text/csv'));
  $('button.export-sdf').addEventListener('click', () => download(view.dataset.stem + 'marked.sdf',
    chosen().map(i => sdf[i]).join(''), 'chemical/x-mdl-sdfile'));
  const m = location.hash.match(/^#sort=([^:]+)(:desc)?$/);
  if (m) sortBy(decodeURIComponent(m[1]), !!m[2]); else render();
});
})();
"""

STYLE = """
div.hits-view { font-size: 12px; max-width: 100%; }
div.hit-controls { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; margin: 6px 0; }
div.hit-controls button.chip { border-radius: 10px; border: 1px solid #88a; background: #eef; }
div.hits-scroll { overflow-x: auto; max-width: 100%; }
table.hits { border-collapse: collapse; table-layout: auto; }
table.hits th { cursor: pointer; background: #eee; position: sticky; top: 0; font-weight: 600; white-space: normal;
                max-width: 6em; word-break: break-word; z-index: 1; }
table.hits th[data-sorted=asc]::after { content: " \\25B2"; } table.hits th[data-sorted=desc]::after { content: " \\25BC"; }
table.hits td, table.hits th { border: 1px solid #bbb; padding: 2px 4px; text-align: right; vertical-align: middle; }
table.hits td.text { text-align: left; max-width: 9em; word-break: break-all; }
table.hits td.smiles { max-width: 11em; font-family: monospace; font-size: 11px; }
table.hits td .raw { display: block; color: #666; font-size: 11px; }
table.hits td .file { display: block; color: #666; font-size: 11px; word-break: break-all; }
table.hits tr.known td { background: #fff4d6; }
table.hits td.alerts { color: #b00; font-weight: bold; } table.hits td.alerts.soft { color: #c60; }
table.hits tr.marked td { background: #dcebff; }
table.hits td.mol svg { display: block; }
div.hit-pager { margin: 6px 0; display: flex; gap: 10px; align-items: center; }
"""


def structure_svg(smiles: str, size: tuple[int, int] = (130, 100)) -> str:
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
    """Leading columns, then every endpoint (its raw value shown in the same cell), the properties, the flags."""
    cols = [c for c in columns if c not in HIDDEN and not c.startswith("input_")]  # input_*: in the CSV/SDF only
    lead = [c for c in LEADING if c in cols]
    props = [c for c in PROPERTY_COLUMNS if c in cols]
    trail = [c for c in TRAILING if c in cols]
    middle = [c for c in cols if c not in lead and c not in props and c not in trail
              and not (c.endswith("_raw") and c[: -len("_raw")] in cols)]
    return lead + middle + props + trail


def _number(col: str, value: float, endpoint: bool = False) -> str:
    if col in DECIMALS and not endpoint:  # an endpoint may share a property's name (MW): it is a score
        return f"{value:.{DECIMALS[col]}f}"
    return f"{value:.3f}" if 0.0 <= value <= 1.0 and not col.endswith("_raw") else f"{value:.2f}"


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _cell(col: str, row: dict[str, object]) -> str:
    value = row.get(col)
    if _missing(value):
        return '<td data-v=""></td>'
    raw = row.get(f"{col}_raw")
    if isinstance(value, float):
        under = f'<span class="raw">{_number(col + "_raw", raw)}</span>' if isinstance(raw, float) and not _missing(raw) else ""
        if col == "nearest_known" and row.get("nearest_known_in"):
            under = f'<span class="file">{html.escape(str(row["nearest_known_in"]))}</span>'
        return f'<td data-v="{value!r}">{_number(col, value, f"{col}_raw" in row)}{under}</td>'
    text = html.escape(str(value))
    if str(value).lstrip("-").isdigit():
        return f"<td>{text}</td>"
    if col == "alert_names":
        soft = all(n in SOFT_ALERTS for n in split_names(str(value)))
        names = "<br>".join(html.escape(n) for n in split_names(str(value)))
        return f'<td class="text alerts{" soft" if soft else ""}">{names}</td>'
    if col in ("known_in", "bloom_only"):
        return f'<td class="text">{"<br>".join(html.escape(n) for n in split_names(str(value)))}</td>'
    return f'<td class="text{" smiles" if col == "smiles" else ""}">{text}</td>'


def _empty(values: pd.Series) -> bool:
    return all(_missing(v) or v == "" for v in values)


def _json_value(value: object) -> object:
    """A value for the page's data: numbers as numbers, missing as null, the rest as its text."""
    if hasattr(value, "item"):
        value = value.item()  # type: ignore[union-attr]
    if _missing(value):
        return None
    return value if isinstance(value, (int, float, bool)) else prop_text(value)


def _script_json(data: object) -> str:
    """JSON safe inside a <script> element (no '</' can close it)."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


def _controls(cols: list[str], filterable: list[str]) -> str:
    options = "".join(f'<option value="{html.escape(c)}">{html.escape(c)}</option>' for c in filterable)
    ops = "".join(f'<option value="{v}">{t}</option>' for v, t in (
        (">=", "≥"), ("<=", "≤"), ("=", "="), ("!=", "≠"), ("contains", "contains"), ("empty", "is empty"),
        ("nonempty", "is not empty")))
    sizes = "".join(f'<option value="{n}"{" selected" if n == PAGE_SIZES[0] else ""}>{n or "all"}</option>'
                    for n in PAGE_SIZES)
    return (
        '<div class="hit-controls">'
        '<input type="search" class="find" placeholder="find (id, SMILES, alert, file, ...)" size="28">'
        f'<span>filter <select class="filter-col">{options}</select> <select class="filter-op">{ops}</select> '
        '<input class="filter-value" size="8"> <button class="add-filter">add</button></span>'
        '<span class="filter-list"></span>'
        '<span><button class="mark-shown">mark all shown</button> <button class="unmark">clear marks</button> '
        '<label><input type="checkbox" class="only-marked"> marked only</label> <b class="mark-info"></b></span>'
        '<span><button class="export export-csv">export marked as CSV</button> '
        '<button class="export export-sdf">export marked as SDF</button></span>'
        f'<span>rows per page <select class="page-size">{sizes}</select></span>'
        "</div>")


def hits_table(df: pd.DataFrame, top: int, smiles_col: str = "smiles", stem: str = "") -> str:
    """The ``top`` best hits, grouped by scaffold (the best group first), as the page's table with its controls.

    ``stem``: the prefix of the exported file names (``STEM_marked.csv``)."""
    if not len(df):
        return "<p>No hits at this threshold.</p>"
    best = df.head(top)
    if "scaffold_group" in best:
        best = best.sort_values(["scaffold_group", "score"], ascending=[True, False], kind="stable")
    cols = [c for c in column_order(list(best.columns)) if not _empty(best[c])]  # an empty column: CSV only
    data = rounded(best)
    export_cols = list(data.columns)
    records = [{c: _json_value(v) for c, v in row.items()} for row in data.to_dict("records")]
    sdf = [sdf_record(row, smiles_key=smiles_col) for row in data.to_dict("records")]
    head = '<th title="mark a row to export it">✓</th><th data-col="structure">structure</th>' + "".join(
        f'<th data-col="{html.escape(c)}" title="{html.escape(c)}">{html.escape(HEADERS.get(c, c))}</th>' for c in cols)
    rows = []
    for row in best.to_dict("records"):
        alerts = split_names(str(row.get("alert_names") or ""))
        hard = [a for a in alerts if a not in SOFT_ALERTS]
        classes = [name for name, flag in (("known", row.get("known_in")), ("alert", hard),
                                           ("soft-alert", alerts and not hard)) if flag]
        cells = ('<td class="pick"><input type="checkbox" class="mark"></td>'
                 f'<td class="mol" data-v="">{structure_svg(str(row[smiles_col]))}</td>'
                 + "".join(_cell(c, row) for c in cols))
        rows.append(f'<tr class="{" ".join(classes)}">{cells}</tr>')
    return (f'<style>{STYLE}</style><div class="hits-view" data-stem="{html.escape(stem)}">'
            + _controls(cols, [*cols, *(c for c in export_cols if c not in cols)])
            + '<div class="hits-scroll"><table class="hits"><thead><tr>' + head + "</tr></thead><tbody>"
            + "\n".join(rows) + "</tbody></table></div>"
            + '<div class="hit-pager"><button class="prev">‹ previous</button><span class="page-info"></span>'
              '<button class="next">next ›</button></div>'
            + f'<script type="application/json" class="hit-records">{_script_json(records)}</script>'
            + f'<script type="application/json" class="hit-sdf">{_script_json(sdf)}</script>'
            + f'<script type="application/json" class="hit-columns">{_script_json(export_cols)}</script>'
            + f"<script>{SCRIPT}</script></div>")
