"""One place per metric (mara_chem/metrics/metric.py): compute_metrics, the metrics table, metrics.json's
conventions and the benchmark's columns all read the declarations, and the docs name every metric."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mara_chem.metrics import metric
from mara_chem.metrics.compute import MetricOptions, compute_metrics
from mara_chem.metrics.table import format_table, table_rows
from tests.paths import REPO

LOG = "call,step,smiles,score,reason\n1,1,CCO,0.9,\n2,1,c1ccccc1O,0.5,\n3,2,c1ccncc1,0.85,\n4,2,CCN,0.81,\n"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    (tmp_path / "oracle_log.csv").write_text(LOG)
    return tmp_path


def test_every_module_that_declares_a_metric_is_a_builtin_module():
    """A metric in a module nobody imports would silently be missing from every table."""
    declaring = set()
    for path in sorted((REPO / "mara_chem" / "metrics").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and getattr(d.func, "id", "") in ("threshold_metrics", "run_metrics")
                    for d in node.decorator_list):
                declaring.add(f"mara_chem.metrics.{path.stem}")
    assert declaring == set(metric.BUILTIN_MODULES)


def test_docs_name_every_metric_and_metrics_json_states_every_convention(run_dir):
    doc = (REPO / "docs" / "metrics.md").read_text()
    for _, column in metric.columns():
        name = column.label.split("{")[0].strip() or column.key
        assert name.lower() in doc.lower(), f"docs/metrics.md does not describe {column.label!r}"
    stated = compute_metrics(run_dir, [0.8])["conventions"]
    assert set(metric.conventions()) <= set(stated) and {"oracle_call", "molecule", "hit"} <= set(stated)


def test_the_table_is_the_declared_columns_in_order(run_dir):
    m = compute_metrics(run_dir, [0.8], opts=MetricOptions(n=2))
    headers, (row,) = table_rows(m)
    assert headers == ["τ", "Yield", "OB2", "IntDiv1", "#Circles", "AUC top-10", "#Scaffolds", "Top scaffold share"]
    # hits at 0.8: CCO (call 1), pyridine (call 3), CCN (call 4); the 2nd is at call 3
    assert row[:3] == ["0.80", "3", "3"] and row[6] == "2"  # acyclic CCO and CCN share the empty scaffold


def test_a_new_metric_is_one_declaration(run_dir):
    """Declared once, it is computed, printed and its convention stated, with no other file touched."""

    @metric.threshold_metrics(metric.Column("mean_hit_heavy_atoms", "Hit size", ".1f"), column=65,
                              conventions={"mean_hit_heavy_atoms": "mean heavy-atom count of the hits"})
    def _mean_size(h: metric.HitsAtThreshold) -> dict[str, object]:
        from rdkit import Chem

        sizes = [Chem.MolFromSmiles(s).GetNumHeavyAtoms() for s in h.smiles]
        return {"mean_hit_heavy_atoms": sum(sizes) / len(sizes) if sizes else None}

    try:
        m = compute_metrics(run_dir, [0.8, 0.95])
        assert m["thresholds"][0]["mean_hit_heavy_atoms"] == pytest.approx((3 + 6 + 3) / 3)
        assert m["thresholds"][1]["mean_hit_heavy_atoms"] is None
        assert m["conventions"]["mean_hit_heavy_atoms"] == "mean heavy-atom count of the hits"
        headers, rows = table_rows(m)
        assert headers.index("Hit size") == headers.index("#Scaffolds") + 2  # after column 60's two columns
        assert [r[headers.index("Hit size")] for r in rows] == ["4.0", "n/a"]
        assert "Hit size" in format_table(m)
        with pytest.raises(ValueError, match="declared twice"):
            metric.threshold_metrics(metric.Column("yield", "Yield again", "d"), column=1)(_mean_size)
    finally:
        metric._PRODUCERS[:] = [p for p in metric._PRODUCERS if p.compute is not _mean_size]
