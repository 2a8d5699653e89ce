"""The report's hit table in a real browser (headless Chromium): it renders, marks known and alerted hits,
sorts, pages, filters, and a marked selection exports to CSV and SDF; it fits a 1,600 px window. Skipped,
saying why, when Chromium is not installed (``.ci/run`` installs it where apt works)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from rdkit import Chem

from mara_chem.report import write_report
from tests.paths import TEST_DATA

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install -y chromium)")

# three scaffolds; CCN(CC)c1ccc(...)cc1 carries PAINS anil_di_alk; the first one is in the series file
LOG = """call,step,stage,smiles,score,QED,QED_raw,reason
1,1,1,CC(=O)Nc1ccc(cc1)C(=O)NC1CCOCC1,0.91,0.91,0.91,
2,1,1,CCN(CC)c1ccc(C=Cc2ccccc2)cc1,0.95,0.95,0.95,
3,1,1,O=C(NC1CCCC1)c1ccccc1,0.85,0.85,0.85,
4,2,1,O=C(NC1CCCC1)c1ccc(F)cc1,0.88,0.88,0.88,
5,2,1,CCO,0.2,0.2,0.2,
"""


def _chromium(*args: str, tmp: Path) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp / 'profile'}",
             "--virtual-time-budget=5000"]
    return subprocess.run([CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("run")
    (run / "oracle_log.csv").write_text(LOG)
    series = run / "series.smi"
    series.write_text("SMILES\nCC(=O)Nc1ccc(cc1)C(=O)NC1CCOCC1\n")
    record = {"parameters": {"prior_file": "p", "agent_file": "p", "batch_size": 4, "hit_threshold": 0.8},
              "learning_strategy": {"type": "mara", "tau": 0.8},
              "stage": [{"max_steps": 2, "max_oracle_calls": 5, "scoring": {"type": "geometric_mean", "component": [
                  {"QED": {"endpoint": [{"name": "QED", "weight": 1}]}},
                  {"KnownCompounds": {"endpoint": [{"name": "novel", "weight": 1,
                                                    "params": {"smiles_file": str(series)}}]}}]}}]}
    (run / "run.json").write_text(json.dumps(record))
    return write_report(run)  # threshold: the run's own 0.8


def _rows(dom: str) -> list[list[str]]:
    table = dom[dom.index('<table class="hits">'):]
    body = table[table.index("<tbody>"):table.index("</tbody>")]
    return [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in body.split("<tr")[1:]]


def test_report_renders_grouped_and_flagged(report: Path, tmp_path: Path) -> None:
    dom = _chromium("--dump-dom", report.as_uri(), tmp=tmp_path).stdout
    rows = _rows(dom)
    # 4 hits at the run's threshold 0.8 (CCO is not one), grouped by scaffold: the best hit's group first
    assert [r[0] for r in rows] == ["2", "1", "4", "3"]  # call numbers
    assert 'tr class="known"' in dom and "series.smi" in dom  # the series member is marked and shaded
    assert 'tr class="alert"' in dom and "anil_di_alk" in dom
    assert dom.count("<svg") == 4 and "Hit threshold: 0.8 (the run's hit_threshold)" in dom
    shot = tmp_path / "report.png"
    _chromium(f"--screenshot={shot}", "--window-size=1600,2600", report.as_uri(), tmp=tmp_path)
    assert shot.stat().st_size > 20_000  # a drawn page, not a blank one
    shutil.copy(shot, Path(report).with_name("report_screenshot.png"))


def test_report_sorts_in_the_browser(report: Path, tmp_path: Path) -> None:
    """The page's own script sorts: ``#sort=score`` ascending, ``#sort=call:desc`` descending."""
    up = _rows(_chromium("--dump-dom", report.as_uri() + "#sort=score", tmp=tmp_path).stdout)
    assert [r[0] for r in up] == ["3", "4", "1", "2"]  # 0.85, 0.88, 0.91, 0.95
    down = _rows(_chromium("--dump-dom", report.as_uri() + "#sort=call:desc", tmp=tmp_path).stdout)
    assert [r[0] for r in down] == ["4", "3", "2", "1"]


# --- choosing from a larger table: paging, filters, marks, export -------------------------------------------

