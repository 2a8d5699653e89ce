"""Command line of the benchmark runner: ``mara-chem-bench`` (the same as ``python benchmarks/run_benchmark.py``)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from benchlab.jobs import DEFAULT_BUDGET, make_jobs, run_config
from benchlab.paths import DEFAULT_PRIOR, REPO, RESULTS, VARIANTS_FILE
from benchlab.tasks import resolve_tasks
from benchlab.variants import load_variants, resolve_variants
DESCRIPTION = """Multi-seed benchmark runner: tasks x variants x seeds, in worker processes, then tables and plots.

Each run gets its own folder <runs>/<task>/<variant>/seed<k> holding the staged-learning outputs and, once
finished, benchmark_run.json with the sha256 of its whole configuration; a finished run is reused only when
that configuration matches (task file, strategy options, harness, budget, batch size, prior), an interrupted
one resumes from its checkpoint. Afterwards (or with --summarize-only) every metric is recomputed from the
oracle logs and written to --out. A failed run makes the runner exit 1 and leaves the previous tables alone.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=["project"],
                   help="groups ('project': the three project tasks, 'pmo': the PMO/GuacaMol set, 'all': both), "
                        "task names (e.g. celecoxib_rediscovery or pmo/celecoxib_rediscovery) or task files "
                        "(default: project)")
    p.add_argument("--variants", "--strategies", dest="variants", nargs="+", default=None,
                   help="variant names from the variants file (default: all of them)")
    p.add_argument("--variants-file", default=str(VARIANTS_FILE), help="TOML table file of named variants")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="oracle calls per run (default 10000)")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--max-steps", type=int, default=400,
                   help="step cap (a run ends on the budget unless its policy stops producing new molecules)")
    p.add_argument("--workers", type=int, default=2, help="parallel processes (one torch thread each)")
    p.add_argument("--prior", default=str(DEFAULT_PRIOR), help="prior file (copy it first if it is being retrained)")
    p.add_argument("--runs", default=str(REPO / "runs" / "benchmark"), help="root folder of the run folders")
    p.add_argument("--out", default=str(RESULTS / "suite"), help="folder for tables and figures")
    p.add_argument("--ob-n", type=int, default=100, help="N of the OB_N column")
    p.add_argument("--circle-seed", type=int, default=None,
                   help="#Circles: visit hits in a random order with this seed (default: discovery order)")
    p.add_argument("--summarize-only", action="store_true", help="rebuild tables and plots from existing runs")
    p.add_argument("--prior-hit-rates", type=int, metavar="N", default=0,
                   help="only sample N SMILES from the prior and report each task's hit rates")
    return p


def _check_configs(jobs: Sequence) -> None:
    """Validate every job's run file before any oracle call is paid; a bad variant is a one-line error."""
    from mara_chem.rl.config import ConfigError, load_run_config

    for job in jobs:
        try:
            load_run_config(run_config(job))
        except ConfigError as exc:
            first = str(exc).splitlines()[0]
            raise SystemExit(f"variant {job.variant.name!r} on task {job.task.name}: {first}") from None


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    tasks = resolve_tasks(args.tasks)
    known = load_variants(args.variants_file)
    variants = resolve_variants(args.variants or list(known), known)
    out = Path(args.out)
    if args.prior_hit_rates:
        from benchlab.prior_rates import prior_hit_rates

        prior_hit_rates(tasks, args.prior, args.prior_hit_rates, 0, out)
        return 0
    if not Path(args.prior).exists():
        raise SystemExit(f"prior file {args.prior} does not exist")
    jobs = make_jobs(tasks, variants, args.seeds, args.budget, str(args.prior), Path(args.runs),
                     args.batch_size, args.max_steps)
    _check_configs(jobs)
    command = "python benchmarks/run_benchmark.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if not args.summarize_only:
        from benchlab.pool import run_grid

        start = time.perf_counter()
        failed = [r["key"] for r in run_grid(jobs, args.workers) if r["status"] == "failed"]
        print(f"grid finished in {time.perf_counter() - start:.0f} s; {len(failed)} failed run(s) {' '.join(failed)}",
              flush=True)
        if failed:
            print(f"tables in {out} left as they were; repeat the command to run the failed runs again", flush=True)
            return 1
    from benchlab.summary import summarize  # imported here: a long grid summarises with the code of its end

    info = summarize(jobs, tasks, variants, out, args.ob_n, command, args.circle_seed, args.workers)
    if info is None:
        print(f"no finished run matches this grid; tables in {out} left as they were", flush=True)
        return 1
    print(f"{len(info['runs'])} runs summarised; tables and figures in {out}")
    return 0
