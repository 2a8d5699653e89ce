"""``write_report``: one HTML page per run or scored table, plus ``hits.sdf`` and ``hits.csv`` for the chemists.

Two kinds of input: a run folder (its ``oracle_log.csv``: metrics, curves, hits) and the CSV a ``sampling``
or ``scoring`` run writes (its molecules, best score first). Both get the same hit table
(``report.hit_table``): structure, id, SMILES, every endpoint, properties, known and alert flags, nearest
reference, clusters and scaffold groups, route length; paged, filterable, and a marked selection exports
to CSV or SDF from the page itself. A scoring run's ``<output_csv>.run.json`` (its objective) is read
like a run's run.json: its KnownCompounds files are checked and its routes file is read.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from mara_chem.chem.alerts import split_names
from mara_chem.chem.known import KnownCompounds
from mara_chem.metrics.compute import MetricOptions, compute_metrics
from mara_chem.run_folder.oracle_log import LogTable, read_oracle_log
from mara_chem.metrics.table import html_table
from mara_chem.metrics.yield_ob import hits
from mara_chem.report import plots
from mara_chem.report.annotate import annotate, known_compounds
from mara_chem.report.curves import circles_curve, hits_curve, molecules_of, score_per_step
from mara_chem.report.hit_table import hits_table
from mara_chem.report.molecules import hits_frame, write_hits_csv, write_hits_sdf
from mara_chem.report.objective import objective_html, pose_files, pose_index
from mara_chem.report.page import img_tag, page, section
from mara_chem.report.routes import ROUTES_NAME, read_all_routes, routes_files, routes_section
from mara_chem.report.defaults import DEFAULT_CLUSTER_SIMILARITY, DEFAULT_TOP
from mara_chem.run_folder.run_record import read_run_record

#: the threshold when neither the command line nor the run says one
DEFAULT_THRESHOLD = 0.8
#: hits whose routes are drawn reaction by reaction below the table
ROUTES_SHOWN = 24


def run_threshold(record: dict | None) -> float:
    """The run's own hit threshold (``[parameters] hit_threshold`` in run.json), else 0.8."""
    value = ((record or {}).get("parameters") or {}).get("hit_threshold")
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else DEFAULT_THRESHOLD


def _plot_section(log: LogTable, threshold: float, budget: int, opts: MetricOptions) -> str:
    calls, n_hits = hits_curve(log, threshold, budget)
    c_calls, circles = circles_curve(log, threshold, budget, t=opts.circle_distance, seed=opts.seed,
                                     spec=opts.fingerprint)
    images = [
        img_tag(plots.curve_png(calls, n_hits, f"Hits (score ≥ {threshold}) vs oracle calls", "unique hits", budget),
                "hits vs oracle calls"),
        img_tag(plots.curve_png(c_calls, circles, f"#Circles (t = {opts.circle_distance}) vs oracle calls",
                                "#Circles", budget, sampled=True), "circles vs oracle calls"),
        img_tag(plots.score_per_step_png(score_per_step(log, budget), threshold), "score per step"),
        img_tag(plots.histogram_png([m.score for m in molecules_of(log, budget)], threshold), "score histogram"),
    ]
    return section("Curves", '<div class="plots">' + "\n".join(images) + "</div>")


def _flags_note(df: pd.DataFrame, shown: int, noun: str, known: KnownCompounds, cluster_similarity: float) -> str:
    n_known = int((df["known_in"] != "").sum())
    n_alerts = int((df["alert_names"] != "").sum())
    checked = ", ".join(known.labels)
    sources = sorted({s for v in df["known_in"] for s in split_names(v)})
    known_text = (f"{n_known} of them known (in {', '.join(sources)}; shaded), checked against {checked}"
                  if checked else "none checked against a reference set (give --known FILE)")
    return (f"<p>{len(df)} {noun}, {known_text}; {n_alerts} with a PAINS/Brenk alert (named in red; soft "
            f"alerts only in orange). {'All' if shown == len(df) else f'The best {shown}'} below, grouped by "
            f"Murcko scaffold; cluster: leader clustering at Tanimoto ≥ {cluster_similarity:g}. Click a column "
            "to sort, filter with the boxes above the table, tick rows to mark them and export the marked rows "
            "as CSV or SDF.</p>")


def _hits_section(out_dir: Path, prefix: str, df: pd.DataFrame, title: str, top: int, known: KnownCompounds,
                  cluster_similarity: float, noun: str = "hits") -> tuple[str, int]:
    write_hits_csv(df, out_dir / f"{prefix}hits.csv")
    n_sdf = write_hits_sdf(df, out_dir / f"{prefix}hits.sdf")
    note = (f"<p>Exported to {prefix}hits.csv and {prefix}hits.sdf ({n_sdf} records).</p>"
            + (_flags_note(df, min(top, len(df)), noun, known, cluster_similarity) if len(df) else ""))
    return section(title, note + hits_table(df, top, stem=prefix)), n_sdf


