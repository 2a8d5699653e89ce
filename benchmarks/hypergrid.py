"""Hypergrid benchmark of the IPS paper: GRPO, IPS-GRPO, MIPS-GRPO and DMPO (no KL), ℓ1 to the reward-proportional target.

Environment (Bengio et al. 2021, "Flow network based generative models"): an n-dimensional grid of side H;
an episode starts at the origin and each step either increments one coordinate (never past H − 1) or stops;
the terminal state x is the outcome. Reward

    R(x) = R0 + R1·Π_d 1[0.25 < |x_d/(H−1) − 0.5|] + R2·Π_d 1[0.3 < |x_d/(H−1) − 0.5| < 0.4],

the standard R0 = 0.1 (the "easy" setting), R1 = 0.5, R2 = 2, on the IPS paper's n = 2 grid with H = 8
(4 modes). The IPS paper does not state R0 or H in the material available to us; H = 8 and R0 = 0.1 are the
values for which a policy collapsed onto one mode scores the published GRPO figure, Σ|p − R/ΣR|/H^n = 0.028,
so the published ℓ1 is read as the per-state mean absolute error (GFlowNet convention). Both the mean
and the plain sum Σ|p − q| are reported.

Policy: tabular logits over (state, action) with the invalid moves masked, trained with Adam through this
package's strategies (``build_strategy(type="grpo", kl="none")``, ``"ips_grpo"``, ``"mips_grpo"``, ``"dmpo"``)
on batches of G trajectories, score = R/max R, outcome = terminal state (its coordinates as the outcome key),
each batch made by the one strategy-input builder (``mara_chem.rl.strategy_inputs``). MIPS's marginal
p̂(x) = π_θ(τ)/P_B(τ | x) comes from a learned backward policy P_B (tabular logits over the parents of a state,
fitted by maximum likelihood on the sampled trajectories, its own Adam at the same rate). A state x is reached
by (Σ_d x_d)!/Π_d x_d! trajectories, so outcomes are reached by many trajectories and DMPO, which matches
rewards per trajectory, has its fixed point at p(x) ∝ |T(x)|·R(x), not at p ∝ R; the table also gives its ℓ1
to that. The terminal distribution is computed exactly by dynamic programming, so the ℓ1 has no sampling error.

    python benchmarks/hypergrid.py --seeds 0 1 2 --steps 1000 --methods grpo ips_grpo --out benchmarks/results
    python benchmarks/hypergrid.py --grids 2x8 2x16 3x8 4x8 --group-size 16 --out benchmarks/results/hypergrid
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch

from mara_chem.rl.strategies import build_strategy, trajectory_marginal
from mara_chem.rl.strategy_inputs import OnPolicyRows, StrategyInputs

#: IPS paper, Table 1 (ℓ1 per state): n = 2 and n = 4 (read here as H = 8, the side at which a collapsed policy
#: scores the published GRPO figure, as for n = 2)
PUBLISHED = {2: {"grpo": 2.8e-2, "ips_grpo": 3.0e-3}, 4: {"grpo": 5.2e-4, "ips_grpo": 3.7e-4}}
METHODS = ("grpo", "ips_grpo", "mips_grpo", "dmpo")
STOP = -1  # the stop action is the last column


@dataclass
class Config:
    side: int = 8
    ndim: int = 2
    r0: float = 0.1
    r1: float = 0.5
    r2: float = 2.0
    group_size: int = 256
    lr: float = 0.05
    steps: int = 1000
    ips_eps: float | None = None  # None → 1/G (never binds: p̂ ≥ 1/G)
    mips_eps: float | None = None  # None → 0.1/H^n, a tenth of a uniform policy's probability of a state


class Hypergrid:
    """States are flattened coordinates; action d < ndim moves +1 along d, action ndim stops."""

    def __init__(self, side: int, ndim: int) -> None:
        self.side, self.ndim = side, ndim
        self.coords = torch.tensor(list(itertools.product(range(side), repeat=ndim)), dtype=torch.long)
        self.n_states = self.coords.shape[0]
        self.strides = torch.tensor([side ** (ndim - 1 - d) for d in range(ndim)], dtype=torch.long)
        self.valid = torch.cat([self.coords < side - 1, torch.ones(self.n_states, 1, dtype=torch.bool)], dim=1)
        self.has_parent = self.coords > 0  # [n_states, ndim]: the state one step back along d exists

    def log_backward(self, logits: torch.Tensor) -> torch.Tensor:
        """log P_B(parent along d | s) [n_states, ndim]; the origin has no parent (row of -inf, never used)."""
        return torch.log_softmax(logits.masked_fill(~self.has_parent, float("-inf")), dim=1)

    def paths(self) -> torch.Tensor:
        """|T(x)| = (Σ_d x_d)!/Π_d x_d!, the number of trajectories that end in x (float64)."""
        total = torch.lgamma(self.coords.sum(dim=1).double() + 1)
        return torch.exp(total - torch.lgamma(self.coords.double() + 1).sum(dim=1))

    def rewards(self, r0: float, r1: float, r2: float) -> torch.Tensor:
        """R(x) of every state (module docstring)."""
        u = (self.coords.double() / (self.side - 1) - 0.5).abs()
        outer = (u > 0.25).all(dim=1).double()
        band = ((u > 0.3) & (u < 0.4)).all(dim=1).double()
        return r0 + r1 * outer + r2 * band

    def log_policy(self, logits: torch.Tensor) -> torch.Tensor:
        """log π(a | s) [n_states, ndim + 1] with invalid moves masked out."""
        return torch.log_softmax(logits.masked_fill(~self.valid, float("-inf")), dim=1)

    def terminal_distribution(self, log_pi: torch.Tensor) -> torch.Tensor:
        """Exact P(terminal = x), by propagating the reach probability in order of Σ_d x_d."""
        pi = log_pi.detach().double().exp()
        reach = torch.zeros(self.n_states, dtype=torch.float64)
        reach[0] = 1.0
        order = torch.argsort(self.coords.sum(dim=1), stable=True)
        for s in order.tolist():
            for d in range(self.ndim):
                if self.valid[s, d]:
                    reach[s + int(self.strides[d])] += reach[s] * pi[s, d]
        return reach * pi[:, STOP]

    def sample(self, log_pi: torch.Tensor, n: int, gen: torch.Generator,
               log_pb: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """n trajectories: (log π_θ(τ) with grad [n], terminal state [n], log P_B(τ | x) [n], with grad when
        ``log_pb`` is given, else zeros)."""
        state = torch.zeros(n, dtype=torch.long)
        active = torch.ones(n, dtype=torch.bool)
        logp = torch.zeros(n, dtype=log_pi.dtype)
        back = torch.zeros(n, dtype=log_pi.dtype)
        probs = log_pi.detach().exp()
        while bool(active.any()):
            action = torch.multinomial(probs[state], 1, generator=gen).squeeze(1)
            logp = logp + torch.where(active, log_pi[state, action], torch.zeros_like(logp))
            moving = active & (action < self.ndim)
            axis = action.clamp_max(self.ndim - 1)
            state = torch.where(moving, state + self.strides[axis], state)
            if log_pb is not None:
                back = back + torch.where(moving, log_pb[state, axis], torch.zeros_like(back))
            active = moving
        return logp, state, back


def l1_errors(p: torch.Tensor, target: torch.Tensor) -> tuple[float, float]:
    """(Σ|p − q|, Σ|p − q| / number of states)."""
    total = float((p - target).abs().sum())
    return total, total / p.numel()


def modes_recovered(p: torch.Tensor, target: torch.Tensor) -> int:
    """Modes (states of maximal reward) holding at least half their target probability."""
    modes = target >= target.max() - 1e-12
    return int((p[modes] >= 0.5 * target[modes]).sum())


def build(method: str, cfg: Config, n_states: int):
    """The method's strategy, all without KL; IPS ε = ``ips_eps`` (1/G), MIPS ε = ``mips_eps`` (0.1/H^n)."""
    if method == "grpo":
        return build_strategy(type="grpo", kl="none")
    if method == "ips_grpo":
        return build_strategy(type="ips_grpo", ips_eps=cfg.ips_eps if cfg.ips_eps is not None else 1.0 / cfg.group_size)
    if method == "mips_grpo":
        return build_strategy(type="mips_grpo", ips_eps=cfg.mips_eps if cfg.mips_eps is not None else 0.1 / n_states)
    if method == "dmpo":
        return build_strategy(type="dmpo")
    raise ValueError(f"unknown method {method!r}; valid: {', '.join(METHODS)}")


