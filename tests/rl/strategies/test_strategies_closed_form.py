"""Closed-form fixed points of the learning strategies on a categorical policy (docs/strategies.md, "Closed-form checks").

A policy over K = 6 outcomes, π_θ = softmax θ (θ initialised at log π_0), is trained by Adam through the
same objects the RL loop uses: ``build_strategy(...)(StrategyBatch(...))``. Each step samples a batch from
π_θ, so every estimator is exercised exactly as in the loop. The reference optima are computed here from
their formulas, independently of the strategy code:

- reverse KL: G_β ∝ π_0·exp(R/β);  forward KL: G_fwd = β·π_0/(Λ − R), Λ solved so that Σ G_fwd = 1;
- MARA: Ḡ ∝ π_0·exp(R/β) below τ and π_0(z)·exp(R(z)/β) on H = {R ≥ τ}, z = argmax_H π_0;
- IPS without KL: p ∝ R; with outcomes grouped into classes (scaffold/cluster outcomes), p(class) ∝ R(class).

Samplers: ``iid`` (multinomial, what the loop does) and ``systematic`` (one uniform offset, B evenly spaced
points through the CDF: every outcome's count is within 1 of B·π, an unbiased low-variance sampler). The
baseline-free estimators (REINFORCE, plain DAP) carry a large offset in every per-sample gradient that only
cancels in expectation; their fixed point is checked with the systematic sampler, and the cost of that
variance for plain DAP under i.i.d. sampling is itself a test.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
import torch
from scipy.special import lambertw

from mara_chem.rl.outcomes import OutcomeTracker, outcome_ids
from mara_chem.rl.strategies import LearningStrategy, StrategyBatch, build_strategy

PRIOR = torch.tensor([0.30, 0.25, 0.18, 0.12, 0.10, 0.05])
REWARD = torch.tensor([0.60, 0.70, 0.80, 0.80, 0.78, 0.85])  # outcomes 2 and 3: equal reward, prior ratio 1.5
SIGMA = 20.0
BETA = 1.0 / SIGMA
TAU = 0.78  # H = {2, 3, 4, 5}; anchor z = 2 (the most prior-likely of H)
HIGH = REWARD >= TAU

Sampler = Callable[[torch.Tensor, int, torch.Generator], torch.Tensor]


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


# ----------------------------------------------------------------------------------------- closed forms
def g_beta(prior: torch.Tensor, reward: torch.Tensor, beta: float) -> torch.Tensor:
    """Reverse-KL optimum G_β ∝ π_0·exp(R/β)."""
    weights = prior.double() * torch.exp(reward.double() / beta)
    return (weights / weights.sum()).float()


def g_forward(prior: torch.Tensor, reward: torch.Tensor, beta: float) -> torch.Tensor:
    """Forward-KL optimum β·π_0/(Λ − R) with Λ > max R found by bisection on Σ = 1."""
    prior, reward = prior.double(), reward.double()
    lo, hi = float(reward.max()) + 1e-12, float(reward.max()) + 10.0 * (1.0 + beta)
    for _ in range(200):
        lam = 0.5 * (lo + hi)
        lo, hi = (lam, hi) if float((beta * prior / (lam - reward)).sum()) > 1.0 else (lo, lam)
    return (beta * prior / (0.5 * (lo + hi) - reward)).float()


def g_mara(prior: torch.Tensor, reward: torch.Tensor, beta: float, tau: float) -> torch.Tensor:
    """MARA optimum: π_0·exp(R/β) below τ, the anchor's π_0(z)·exp(R(z)/β) on the whole of H."""
    high = reward >= tau
    z = int(torch.argmax(torch.where(high, prior, torch.zeros_like(prior))))
    log_w = prior.double().log() + reward.double() / beta
    log_w = torch.where(high, log_w[z], log_w)
    return torch.softmax(log_w, 0).float()


def deduplicated_dap_fixed_point(log_target: torch.Tensor) -> torch.Tensor:
    """Fixed point of unnormalised DAP when each outcome enters the loss once: with δ_k = a_k − log π_k the
    softmax stationarity Σ_y δ_y(1[y=k] − π_k) = 0 gives log π_k + S·π_k = a_k, i.e. π_k = W(S·e^{a_k})/S
    (Lambert W), with S > 0 fixed by Σ π = 1."""
    a = log_target.double().numpy()

    def probs(s: float):
        return lambertw(s * np.exp(a)).real / s

    lo, hi = 1e-9, 1e9
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if probs(mid).sum() > 1.0 else (lo, mid)
    return torch.from_numpy(probs(math.sqrt(lo * hi))).float()


