"""The report's hit table in a real browser (headless Chromium): it renders, marks known and alerted hits,
and sorts. Skipped, saying why, when Chromium is not installed (``.ci/run`` installs it where apt works)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mara_chem.report import write_report

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
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp / 'profile'}"]
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
    _chromium(f"--screenshot={shot}", "--window-size=1400,2600", report.as_uri(), tmp=tmp_path)
    assert shot.stat().st_size > 20_000  # a drawn page, not a blank one
    shutil.copy(shot, Path(report).with_name("report_screenshot.png"))


def test_report_sorts_in_the_browser(report: Path, tmp_path: Path) -> None:
    """The page's own script sorts: ``#sort=score`` ascending, ``#sort=call:desc`` descending."""
    up = _rows(_chromium("--dump-dom", report.as_uri() + "#sort=score", tmp=tmp_path).stdout)
    assert [r[0] for r in up] == ["3", "4", "1", "2"]  # 0.85, 0.88, 0.91, 0.95
    down = _rows(_chromium("--dump-dom", report.as_uri() + "#sort=call:desc", tmp=tmp_path).stdout)
    assert [r[0] for r in down] == ["4", "3", "2", "1"]
