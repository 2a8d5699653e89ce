"""The same run by REINVENT 4.8 and by mara-chem: step time per phase and hit rate after N steps.

    python benchmarks/reinvent_side_by_side.py --steps 20 --batch-size 64 --threads 2

One prior (default: the bundled one, written as a REINVENT file so both load identical weights), DAP
(sigma 128, rate 1e-4), QED, no diversity filter and no replay (so both do exactly sample -> score -> update),
the same seed. Phases per step: sampling (the agent's sampling and SMILES validation/canonicalisation),
scoring, likelihoods (agent and prior log-likelihoods of the batch), update (loss, backward, Adam step) and
the rest (reports, bookkeeping). Timings come from wrapping each implementation's own functions in this
process only. Hit rate: share of the last ``--window`` steps' sampled molecules with QED >= ``--threshold``,
read from each run's summary CSV (the same layout in both).
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

import torch

from benchlab.paths import DEFAULT_PRIOR, read_smiles
from benchlab.phases import PhaseClock

from mara_chem.models.prior_file import load_prior
from mara_chem.models.reinvent_prior import (is_reinvent_payload, load_model_file, save_reinvent_prior,
                                             teach_end_after_end)
from mara_chem.reinvent.export import to_toml

PHASES = ("sampling", "scoring", "likelihoods", "update", "other")


def run_file(prior: Path, out: Path, batch: int, steps: int, seed: int) -> str:
    """The one run both execute: DAP σ 128 at rate 1e-4 on QED, no filter, no replay, ``steps`` steps."""
    return to_toml({
        "run_type": "staged_learning", "device": "cpu", "seed": seed,
        "parameters": {"prior_file": str(prior), "agent_file": str(prior),
                       "summary_csv_prefix": str(out / "summary"), "batch_size": batch},
        "learning_strategy": {"type": "dap", "sigma": 128, "rate": 1e-4},
        # min_steps past max_steps: the mean-score rule never ends the stage before its last step
        "stage": [{"max_steps": steps, "max_score": 1.0, "min_steps": steps + 1, "chkpt_file": str(out / "stage1.chkpt"),
                   "scoring": {"type": "geometric_mean",
                               "component": [{"QED": {"endpoint": [{"name": "QED", "weight": 1}]}}]}}],
    })


def run_reinvent(path: Path, steps: int) -> tuple[dict[str, float], float]:
    from mara_chem.reinvent import install, stub_torchvision

    stub_torchvision()  # stated: REINVENT's one torchvision function, where torchvision is not installed
    install()
    from reinvent import Reinvent
    from reinvent.models.model_factory.reinvent_adapter import ReinventAdapter
    from reinvent.runmodes.RL.learning import Learning
    from reinvent.runmodes.RL.reward import RLReward
    from reinvent.runmodes.samplers.reinvent import ReinventSampler
    from reinvent.utils import parse_command_line

    clock = PhaseClock()
    clock.wrap(ReinventSampler, "sample", "sampling")
    clock.wrap(Learning, "score", "scoring")
    clock.wrap(ReinventAdapter, "likelihood_smiles", "likelihoods")
    clock.wrap(RLReward, "__call__", "update")
    clock.wrap(Learning, "optimize", "other")
    saved, sys.argv = sys.argv, ["reinvent", str(path), "--log-level", "warning"]
    try:
        start = time.perf_counter()
        Reinvent.main(parse_command_line())
        wall = time.perf_counter() - start
    finally:
        sys.argv = saved
    return dict(clock.totals), wall


def run_mara_chem(path: Path) -> tuple[dict[str, float], float]:
    """mara-chem's run, its phases timed through the public functions a step calls: the agent's sampling and
    canonicalisation, the oracle, the log-likelihoods (an agent that scores while it samples counts that in
    sampling), the agent update (loss, backward, optimiser step; its likelihoods counted as such)."""
    from mara_chem.chem.smiles import canonicalize
    from mara_chem.models.language_model import LanguageModel
    from mara_chem.rl.agent_update import AgentUpdate
    from mara_chem.rl.config import load_run_config
    from mara_chem.rl.loop import StagedLearning
    from mara_chem.rl.oracle import Oracle

    clock = PhaseClock()
    clock.wrap(LanguageModel, "sample", "sampling")
    clock.wrap_everywhere(canonicalize, "sampling", "mara_chem")
    clock.wrap(Oracle, "score", "scoring")
    clock.wrap(LanguageModel, "sequence_log_likelihood", "likelihoods")
    clock.wrap(AgentUpdate, "__call__", "update")
    runner = StagedLearning(load_run_config(path), overwrite=True, quiet=True)
    start = time.perf_counter()
    runner.run()
    wall = time.perf_counter() - start
    if clock.missing:
        print(f"mara-chem phases not in this tree (counted as other): {', '.join(clock.missing)}")
    return dict(clock.totals), wall


def hit_rate(summary: Path, threshold: float, window: int, steps: int) -> float:
    with open(summary, newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if int(r["step"]) > steps - window]
    return sum(r["Score"] not in ("", "nan") and float(r["Score"]) >= threshold for r in rows) / max(len(rows), 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prior", type=Path, default=DEFAULT_PRIOR,
                        help="a mara-chem or REINVENT prior file (both runs load the same weights)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--threshold", type=float, default=0.85)
    parser.add_argument("--window", type=int, default=5, help="hit rate over the last N steps")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        prior = args.prior
        if not is_reinvent_payload(load_model_file(prior)):
            model = load_prior(prior)
            smiles = read_smiles()
            end_logp = teach_end_after_end(model, [s for s in smiles if not model.vocabulary.unknown_tokens(s)][:64])
            print(f"prior written for REINVENT with mean log p($ | $) = {end_logp:.4f} over 12 steps after the end")
            prior = save_reinvent_prior(model, tmp / "prior.reinvent")
        results = {}
        for name, runner in (("REINVENT 4.8", lambda p: run_reinvent(p, args.steps)), ("mara-chem", run_mara_chem)):
            out = tmp / name.split()[0]
            out.mkdir()
            path = out / "run.toml"
            path.write_text(run_file(prior, out, args.batch_size, args.steps, args.seed))
            totals, wall = runner(path)
            totals["other"] = wall - sum(v for k, v in totals.items() if k != "other")
            results[name] = ({k: totals.get(k, 0.0) / args.steps for k in PHASES}, wall / args.steps,
                             hit_rate(out / "summary_1.csv", args.threshold, args.window, args.steps))
    print(f"prior {args.prior.name}, DAP sigma 128, QED, batch {args.batch_size}, {args.steps} steps, seed {args.seed}, "
          f"{args.threads} torch threads, torch {torch.__version__}")
    print("| run | " + " | ".join(f"{p} (s)" for p in PHASES) + f" | step (s) | hit rate QED>={args.threshold:g}, last {args.window} steps |")
    print("|---" * (len(PHASES) + 3) + "|")
    for name, (phases, step, hits) in results.items():
        print(f"| {name} | " + " | ".join(f"{phases[p]:.3f}" for p in PHASES) + f" | {step:.3f} | {hits:.3f} |")
    (rv_step, mc_step) = (results["REINVENT 4.8"][1], results["mara-chem"][1])
    print(f"mara-chem step / REINVENT step = {mc_step / rv_step:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