def l1(p: torch.Tensor, q: torch.Tensor) -> float:
    return float((p - q).abs().sum())


def spread(p: torch.Tensor, mask: torch.Tensor) -> float:
    return float(p[mask].max() / p[mask].min())


# -------------------------------------------------------------------------------------------- training
def iid(p: torch.Tensor, n: int, gen: torch.Generator) -> torch.Tensor:
    return torch.multinomial(p, n, replacement=True, generator=gen)


def systematic(p: torch.Tensor, n: int, gen: torch.Generator) -> torch.Tensor:
    offsets = (torch.arange(n, dtype=torch.float64) + torch.rand((), generator=gen, dtype=torch.float64)) / n
    return torch.searchsorted(torch.cumsum(p.double(), 0), offsets).clamp_max(len(p) - 1)


def train(
    strategy: LearningStrategy,
    *,
    steps: int = 800,
    batch: int = 512,
    lr: float = 0.05,
    seed: int = 0,
    sampler: Sampler = iid,
    deduplicate: bool = False,
    prior_samples: int = 0,
    reward: torch.Tensor = REWARD,
    outcomes: Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor | None]] | None = None,
) -> torch.Tensor:
    """Train softmax θ from log π_0 with Adam (constant lr, then cosine to 0 over the second half)."""
    gen = torch.Generator().manual_seed(seed)
    prior_logp = PRIOR.log()
    theta = prior_logp.clone().requires_grad_(True)
    optimiser = torch.optim.Adam([{"params": [theta], "lr": lr}, *strategy.optimizer_param_groups()])
    base_lrs = [group["lr"] for group in optimiser.param_groups]
    for step in range(steps):
        frac = max(0.0, 2.0 * step / steps - 1.0)
        for group, base in zip(optimiser.param_groups, base_lrs):
            group["lr"] = base * 0.5 * (1.0 + math.cos(math.pi * frac))
        y = sampler(torch.softmax(theta.detach(), 0), batch, gen)
        if deduplicate:
            y = torch.unique(y)
        logp = torch.log_softmax(theta, 0)
        extra = {}
        if prior_samples:
            extra["prior_sample_agent_logp"] = logp[sampler(PRIOR, prior_samples, gen)]
        ids, p_hat = (y, None) if outcomes is None else outcomes(y)
        out = strategy(
            StrategyBatch(
                agent_logp=logp[y],
                prior_logp=prior_logp[y],
                scores=reward[y],
                outcome_ids=ids,
                outcome_freq=p_hat,
                is_replay=torch.zeros(len(y), dtype=torch.bool),
                **extra,
            )
        )
        optimiser.zero_grad()
        out.loss.backward()
        optimiser.step()
    return torch.softmax(theta.detach(), 0)


# ------------------------------------------------------------------------------------------------ tests
def test_reference_optima_are_far_apart():
    """The tolerances below discriminate: the optima of the different objectives differ by far more."""
    gb = g_beta(PRIOR, REWARD, BETA)
    assert l1(gb, g_forward(PRIOR, REWARD, BETA)) > 0.3
    assert l1(gb, g_mara(PRIOR, REWARD, BETA, TAU)) > 0.15
    assert l1(gb, REWARD / REWARD.sum()) > 0.3
    assert l1(gb, deduplicated_dap_fixed_point(PRIOR.log() + SIGMA * REWARD)) > 0.3
    assert abs(float(gb[2] / gb[3]) - 1.5) < 1e-4  # equal rewards keep the prior's ratio


@pytest.mark.parametrize(
    ("name", "sampler"), [("reinforce", systematic), ("rloo", iid), ("grpo", iid)], ids=["reinforce", "rloo", "grpo"]
)
def test_reverse_kl_reaches_g_beta(name: str, sampler: Sampler):
    p = train(build_strategy(type=name, kl="reverse", beta=BETA), sampler=sampler)
    assert l1(p, g_beta(PRIOR, REWARD, BETA)) < 0.02


@pytest.mark.parametrize(("name", "sampler"), [("reinforce", systematic), ("rloo", iid)], ids=["reinforce", "rloo"])
def test_forward_kl_reaches_g_forward(name: str, sampler: Sampler):
    p = train(build_strategy(type=name, kl="forward", beta=BETA), sampler=sampler, prior_samples=512)
    assert l1(p, g_forward(PRIOR, REWARD, BETA)) < 0.02


