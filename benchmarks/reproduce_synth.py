"""The published SYNTH and ALL-AMIDE protocols as a reproduction grid: strategies x seeds x protocol.

    python benchmarks/reproduce_synth.py --seeds 0 1 2 3 4 --workers 4 --executor ray --address auto
    python benchmarks/reproduce_synth.py --smoke          # minutes on a laptop: no docking, tiny budget

SYNTH: ClpP docking (Vina) + QED + HBD <= 3 + a retrosynthesis route (any reaction), 10,000 oracle calls.
ALL-AMIDE: the same with every route reaction an amide coupling, 5,000 calls. The scoring of each protocol
is read from its run file (``configs/synth_clpp_mara.toml``, ``configs/all_amide_clpp_mara.toml``); the
strategies (the variants ``dap`` = REINVENT, ``mara``, ``grpo``, ``ips_grpo`` of ``benchmarks/variants.toml``) and
the run harness, tables and figures are the benchmark runner's (``benchlab``), so both write the same
``results.md``/``.csv``/``.json``.
``--executor ray --address ...`` sends docking and retrosynthesis to a Ray cluster; ``--workers`` runs
that many learners at once (a process pool). Before anything runs, the expected full-scale cost is
printed. ``--smoke`` drops the docking endpoint (the receptor is not in this repository), and runs two
strategies, one seed, 32 calls per protocol with a 5 s retrosynthesis limit: a check that the pipeline
works, not a result.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from benchlab.jobs import make_jobs
from benchlab.paths import DEFAULT_PRIOR, REPO, RESULTS
from benchlab.pool import run_grid
from benchlab.summary import summarize
from benchlab.tasks import Task
from benchlab.variants import load_variants, resolve_variants

STRATEGIES = ("dap", "mara", "grpo", "ips_grpo")  # variants of benchmarks/variants.toml

PROTOCOLS = {  # name: (run file whose scoring is used, budget, description)
    "SYNTH": ("synth_clpp_mara.toml", 10_000, "ClpP docking + QED + HBD <= 3 + retrosynthesis route (any reaction)"),
    "ALL-AMIDE": ("all_amide_clpp_mara.toml", 5_000, "as SYNTH, every route reaction an amide coupling"),
}
DOCKING_S_PER_LIGAND = 3.6  # per core, exhaustiveness 1, ClpP box (configs/synth_clpp_*.toml)
RETRO_S_PER_MOLECULE = 2.0  # per core; see docs/oracles.md, "Retrosynthesis", for the measured distribution
THRESHOLDS = (0.7, 0.8)  # lenient, strict (the papers' hit threshold)


def protocol_scoring(name: str, smoke: bool, executor: str, address: str | None, cache_dir: Path) -> dict[str, Any]:
    """The protocol's scoring section with run-specific output paths removed and the executor applied."""
    run_file, _, _ = PROTOCOLS[name]
    scoring = copy.deepcopy(tomllib.loads((REPO / "configs" / run_file).read_text())["stage"][0]["scoring"])
    kept = []
    for entry in scoring["component"]:
        (kind, body), = entry.items()
        if smoke and kind == "vina_docking":
            continue
        for endpoint in body["endpoint"]:
            params = endpoint.setdefault("params", {})
            for key in ("pose_sdf", "pose_score_max", "routes_file"):  # one file per run folder is not expressible here
                params.pop(key, None)
            if kind in ("vina_docking", "retrosynthesis"):
                params["executor"] = "serial" if smoke else executor
                if address:
                    params["address"] = address
                params["cache_path"] = str(cache_dir / f"{kind}.sqlite")
            if kind == "retrosynthesis" and smoke:
                params.update(time_limit_s=5, max_iterations=20)
        kept.append(entry)
    scoring["component"] = kept
    return scoring