def _sections(record: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [s["scoring"] for s in (record or {}).get("stage", [])]


def write_report(run_dir: str | Path, threshold: float | None = None, budget: int | None = None,
                 top: int = DEFAULT_TOP, opts: MetricOptions = MetricOptions(), known_files: Sequence[str | Path] = (),
                 cluster_similarity: float = DEFAULT_CLUSTER_SIMILARITY) -> Path:
    """Write ``RUN_DIR/report.html`` (objective, metrics, curves, the hit table) and the hit exports.

    ``threshold`` None: the run's own ``hit_threshold``. ``known_files``: reference sets besides the run's.
    ``cluster_similarity``: the Tanimoto at which a hit joins a cluster."""
    run_dir = Path(run_dir)
    record = read_run_record(run_dir)
    threshold = run_threshold(record) if threshold is None else threshold
    log = read_oracle_log(run_dir)
    metrics = compute_metrics(run_dir, [threshold], budget, opts, log=log)
    budget = int(metrics["budget"])  # type: ignore[arg-type]
    df = hits_frame(hits(log.molecules(budget), threshold), log.df)
    for endpoint, where in pose_index(pose_files(record)).items():
        df[f"{endpoint}_pose"] = [where.get(s, "") for s in df["smiles"]]
    known = known_compounds(record, known_files)
    routes = read_all_routes(routes_files(_sections(record), run_dir / ROUTES_NAME))
    df = annotate(df, known, cluster_similarity=cluster_similarity, spec=opts.fingerprint, routes=routes)
    hits_html, _ = _hits_section(run_dir, "", df, f"Top hits (score ≥ {threshold})", top, known, cluster_similarity)
    hits_html += routes_section(run_dir, df["smiles"].tolist(), ROUTES_SHOWN, records=routes)
    intro = [f"Run folder: {run_dir}", f"Fingerprint: {opts.fingerprint.describe()}",
             f"Budget: {budget} oracle calls ({metrics['budget_source']})",
             f"Hit threshold: {threshold}" + (" (the run's hit_threshold)" if record and
                                              ((record.get('parameters') or {}).get('hit_threshold') == threshold)
                                              else "")]
    objective = [section("Objective (what the run was asked)", objective_html(record))] if record else []
    html_text = page(f"mara-chem run report: {run_dir.name}", intro, [
        *objective,
        section("Metrics", html_table(metrics)),
        _plot_section(log, threshold, budget, opts),
        hits_html,
    ])
    out = run_dir / "report.html"
    out.write_text(html_text, encoding="utf-8")
    return out


def read_scored_table(path: Path) -> pd.DataFrame:
    """A sampling or scoring output as a hit frame: ``smiles``, ``score`` (NaN when unscored), best first."""
    df = pd.read_csv(path, dtype={"id": str}, keep_default_na=True)
    if "SMILES" not in df.columns:
        raise ValueError(f"{path}: no SMILES column (columns: {', '.join(map(str, df.columns))}); "
                         "give a run folder or the CSV a sampling or scoring run wrote")
    df = df.rename(columns={"SMILES": "smiles"})
    if "score" not in df.columns:
        df["score"] = float("nan")
    if "id" not in df.columns:
        df.insert(0, "id", [str(n) for n in range(1, len(df) + 1)])
    df = df[df["smiles"].notna() & (df["smiles"].astype(str) != "")]
    return df.sort_values("score", ascending=False, kind="stable", na_position="last").reset_index(drop=True)


def scoring_record(csv_path: Path) -> dict[str, Any] | None:
    """The scoring section a ``scoring`` run recorded beside its CSV (``<output_csv>.run.json``), if any."""
    path = csv_path.with_name(csv_path.name + ".run.json")
    try:
        scoring = json.loads(path.read_text(encoding="utf-8")).get("scoring")
    except (OSError, ValueError, AttributeError):
        return None
    return scoring if isinstance(scoring, dict) else None


def write_table_report(csv_path: str | Path, threshold: float | None = None, top: int = DEFAULT_TOP,
                       known_files: Sequence[str | Path] = (),
                       cluster_similarity: float = DEFAULT_CLUSTER_SIMILARITY) -> Path:
    """Write ``STEM_report.html``, ``STEM_hits.csv`` and ``STEM_hits.sdf`` beside a sampling/scoring CSV.

    ``threshold`` None: every molecule (best score first); else those scoring at least ``threshold``."""
    path = Path(csv_path)
    df = read_scored_table(path)
    total, scored = len(df), int(df["score"].notna().sum())
    if threshold is not None:
        df = df[df["score"] >= threshold].reset_index(drop=True)
    scoring = scoring_record(path)
    known = known_compounds(None, known_files, scoring=scoring)
    routes = read_all_routes(routes_files([scoring] if scoring else []))
    df = annotate(df, known, cluster_similarity=cluster_similarity, routes=routes)
    title = f"Top molecules (score ≥ {threshold})" if threshold is not None else "Molecules, best score first"
    body, _ = _hits_section(path.parent, f"{path.stem}_", df, title, top, known, cluster_similarity,
                            "hits" if threshold is not None else "molecules")
    body += routes_section(path.parent, df["smiles"].tolist(), ROUTES_SHOWN, records=routes)
    intro = [f"Table: {path}", f"{total} molecules, {scored} scored" + (
        f"; {len(df)} at score ≥ {threshold}" if threshold is not None else "; no threshold (all molecules listed)")]
    out = path.parent / f"{path.stem}_report.html"
    out.write_text(page(f"mara-chem report: {path.name}", intro, [body]), encoding="utf-8")
    return out


def report_input(path: str | Path) -> tuple[str, Path]:
    """('run', folder) for a run folder, ('table', csv) for a sampling/scoring CSV or a folder holding one."""
    path = Path(path)
    if path.is_file():
        return "table", path
    if not path.is_dir():
        raise FileNotFoundError(f"{path} does not exist")
    if (path / "oracle_log.csv").exists():
        return "run", path
    tables = sorted(p for p in path.glob("*.csv") if not p.name.endswith(("_hits.csv", "hits.csv")))
    tables = [p for p in tables if "SMILES" in p.open().readline().strip().split(",")]
    if len(tables) == 1:
        return "table", tables[0]
    raise FileNotFoundError(f"{path} has no oracle_log.csv (not a run folder) and "
                            + (f"{len(tables)} result CSVs ({', '.join(p.name for p in tables)}): name one"
                               if tables else "no sampling or scoring CSV"))