def test_equal_rewards_keep_the_prior_ratio_without_mara():
    p = train(build_strategy(type="rloo", kl="reverse", beta=BETA))
    assert abs(float(p[2] / p[3]) - 1.5) < 0.03
    assert spread(p, HIGH) > 2.0


@pytest.mark.parametrize(
    "options",
    [
        dict(type="rloo", kl="reverse", beta=BETA, mara=True, tau=TAU),
        dict(type="grpo", kl="reverse", beta=BETA, mara=True, tau=TAU),
        dict(type="mara", sigma=SIGMA, tau=TAU, learn_log_z=True, log_z_lr=1.0),
    ],
    ids=["rloo+mara", "grpo+mara", "dap+mara+logz"],
)
def test_mara_equalises_every_high_reward_outcome(options: dict):
    p = train(build_strategy(**options))
    assert spread(p, HIGH) < 1.1
    assert l1(p, g_mara(PRIOR, REWARD, BETA, TAU)) < 0.02


def test_ips_grpo_without_kl_reaches_reward_proportional():
    p = train(build_strategy(type="ips_grpo"))
    assert l1(p, REWARD / REWARD.sum()) < 0.05


def test_grpo_without_kl_collapses_onto_the_best_outcome():
    p = train(build_strategy(type="grpo", kl="none"))
    assert float(p[int(torch.argmax(REWARD))]) > 0.95


def test_plain_dap_fixed_point_is_g_beta():
    """On-policy DAP's expected gradient is 2·∇KL(π_θ‖G_β): with a low-variance sampler it lands on G_β."""
    p = train(build_strategy(type="dap", sigma=SIGMA), sampler=systematic)
    assert l1(p, g_beta(PRIOR, REWARD, BETA)) < 0.02


def test_plain_dap_with_iid_sampling_ends_off_g_beta_and_log_z_fixes_it():
    """Each per-sample DAP gradient is scaled by a residual ≈ log Z ≈ 15 that cancels only in expectation."""
    plain = train(build_strategy(type="dap", sigma=SIGMA))
    with_log_z = train(build_strategy(type="dap", sigma=SIGMA, learn_log_z=True, log_z_lr=1.0))
    target = g_beta(PRIOR, REWARD, BETA)
    assert l1(plain, target) > 0.05
    assert l1(with_log_z, target) < 1e-3


def test_plain_dap_mara_leaves_a_spread_and_log_z_removes_it():
    plain = train(build_strategy(type="mara", sigma=SIGMA, tau=TAU))
    with_log_z = train(build_strategy(type="mara", sigma=SIGMA, tau=TAU, learn_log_z=True, log_z_lr=1.0))
    assert spread(plain, HIGH) > 1.1
    assert spread(with_log_z, HIGH) < 1.01
    assert l1(with_log_z, g_mara(PRIOR, REWARD, BETA, TAU)) < 1e-3


def test_dap_batch_log_z_estimate_lands_on_g_beta():
    p = train(build_strategy(type="dap", sigma=SIGMA, learn_log_z=True, log_z_estimate="batch"))
    assert l1(p, g_beta(PRIOR, REWARD, BETA)) < 1e-3


def test_deduplicated_dap_is_biased_exactly_as_predicted_and_log_z_removes_the_bias():
    """De-duplicated batches (each outcome once) make the unnormalised target biased; TB's log Z is not."""
    log_target = PRIOR.log() + SIGMA * REWARD
    plain = train(build_strategy(type="dap", sigma=SIGMA), sampler=systematic, deduplicate=True)
    with_log_z = train(
        build_strategy(type="dap", sigma=SIGMA, learn_log_z=True, log_z_lr=1.0), sampler=systematic, deduplicate=True
    )
    assert l1(plain, deduplicated_dap_fixed_point(log_target)) < 0.005
    assert l1(plain, g_beta(PRIOR, REWARD, BETA)) > 0.05
    assert l1(with_log_z, g_beta(PRIOR, REWARD, BETA)) < 1e-3


def test_ips_dap_keeps_dap_target_with_log_z_and_is_biased_without():
    """IPS row weights (1/n_o) change how DAP learns, not what: with log Z the optimum is still G_β."""
    with_log_z = train(build_strategy(type="ips_dap", sigma=SIGMA, log_z_lr=1.0))
    without = train(build_strategy(type="ips_dap", sigma=SIGMA, learn_log_z=False))
    assert l1(with_log_z, g_beta(PRIOR, REWARD, BETA)) < 1e-3
    assert l1(without, deduplicated_dap_fixed_point(PRIOR.log() + SIGMA * REWARD)) < 0.01