def train(method: str, seed: int, cfg: Config, log_every: int = 100) -> dict:
    """Train one policy; return final and intermediate ℓ1 errors."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    grid = Hypergrid(cfg.side, cfg.ndim)
    reward = grid.rewards(cfg.r0, cfg.r1, cfg.r2)
    target = reward / reward.sum()
    per_trajectory = grid.paths() * reward
    per_trajectory = per_trajectory / per_trajectory.sum()
    score = (reward / reward.max()).float()
    strategy = build(method, cfg, grid.n_states)
    inputs = StrategyInputs(strategy)
    logits = torch.zeros(grid.n_states, cfg.ndim + 1, requires_grad=True)
    backward_logits = torch.zeros(grid.n_states, cfg.ndim, requires_grad=True)
    marginal = strategy.needs_marginal_probability
    optimiser = torch.optim.Adam([logits, backward_logits] if marginal else [logits], lr=cfg.lr)
    curve = []
    for step in range(cfg.steps):
        log_pi = grid.log_policy(logits)
        log_pb = grid.log_backward(backward_logits) if marginal else None
        logp, terminal, back = grid.sample(log_pi, cfg.group_size, gen, log_pb)
        rows = OnPolicyRows(logp, torch.zeros_like(logp), score[terminal], canonical=[str(t) for t in terminal.tolist()])
        batch = inputs.build(rows, marginal_probability=lambda: trajectory_marginal(logp, back))
        loss = strategy(batch).loss
        if marginal:
            loss = loss - back.mean()  # P_B's maximum likelihood on the sampled trajectories
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if (step + 1) % log_every == 0:
            curve.append((step + 1, l1_errors(grid.terminal_distribution(grid.log_policy(logits)), target)[1]))
    final = grid.terminal_distribution(grid.log_policy(logits))
    l1_sum, l1_mean = l1_errors(final, target)
    return {
        "method": method,
        "grid": f"{cfg.ndim}x{cfg.side}",
        "seed": seed,
        "l1_sum": l1_sum,
        "l1_mean_per_state": l1_mean,
        "l1_sum_per_trajectory_target": l1_errors(final, per_trajectory)[0],
        "modes_recovered": modes_recovered(final, target),
        "n_modes": int((target >= target.max() - 1e-12).sum()),
        "curve_l1_mean_per_state": curve,
    }


def summarise(runs: list[dict], grid: str, methods: list[str]) -> dict:
    """mean ± std over seeds per method on one grid."""
    out = {}
    ndim = int(grid.split("x")[0])
    for method in methods:
        rows = [r for r in runs if r["method"] == method and r["grid"] == grid]
        stat = {}
        for key in ("l1_mean_per_state", "l1_sum", "l1_sum_per_trajectory_target", "modes_recovered"):
            values = [float(r[key]) for r in rows]
            stat[key] = {"mean": statistics.fmean(values), "std": statistics.stdev(values) if len(values) > 1 else 0.0}
        stat["published_l1"] = PUBLISHED.get(ndim, {}).get(method) if grid in ("2x8", "4x8") else None
        stat["n_modes"] = rows[0]["n_modes"]
        out[method] = stat
    return out


def markdown(summaries: dict, cfg: Config, seeds: list[int], command: str, seconds: float, cpu_seconds: float) -> str:
    eps = cfg.ips_eps if cfg.ips_eps is not None else f"1/G = {1 / cfg.group_size:.4g}"
    mips_eps = cfg.mips_eps if cfg.mips_eps is not None else "0.1/H^n"
    lines = [
        "# Hypergrid: GRPO, IPS-GRPO, MIPS-GRPO and DMPO (no KL)",
        "",
        f"R0 = {cfg.r0}, R1 = {cfg.r1}, R2 = {cfg.r2}; tabular policy, Adam lr {cfg.lr}, group G = {cfg.group_size}, "
        f"{cfg.steps} steps, IPS ε = {eps}, MIPS ε = {mips_eps}; seeds {seeds}. ℓ1 against p ∝ R from the exact "
        "terminal distribution; mean ± std over the seeds.",
        "",
        "| grid (n×H, states) | method | ℓ1 per state | Σ ℓ1 | Σ ℓ1 to p ∝ paths·R | modes recovered | published ℓ1 per state |",
        "|---|---|---|---|---|---|---|",
    ]
    for grid, summary in summaries.items():
        ndim, side = map(int, grid.split("x"))
        for method, s in summary.items():
            published = f"{s['published_l1']:.1e}" if s["published_l1"] is not None else "–"
            lines.append(
                f"| {grid} ({side ** ndim}) | {method} | {s['l1_mean_per_state']['mean']:.2e} ± "
                f"{s['l1_mean_per_state']['std']:.1e} | {s['l1_sum']['mean']:.3f} ± {s['l1_sum']['std']:.3f} "
                f"| {s['l1_sum_per_trajectory_target']['mean']:.3f} "
                f"| {s['modes_recovered']['mean']:.1f} / {s['n_modes']} | {published} |"
            )
    lines += [
        "",
        "ℓ1 per state = Σ_x |p(x) − R(x)/ΣR| / H^n (the convention under which a policy collapsed onto one mode "
        "scores the published GRPO value 0.028 on the 2×8 grid); Σ ℓ1 is the plain sum. The published figures are "
        "the IPS paper's (Table 1, n = 2 and n = 4, its group size; read here as H = 8). "
        "\"Σ ℓ1 to p ∝ paths·R\" is the distance to DMPO's own fixed point p(x) ∝ |T(x)|·R(x), |T(x)| the number "
        "of trajectories ending in x. Frequency IPS's p̂ = n_o/G is at least 1/G, so once G·p(x) ≪ 1 for most "
        "states it cannot tell them apart; MIPS's p̂ = π_θ(τ)/P_B(τ | x) can.",
        "",
        f"Command: `{command}` ({time.strftime('%Y-%m-%d', time.gmtime())}, {cpu_seconds:.0f} CPU-s and "
        f"{seconds:.0f} s wall in one process on a {os.cpu_count()}-core {platform.machine()} machine, "
        f"torch {torch.__version__}, 1 thread).",
        "",
    ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> tuple[argparse.Namespace, Config]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=Config.steps)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--group-size", type=int, default=Config.group_size)
    parser.add_argument("--lr", type=float, default=Config.lr)
    parser.add_argument("--grids", nargs="+", default=["2x8"], help="grids as NDIMxSIDE, e.g. 2x8 3x8 4x8")
    parser.add_argument("--methods", nargs="+", default=["grpo", "ips_grpo"], choices=METHODS)
    parser.add_argument("--r0", type=float, default=Config.r0)
    parser.add_argument("--ips-eps", type=float, default=None)
    parser.add_argument("--mips-eps", type=float, default=None)
    args = parser.parse_args(argv)
    for grid in args.grids:
        parts = grid.split("x")
        if len(parts) != 2 or not all(p.isdigit() and int(p) >= 2 for p in parts):
            parser.error(f"grid {grid!r} is not NDIMxSIDE with both at least 2 (e.g. 3x8)")
    cfg = Config(r0=args.r0, group_size=args.group_size, lr=args.lr, steps=args.steps, ips_eps=args.ips_eps,
                 mips_eps=args.mips_eps)
    return args, cfg


def main(argv: list[str] | None = None) -> dict:
    import sys

    args, cfg = parse_args(argv)
    torch.set_num_threads(1)
    start, cpu_start = time.perf_counter(), time.process_time()
    runs = []
    for grid in args.grids:
        ndim, side = map(int, grid.split("x"))
        grid_cfg = replace(cfg, ndim=ndim, side=side)
        for method in args.methods:
            for seed in args.seeds:
                run = train(method, seed, grid_cfg)
                print(f"{grid} {method:9s} seed {seed}: ℓ1/state {run['l1_mean_per_state']:.2e}  Σℓ1 "
                      f"{run['l1_sum']:.3f}  modes {run['modes_recovered']}/{run['n_modes']}", flush=True)
                runs.append(run)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    summaries = {grid: summarise(runs, grid, args.methods) for grid in args.grids}
    command = "python benchmarks/hypergrid.py " + " ".join(sys.argv[1:] if argv is None else argv)
    text = markdown(summaries, cfg, args.seeds, command.strip(), seconds, cpu_seconds)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    result = {"config": asdict(cfg), "grids": args.grids, "methods": args.methods, "seeds": args.seeds,
              "summary": summaries, "runs": runs, "seconds": seconds, "cpu_seconds": cpu_seconds, "command": command.strip(),
              "torch": torch.__version__, "machine": platform.machine()}
    (args.out / "hypergrid.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "hypergrid.md").write_text(text)
    return result


if __name__ == "__main__":
    main()
