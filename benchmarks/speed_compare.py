"""Baseline vs current code on the same benchmark run, side by side: CPU seconds, wall time, same oracle log?

    python benchmarks/speed_compare.py --baseline b558399 --variant dap --budget 2000
    python benchmarks/speed_compare.py --baseline main --task zaleplon_mpo_zinc --prior priors/zinc-gru-2x256-e11.prior \
        --variant pmo_ips_dap_cluster03_window_genetic_loops4_rank0001 --budget 2000 --repeats 2

The baseline tree is ``git archive``d into a temporary folder; each tree runs the identical run file (built here
from ``benchmarks/variants.toml`` and the task file) in a fresh process with one torch thread, in turn. CPU
seconds (user + system of the child) are the figure to compare on a shared machine; "run CPU s" leaves out the
child's start-up (imports, prior loading), which a short run would otherwise dilute the ratio with; wall time is
printed too. ``--repeats N`` alternates the two trees N times (baseline first) and reports each tree's median, so
a load change on a shared machine hits both; every repeat must give the same oracle log. The final agent weights
are compared bit for bit as well (sha256): a change in the last bits of the arithmetic can leave a short run's
oracle log identical (no sampled token flips) while the weights differ, and such runs part later.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlab.jobs import Job, run_config
from benchlab.paths import DEFAULT_PRIOR, REPO
from benchlab.tasks import resolve_tasks
from benchlab.variants import load_variants

CHILD = """
import hashlib, json, sys, time, torch
torch.set_num_threads(1)
from mara_chem.rl.config import load_run_config
from mara_chem.rl.loop import StagedLearning
runner = StagedLearning(load_run_config(json.loads(open(sys.argv[1]).read())), overwrite=True, quiet=True)
start = time.process_time()
result = runner.run()
seconds = time.process_time() - start
digest = hashlib.sha256()
for name, value in sorted(runner.agent.network.state_dict().items()):
    digest.update(name.encode())
    digest.update(value.detach().cpu().numpy().tobytes())
print(result.steps, seconds, digest.hexdigest())
"""


def run_tree(tree: Path, config: dict, workdir: Path) -> dict:
    """Run ``config`` with the mara_chem of ``tree``; CPU and wall seconds, steps and the oracle log's bytes."""
    cfg_path = workdir / "run.json.in"
    cfg_path.write_text(json.dumps(config))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, str(cfg_path)], cwd=tree, env={"PYTHONPATH": str(tree)},
                         capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    steps, run_cpu, weights = out.stdout.split()[-3:]
    return {"cpu_s": cpu, "run_cpu_s": float(run_cpu), "wall_s": wall, "steps": int(steps), "weights": weights,
            "log": (workdir / "oracle_log.csv").read_bytes()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default="b558399", help="git ref of the baseline code")
    parser.add_argument("--variant", default="dap")
    parser.add_argument("--task", default="ref_neighbourhoods")
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=1, help="alternate baseline and current this many times")
    parser.add_argument("--prior", default=str(DEFAULT_PRIOR), help="prior file (a PMO task runs on the ZINC prior)")
    args = parser.parse_args()
    task = resolve_tasks([args.task])[0]
    variant = load_variants()[args.variant]
    prior = str(Path(args.prior).resolve())
    names = ("baseline " + args.baseline, "current")
    runs: dict[str, list[dict]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory() as tmp:
        base_tree = Path(tmp) / "baseline_tree"
        base_tree.mkdir()
        archive = subprocess.run(["git", "archive", args.baseline], cwd=REPO, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base_tree)], input=archive, check=True)
        for repeat in range(args.repeats):
            for name, tree in zip(names, (base_tree, REPO)):
                workdir = Path(tmp) / f"run_{name.split()[0]}_{repeat}"
                workdir.mkdir()
                config = run_config(Job(task, variant, args.seed, args.budget, prior, workdir))
                runs[name].append(run_tree(tree, config, workdir))
    same = len({r["log"] for rs in runs.values() for r in rs}) == 1
    same_weights = len({r["weights"] for rs in runs.values() for r in rs}) == 1
    print(f"{args.task}, variant {args.variant}, seed {args.seed}, {args.budget} oracle calls, batch 64, 1 torch thread, "
          f"median of {args.repeats} alternating repeat(s); each run: " + ", ".join(
              f"{name.split()[0]} {r['run_cpu_s']:.1f}" for repeat in range(args.repeats)
              for name, rs in runs.items() for r in rs[repeat:repeat + 1]) + " run CPU s")
    print("| code | steps | CPU s | run CPU s | run CPU s/step | run CPU s per 1,000 calls | wall s | wall s per 1,000 calls |")
    print("|---|---|---|---|---|---|---|---|")
    results = {}
    for name, rs in runs.items():
        r = results[name] = {key: statistics.median(x[key] for x in rs) for key in ("cpu_s", "run_cpu_s", "wall_s")}
        r["steps"] = rs[0]["steps"]
        print(f"| {name} | {r['steps']} | {r['cpu_s']:.1f} | {r['run_cpu_s']:.1f} | {r['run_cpu_s'] / r['steps']:.3f} "
              f"| {r['run_cpu_s'] / args.budget * 1000:.1f} | {r['wall_s']:.1f} | {r['wall_s'] / args.budget * 1000:.1f} |")
    base, cur = results.values()
    print(f"speed-up (CPU): {base['cpu_s'] / cur['cpu_s']:.2f}x; run only: {base['run_cpu_s'] / cur['run_cpu_s']:.2f}x; "
          f"oracle logs identical: {same}; final agent weights bit-identical: {same_weights}")
    if not same:
        base_log, cur_log = (rs[0]["log"].decode().splitlines() for rs in runs.values())
        row = next((i for i, (a, b) in enumerate(zip(base_log, cur_log)) if a != b), min(len(base_log), len(cur_log)))
        print(f"the first run of each tree parts at oracle-log line {row + 1} (of {len(base_log)} and {len(cur_log)}, "
              "header included)")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