#: what the test does in the page, as a chemist would: tick two rows, filter, export; the downloads are
#: captured (Blob contents and file names) into <pre> elements that --dump-dom then shows
ACTIONS = """
<script>
const captured = [], names = [];
const RealBlob = window.Blob;
window.Blob = function (parts, options) { captured.push(parts.join('')); return new RealBlob(parts, options); };
HTMLAnchorElement.prototype.click = function () { names.push(this.download); };
const view = document.querySelector('div.hits-view'), q = s => view.querySelector(s);
const out = (id, text) => { const pre = document.createElement('pre'); pre.id = id; pre.textContent = text;
                            document.body.appendChild(pre); };
out('first-page', String(view.querySelector('tbody').rows.length) + '|' + q('.page-info').textContent);
const rows = Array.from(view.querySelector('tbody').rows);
rows[0].querySelector('input.mark').click();
rows[2].querySelector('input.mark').click();
q('select.filter-col').value = 'score'; q('select.filter-op').value = '>='; q('input.filter-value').value = '0.5';
q('button.add-filter').click();
q('input.only-marked').click();
out('marked-view', Array.from(view.querySelector('tbody').rows).map(r => r.cells[2].textContent).join(','));
q('button.export-csv').click();
q('button.export-sdf').click();
out('export-names', names.join(','));
out('export-csv', captured[0]);
out('export-sdf', captured[1]);
out('page-width', String(Math.max(document.documentElement.scrollWidth,
                                  Math.ceil(view.querySelector('table.hits').getBoundingClientRect().right))));
document.body.prepend(view);  // the screenshot's window shows the controls and the marked rows first
</script>
"""


@pytest.fixture(scope="module")
def big_report(tmp_path_factory) -> Path:
    """30 hits of the MOSES sample (more than one page of 25), scores falling with the row."""
    run = tmp_path_factory.mktemp("big")
    smiles = [line.split()[0] for line in (TEST_DATA / "moses_sample.smi").read_text().splitlines()[:30]]
    lines = ["call,step,stage,smiles,score,QED,QED_raw,reason"]
    lines += [f"{n},1,1,{smi},{0.99 - n / 100:.2f},{0.99 - n / 100:.2f},0.5," for n, smi in enumerate(smiles, start=1)]
    (run / "oracle_log.csv").write_text("\n".join(lines) + "\n")
    return write_report(run, threshold=0.5)


def _pre(dom: str, ident: str) -> str:
    import html

    return html.unescape(re.search(f'<pre id="{ident}">(.*?)</pre>', dom, re.S).group(1))


def test_marked_rows_export_to_csv_and_sdf_and_the_table_fits_1600_px(big_report: Path, tmp_path: Path) -> None:
    page = tmp_path / "acted.html"
    page.write_text(big_report.read_text().replace("</body>", ACTIONS + "</body>"))
    dom = _chromium("--dump-dom", "--window-size=1600,1200", page.as_uri(), tmp=tmp_path).stdout
    shown, info = _pre(dom, "first-page").split("|")
    assert shown == "25" and info.startswith("rows 1–25 of 30 shown (30 in all), page 1 of 2")  # paged, not cut
    hits = pd.read_csv(big_report.with_name("hits.csv"))
    first_page = hits.sort_values(["scaffold_group", "score"], ascending=[True, False], kind="stable")
    chosen = [str(first_page["call"].iloc[0]), str(first_page["call"].iloc[2])]
    assert _pre(dom, "marked-view").split(",") == chosen  # 'marked only' shows the two ticked rows
    assert _pre(dom, "export-names") == "marked.csv,marked.sdf"
    exported = pd.read_csv(__import__("io").StringIO(_pre(dom, "export-csv")))
    assert list(exported.columns) == list(hits.columns)  # every column of hits.csv
    assert [str(c) for c in exported["call"]] == chosen
    expected = hits.set_index("call").loc[[int(c) for c in chosen]]
    assert exported["smiles"].tolist() == expected["smiles"].tolist()
    assert exported["cLogP"].tolist() == pytest.approx(expected["cLogP"].tolist(), abs=1e-9)
    sdf = tmp_path / "marked.sdf"
    sdf.write_text(_pre(dom, "export-sdf"))
    mols = [m for m in Chem.SDMolSupplier(str(sdf)) if m is not None]
    assert [m.GetProp("call") for m in mols] == chosen
    assert [Chem.MolToSmiles(m) for m in mols] == [Chem.CanonSmiles(s) for s in expected["smiles"]]
    assert int(_pre(dom, "page-width")) <= 1600  # the whole table readable without scrolling sideways
    shot = tmp_path / "selection.png"
    _chromium(f"--screenshot={shot}", "--window-size=1600,1400", page.as_uri(), tmp=tmp_path)
    assert shot.stat().st_size > 20_000  # a drawn page: the marked rows, the filter chip, the pager
    shutil.copy(shot, big_report.with_name("selection_screenshot.png"))
