"""Cost per 1,000 oracle calls of a short run with and without ``[genetic]`` (one process, one torch thread).

    PYTHONPATH=. python benchmarks/genetic_cost.py --budget 1000

The run is configs/demo.toml's (bundled prior, batch 64, scaffold filter, replay memory 100) with DAP (σ 128,
rate 1e-4) and a budget of ``--budget`` calls, run three ways: without the table; with Genetic GFN's GA and
replay settings (2 generations of 8 offspring, 8 off-policy updates of 64); and the same GA without replay.
Wall and CPU seconds are printed per 1,000 calls (CPU: this process's, less disturbed by other load).
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tomllib
from pathlib import Path

import torch

from mara_chem.rl.config import load_run_config
from mara_chem.rl.loop import StagedLearning

REPO = Path(__file__).resolve().parents[1]
CASES = {
    "without [genetic]": None,
    "[genetic] 2 x 8, 8 replays of 64": {"generations": 2, "offspring": 8, "replay_loops": 8,
                                          "replay_sample_size": 64},
    "[genetic] 2 x 8, no replay": {"generations": 2, "offspring": 8, "replay_loops": 0},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", type=int, default=1000, help="oracle calls per run")
    args = parser.parse_args()
    torch.set_num_threads(1)
    base = tomllib.loads((REPO / "configs" / "demo.toml").read_text())
    base["device"] = "cpu"
    base["learning_strategy"] = {"type": "dap", "sigma": 128, "rate": 1e-4}
    base["stage"][0].update(max_oracle_calls=args.budget, max_steps=400, min_steps=400)
    base["stage"][0]["scoring"]["filename"] = "similar_to_references.toml"
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, table) in enumerate(CASES.items()):
            config = {**base, "parameters": {**base["parameters"], "summary_csv_prefix": f"{tmp}/run{i}/summary"}}
            if table:
                config["genetic"] = table
            runner = StagedLearning(load_run_config(config), overwrite=True, quiet=True)
            cpu, wall = time.process_time(), time.perf_counter()
            result = runner.run()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            per = 1000 / max(result.oracle_calls, 1)
            print(f"{name}: {result.steps} steps, {result.oracle_calls} calls, {wall * per:.1f} s wall and "
                  f"{cpu * per:.1f} s CPU per 1,000 calls", flush=True)


if __name__ == "__main__":
    main()
