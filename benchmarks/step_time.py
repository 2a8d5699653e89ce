"""Median non-oracle time per RL step (sampling, likelihoods, filters, loss, update) for each strategy.

    python benchmarks/step_time.py --batch-sizes 64 1024 --steps 8 --device cpu

The oracle here is QED (cheap) and its time is subtracted, so the figure is the loop's own overhead.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import torch

from mara_chem.rl.config import load_run_config
from mara_chem.rl.loop import StagedLearning

STRATEGIES = {
    "dap": {"type": "dap", "sigma": 128},
    "mara": {"type": "mara", "sigma": 128, "tau_quantile": 0.9},
    "dap+logZ": {"type": "dap", "sigma": 128, "learn_log_z": True},
    "reinforce(rev KL)": {"type": "reinforce", "kl": "reverse"},
    "rloo(fwd KL)": {"type": "rloo", "kl": "forward"},
    "grpo": {"type": "grpo"},
    "ips_grpo": {"type": "ips_grpo"},
}


def run_once(prior: str, strategy: dict, batch: int, steps: int, device: str, workdir: Path) -> float:
    cfg = load_run_config({
        "run_type": "staged_learning", "device": device, "seed": 0,
        "parameters": {"prior_file": prior, "agent_file": prior, "summary_csv_prefix": str(workdir / "summary"),
                       "batch_size": batch, "checkpoint_every": 10_000},
        "learning_strategy": {**strategy, "rate": 1e-4},
        "diversity_filter": {"type": "IdenticalMurckoScaffold", "bucket_size": 10},
        "inception": {"memory_size": 100, "sample_size": 10},
        "stage": [{"max_steps": steps + 1, "min_steps": 10_000, "scoring": {"component": [
            {"QED": {"endpoint": [{"name": "QED"}]}}]}}],
    })
    runner = StagedLearning(cfg, overwrite=True, quiet=True)
    runner.run()
    return statistics.median(r.non_oracle_seconds for r in runner.history[1:])  # first step warms up


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prior", default="priors/moses-gru-2x256.prior")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 1024])
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--strategies", nargs="+", default=list(STRATEGIES))
    args = parser.parse_args()
    device = "cuda" if args.device == "auto" and torch.cuda.is_available() else args.device
    print(f"device={device} torch threads={torch.get_num_threads()} prior={args.prior}")
    print("| strategy | " + " | ".join(f"batch {b} (s/step)" for b in args.batch_sizes) + " |")
    print("|---|" + "---|" * len(args.batch_sizes))
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.strategies:
            times = [run_once(args.prior, STRATEGIES[name], b, args.steps, device, Path(tmp) / f"{name}_{b}")
                     for b in args.batch_sizes]
            print(f"| {name} | " + " | ".join(f"{t:.3f}" for t in times) + " |", flush=True)


if __name__ == "__main__":
    main()