def expected_cost(strategies: list[str], seeds: list[int], cores: int, retro_s: float) -> str:
    lines = [f"expected full-scale cost ({len(strategies)} strategies x {len(seeds)} seeds; docking "
             f"{DOCKING_S_PER_LIGAND} s + retrosynthesis {retro_s} s per molecule per core; caches shared "
             f"across runs only lower it):"]
    total = 0.0
    for name, (_, budget, _) in PROTOCOLS.items():
        core_h = len(strategies) * len(seeds) * budget * (DOCKING_S_PER_LIGAND + retro_s) / 3600
        total += core_h
        lines.append(f"  {name}: {len(strategies) * len(seeds)} runs x {budget:,} calls = {core_h:,.0f} core-hours "
                     f"({core_h / cores:,.1f} h on {cores} cores)")
    lines.append(f"  total: {total:,.0f} core-hours ({total / cores:,.1f} h on {cores} cores), plus the learners' own time")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--protocols", nargs="+", default=list(PROTOCOLS), choices=list(PROTOCOLS))
    p.add_argument("--strategies", nargs="+", default=list(STRATEGIES), choices=list(STRATEGIES))
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    p.add_argument("--workers", type=int, default=1, help="learners run at once (process pool)")
    p.add_argument("--executor", default="pool", choices=["serial", "pool", "ray"], help="for docking and retrosynthesis")
    p.add_argument("--address", default=None, help="Ray cluster address ('auto', 'ray://host:10001')")
    p.add_argument("--cores", type=int, default=64, help="cores assumed by the printed cost estimate")
    p.add_argument("--retro-seconds", type=float, default=RETRO_S_PER_MOLECULE, help="retrosynthesis s/molecule/core for the estimate")
    p.add_argument("--prior", default=str(DEFAULT_PRIOR))
    p.add_argument("--runs", default=str(REPO / "runs" / "reproduce_synth"))
    p.add_argument("--out", default=str(RESULTS / "reproduce_synth"))
    p.add_argument("--smoke", action="store_true", help="no docking, dap+mara, seed 0, 32 calls: minutes")
    p.add_argument("--summarize-only", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    print(expected_cost(args.strategies, args.seeds, args.cores, args.retro_seconds), flush=True)
    strategies, seeds = (["dap", "mara"], [0]) if args.smoke else (args.strategies, args.seeds)
    runs, out = Path(args.runs), Path(args.out)
    if args.smoke:
        runs, out = runs.with_name(runs.name + "_smoke"), out.with_name(out.name + "_smoke")
    variants = resolve_variants(strategies, load_variants())
    jobs, tasks = [], []
    for name in args.protocols:
        _, budget, description = PROTOCOLS[name]
        scoring = protocol_scoring(name, args.smoke, args.executor, args.address, runs / "caches")
        # the task's digest (a finished run is reused only for the same one) is that of its scoring section
        digest = hashlib.sha256(json.dumps(scoring, sort_keys=True).encode()).hexdigest()
        task = Task(name=name, description=description + (" [smoke: no docking]" if args.smoke else ""),
                    thresholds=THRESHOLDS, region_kind="none", scoring=scoring, sha256=digest)
        tasks.append(task)
        jobs += make_jobs([task], variants, seeds, 32 if args.smoke else budget, args.prior, runs,
                          batch_size=16 if args.smoke else 64, max_steps=8 if args.smoke else 400)
    command = "python benchmarks/reproduce_synth.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if not args.summarize_only:
        start = time.perf_counter()
        failed = [r["key"] for r in run_grid(jobs, args.workers) if r["status"] == "failed"]
        print(f"grid finished in {time.perf_counter() - start:.0f} s; {len(failed)} failed run(s) {' '.join(failed)}",
              flush=True)
        if failed:
            return 1
    info = summarize(jobs, tasks, variants, out, 100, command)
    if info is None:
        print(f"no finished run to summarise in {runs}", file=sys.stderr)
        return 1
    print(f"{len(info['runs'])} runs summarised; tables and figures in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