# --------------------------------------------------------------------------- class-level outcomes (IPS)
CLASS_OF = torch.tensor([0, 0, 1, 1, 1, 2])  # e.g. three scaffolds: prior mass 0.55, 0.40, 0.05
CLASS_REWARD = torch.tensor([0.3, 0.5, 0.9])
ITEM_REWARD = CLASS_REWARD[CLASS_OF]
CLASS_TARGET = CLASS_REWARD / CLASS_REWARD.sum()  # p(class) ∝ R(class)


def class_mass(p: torch.Tensor) -> torch.Tensor:
    return torch.zeros(3).index_add_(0, CLASS_OF, p)


def class_keys(y: torch.Tensor) -> list[str]:
    return [f"class{int(c)}" for c in CLASS_OF[y]]


def test_class_level_ips_reaches_reward_proportional_classes():
    """IPS counting classes: Σ_c R(c)/π(c)·∇π(c) = ∇Σ_c R(c)·log π(c), optimum π(c) ∝ R(c). Counting items
    instead reaches p ∝ R per item, which puts different mass on the classes (0.2/0.5/0.3 here)."""
    by_class = train(build_strategy(type="ips_grpo"), reward=ITEM_REWARD, outcomes=lambda y: (outcome_ids(class_keys(y)), None))
    by_item = train(build_strategy(type="ips_grpo"), reward=ITEM_REWARD)
    assert l1(class_mass(by_class), CLASS_TARGET) < 0.05
    assert l1(class_mass(by_item), CLASS_TARGET) > 0.2
    assert l1(by_item, ITEM_REWARD / ITEM_REWARD.sum()) < 0.05


def test_class_level_ips_with_window_frequencies_keeps_the_fixed_point():
    """p̂ pooled over the last 4 steps (OutcomeTracker, frequency = "window") lags the policy but has the same
    fixed point, p(class) ∝ R(class)."""
    tracker = OutcomeTracker(frequency="window", frequency_window=4)
    p = train(build_strategy(type="ips_grpo"), reward=ITEM_REWARD, outcomes=lambda y: tracker.step(class_keys(y)))
    assert l1(class_mass(p), CLASS_TARGET) < 0.05


def test_class_level_ips_dap_with_window_and_small_eps_keeps_g_beta():
    """The suite's IPS-DAP variant (class outcomes, window frequencies, ε below 1/G so a rare class weighs up to
    ε⁻¹/G⁻¹ times more): the row weights stay positive, so with a learned log Z the minimiser is still DAP's
    G_β item by item (docs/strategies.md, "IPS", its DAP form); only the way there changes."""
    tracker = OutcomeTracker(frequency="window", frequency_window=4)
    p = train(build_strategy(type="ips_dap", sigma=SIGMA, log_z_lr=1.0, outcome="cluster", ips_eps=0.0005,
                             frequency="window", frequency_window=4),
              reward=ITEM_REWARD, outcomes=lambda y: tracker.step(class_keys(y)))
    assert l1(p, g_beta(PRIOR, ITEM_REWARD, BETA)) < 1e-3
    assert l1(class_mass(p), CLASS_TARGET) > 0.05  # not p(class) ∝ R(class): IPS-DAP keeps DAP's target


def test_trajectory_balance_without_the_prior_reaches_exp_sigma_r():
    """``prior_in_target = false`` (Genetic GFN's loss, (log Z + log π − σR)²): the optimum is exp(σR)
    normalised, whatever the prior; mara-chem's DAP with log Z keeps the prior and lands on G_β instead."""
    prior_free = torch.softmax(SIGMA * REWARD.double(), 0).float()
    assert l1(prior_free, g_beta(PRIOR, REWARD, BETA)) > 0.3
    p = train(build_strategy(type="dap", sigma=SIGMA, learn_log_z=True, log_z_lr=1.0, prior_in_target=False))
    assert l1(p, prior_free) < 3e-3  # it starts further from its optimum (at the prior) than G_β does


def test_trajectory_balance_without_the_prior_is_refused_where_it_has_no_meaning():
    with pytest.raises(ValueError, match="needs learn_log_z = true"):
        build_strategy(type="dap", prior_in_target=False)
    with pytest.raises(ValueError, match="cannot be combined with MARA"):
        build_strategy(type="mara", tau=0.5, learn_log_z=True, prior_in_target=False)
