"""``write_report``: one HTML page per run, plus ``hits.sdf`` and ``hits.csv`` for the chemists."""

from __future__ import annotations

from pathlib import Path

from mara_chem.metrics.compute import MetricOptions, compute_metrics
from mara_chem.run_folder.oracle_log import LogTable, read_oracle_log
from mara_chem.metrics.table import html_table
from mara_chem.metrics.yield_ob import hits
from mara_chem.report import plots
from mara_chem.report.curves import circles_curve, hits_curve, molecules_of, score_per_step
from mara_chem.report.molecules import grid_png, hits_frame, top_hits_table, write_hits_csv, write_hits_sdf
from mara_chem.report.objective import objective_html, pose_files, pose_index
from mara_chem.report.page import img_tag, page, section
from mara_chem.report.routes import routes_section
from mara_chem.run_folder.run_record import read_run_record


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


def _hits_section(run_dir: Path, log: LogTable, threshold: float, budget: int, top: int,
                  record: dict | None) -> tuple[str, int]:
    df = hits_frame(hits(log.molecules(budget), threshold), log.df)
    poses = pose_index(pose_files(record))
    for endpoint, where in poses.items():
        df[f"{endpoint}_pose"] = [where.get(s, "") for s in df["smiles"]]
    write_hits_csv(df, run_dir / "hits.csv")
    n_sdf = write_hits_sdf(df, run_dir / "hits.sdf")
    grid = grid_png(df, top)
    body = img_tag(grid, "top hits") if grid else "<p>No hits at this threshold.</p>"
    note = f"<p>{len(df)} hits exported to hits.csv and hits.sdf ({n_sdf} records); best {min(top, len(df))} shown.</p>"
    if poses and len(df):
        body += top_hits_table(df.head(top), [f"{e}_pose" for e in poses])
    routes = routes_section(run_dir, df["smiles"].tolist(), top)
    return section(f"Top hits (score ≥ {threshold})", note + body) + routes, n_sdf


def write_report(run_dir: str | Path, threshold: float = 0.8, budget: int | None = None, top: int = 24,
                 opts: MetricOptions = MetricOptions()) -> Path:
    """Write ``RUN_DIR/report.html`` (metrics table, curves, top-hit grid) and the hit exports; return the page."""
    run_dir = Path(run_dir)
    log = read_oracle_log(run_dir)
    metrics = compute_metrics(run_dir, [threshold], budget, opts, log=log)
    budget = int(metrics["budget"])  # type: ignore[arg-type]
    record = read_run_record(run_dir)
    hits_html, _ = _hits_section(run_dir, log, threshold, budget, top, record)
    intro = [f"Run folder: {run_dir}", f"Fingerprint: {opts.fingerprint.describe()}",
             f"Budget: {budget} oracle calls ({metrics['budget_source']})"]
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
