"""The lab's metric columns and labels come from mara-chem's metric declarations (declared once)."""

from __future__ import annotations

from benchlab.run_metrics import METRIC_LABELS, METRICS


def test_the_benchmark_reads_its_columns_and_labels_from_the_declarations():
    assert METRICS == ("yield", "ob_n", "intdiv1", "n_circles", "n_scaffolds")  # the committed runs.csv columns
    assert METRIC_LABELS == {"yield": "Yield", "ob_n": "OB{n}", "intdiv1": "IntDiv1", "n_circles": "#Circles",
                             "n_scaffolds": "#Scaffolds", "auc_top10": "AUC top-10"}
