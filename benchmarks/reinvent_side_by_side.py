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
from collections import defaultdict
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mara_chem.models.prior_file import load_prior  # noqa: E402
from mara_chem.models.reinvent_prior import is_reinvent_payload, load_model_file, save_reinvent_prior  # noqa: E402

PHASES = ("sampling", "scoring", "likelihoods", "update", "other")


class PhaseClock:
    """Accumulates wall time per phase; a phase timed inside another is subtracted from the outer one."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = defaultdict(float)
        self._stack: list[list] = []

    @contextmanager
    def phase(self, name: str):
        start = time.perf_counter()
        self._stack.append([name, 0.0])
        try:
            yield
        finally:
            _, inner = self._stack.pop()
            elapsed = time.perf_counter() - start
            self.totals[name] += elapsed - inner
            if self._stack:
                self._stack[-1][1] += elapsed

    def wrap(self, owner: object, attribute: str, name: str) -> None:
        original: Callable = getattr(owner, attribute)
        clock = self

        def timed(*args, **kwargs):
            with clock.phase(name):
                return original(*args, **kwargs)

        setattr(owner, attribute, timed)


def teach_end_after_end(model, smiles: list[str], chain: int = 12, steps: int = 40) -> float:
    """Make ``$`` followed by ``$`` near-certain, as in a prior REINVENT trained (its likelihood counts the
    padding, which is ``$``). REINVENT's sampler stops only once every row emits ``$`` in the same step; a
    prior trained elsewhere keeps sampling after ``$`` up to the maximum length, which would make REINVENT's
    sampling look slower than it is with its own priors. Only the input embedding of ``$`` changes: ``$`` is
    never an input before the end, so every SMILES keeps its log-likelihood. Returns mean log p($ | $...)."""
    vocab, net = model.vocabulary, model.network
    tokens = vocab.encode_batch(smiles)
    last = (tokens != vocab.pad_idx).sum(dim=1) - 2  # position of the last SMILES token (before "$")
    with torch.no_grad():
        state, states = None, []
        for t in range(int(last.max()) + 1):
            _, state = net.step(tokens[:, t], state)
            states.append(state)
        rows = range(len(smiles))
        if isinstance(state, tuple):  # LSTM (h, c)
            start = [torch.stack([states[int(last[i])][k][:, i] for i in rows], dim=1) for k in range(2)]
        else:
            start = torch.stack([states[int(last[i])][:, i] for i in rows], dim=1)
    end_embedding = torch.nn.Parameter(net.embedding.weight[vocab.end_idx].detach().clone())
    optimizer = torch.optim.Adam([end_embedding], lr=0.2)
    for _ in range(steps):
        state = tuple(start) if isinstance(start, list) else start
        loss = 0.0
        for _ in range(chain):
            hidden, state = net.rnn(end_embedding.expand(len(smiles), 1, -1), state)
            logp = torch.log_softmax(model._mask_special(net.output(hidden[:, 0])), dim=-1)[:, vocab.end_idx]
            loss = loss - logp.mean() / chain
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        net.embedding.weight[vocab.end_idx] = end_embedding
    return -float(loss.detach())


def run_file(prior: Path, out: Path, batch: int, steps: int, seed: int) -> str:
    return f"""
run_type = "staged_learning"
device = "cpu"
seed = {seed}

[parameters]
prior_file = "{prior}"
agent_file = "{prior}"
summary_csv_prefix = "{out}/summary"
batch_size = {batch}

[learning_strategy]
type = "dap"
sigma = 128
rate = 1e-4

[[stage]]
max_steps = {steps}
max_score = 1.0
min_steps = {steps + 1}
chkpt_file = "{out}/stage1.chkpt"

[stage.scoring]
type = "geometric_mean"

[[stage.scoring.component]]
[stage.scoring.component.QED]
[[stage.scoring.component.QED.endpoint]]
name = "QED"
weight = 1
"""


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
    import tomllib

    from mara_chem.models.language_model import LanguageModel
    from mara_chem.rl import loop
    from mara_chem.rl.config import load_run_config
    from mara_chem.rl.oracle import Oracle

    data = tomllib.loads(path.read_text())
    clock = PhaseClock()
    clock.wrap(LanguageModel, "sample", "sampling")
    original_canonicalize = loop.canonicalize
    loop.canonicalize = lambda smiles: _timed(clock, "sampling", original_canonicalize, smiles)
    clock.wrap(Oracle, "score", "scoring")
    clock.wrap(LanguageModel, "sequence_log_likelihood", "likelihoods")
    clock.wrap(loop.StagedLearning, "_update", "update")
    clock.wrap(loop.StagedLearning, "_step", "other")
    runner = loop.StagedLearning(load_run_config(data), overwrite=True, quiet=True)
    start = time.perf_counter()
    runner.run()
    return dict(clock.totals), time.perf_counter() - start


def _timed(clock: PhaseClock, name: str, fn: Callable, *args):
    with clock.phase(name):
        return fn(*args)


def hit_rate(summary: Path, threshold: float, window: int, steps: int) -> float:
    with open(summary, newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if int(r["step"]) > steps - window]
    return sum(r["Score"] not in ("", "nan") and float(r["Score"]) >= threshold for r in rows) / max(len(rows), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prior", type=Path, default=REPO / "priors" / "moses-gru-2x256.prior",
                        help="a mara-chem or REINVENT prior file (both runs load the same weights)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--threshold", type=float, default=0.85)
    parser.add_argument("--window", type=int, default=5, help="hit rate over the last N steps")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        prior = args.prior
        if not is_reinvent_payload(load_model_file(prior)):
            model = load_prior(prior)
            smiles = [s.strip() for s in (REPO / "tests" / "data" / "moses_sample.smi").read_text().split() if s.strip()]
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


if __name__ == "__main__":
    main()
