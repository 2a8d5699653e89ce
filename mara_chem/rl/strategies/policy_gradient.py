"""REINFORCE, RLOO and GRPO with reverse, forward or no KL (docs/strategies.md, "Policy gradient"), and IPS-GRPO.

All three are score-function estimators, loss = −mean_i A_i·log π_θ(y_i) over the on-policy rows (replay
rows are not samples of π_θ and are left out), and differ only in the advantage A:

- ``reinforce``: A_i = r_i (no baseline);
- ``rloo``: A_i = r_i − mean_{j≠i} r_j (leave-one-out baseline, unbiased);
- ``grpo``: A_i = (r_i − mean r)/(std r + 1e-6), the batch being one group (no ratio clipping: one update
  per batch). The positive per-batch scale 1/std only changes the step size.

KL (coefficient β, used directly; default 0.05, i.e. σ = 20 in REINVENT's terms):

- ``reverse``: the reward is shaped, r_i ← r_i − β·(log π_θ(y_i) − log π_0(y_i)) (detached) before the
  advantage. Since E_π[∇log π] = 0 this is the exact gradient of E_π[R] − β·KL(π‖π_0); fixed point
  G_β ∝ π_0·exp(R/β) (for GRPO too, as the normalisation is a positive scale of the whole update).
- ``forward``: loss += −β·mean_j log π_θ(x_j) over samples x_j drawn from the prior (maximum likelihood on
  prior samples, the gradient of β·KL(π_0‖π_θ)); fixed point G_fwd = β·π_0/(Λ − R) for REINFORCE/RLOO.
  For GRPO the reward term is divided by std r, so the effective coefficient is β·std r.
- ``none``: plain expected return (collapses onto the best outcome).

Modifiers: MARA rewrites the scores first (with this β), then IPS divides by max(p̂, ε), then the KL shaping.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Literal

import torch
from pydantic import Field, model_validator

from mara_chem.rl.strategies.base import IpsOptions, LearningStrategy, MaraOptions, StrategyBatch, StrategyParams
from mara_chem.rl.strategies.ips import ips_rewards

GRPO_STD_EPS = 1e-6


def reverse_kl_shaped_rewards(
    rewards: torch.Tensor, agent_logp: torch.Tensor, prior_logp: torch.Tensor, beta: float
) -> torch.Tensor:
    """r − β·(log π_θ − log π_0), detached (the reverse-KL penalty folded into the reward)."""
    return (rewards - beta * (agent_logp - prior_logp)).detach()


def reinforce_advantages(rewards: torch.Tensor) -> torch.Tensor:
    """A_i = r_i."""
    return rewards.detach()


def rloo_advantages(rewards: torch.Tensor) -> torch.Tensor:
    """A_i = r_i − (Σ_j r_j − r_i)/(G − 1): the leave-one-out baseline; zeros for G < 2."""
    size = rewards.numel()
    if size < 2:
        return torch.zeros_like(rewards)
    return (rewards - (rewards.sum() - rewards) / (size - 1)).detach()


def grpo_advantages(rewards: torch.Tensor, eps: float = GRPO_STD_EPS) -> torch.Tensor:
    """A_i = (r_i − mean r)/(std r + eps), population std; zeros for G < 2."""
    if rewards.numel() < 2:
        return torch.zeros_like(rewards)
    centred = rewards - rewards.mean()
    return (centred / (rewards.std(unbiased=False) + eps)).detach()


def policy_gradient_loss(advantages: torch.Tensor, agent_logp: torch.Tensor) -> torch.Tensor:
    """−mean_i A_i·log π_θ(y_i) (A constant)."""
    return -(advantages.detach() * agent_logp).mean()


def forward_kl_loss(prior_sample_agent_logp: torch.Tensor, beta: float) -> torch.Tensor:
    """−β·mean_j log π_θ(x_j), x_j ~ π_0: maximum likelihood, i.e. β·KL(π_0‖π_θ) up to a constant."""
    return -beta * prior_sample_agent_logp.mean()


def batch_forward_kl_loss(batch: StrategyBatch, beta: float) -> torch.Tensor:
    """:func:`forward_kl_loss` on the batch's prior samples, which ``kl = "forward"`` requires."""
    prior_samples = batch.prior_sample_agent_logp
    if prior_samples is None or prior_samples.numel() == 0:
        raise ValueError("kl = 'forward' needs prior_sample_agent_logp (agent log-probs of prior samples)")
    return forward_kl_loss(prior_samples, beta)


class PolicyGradientParams(MaraOptions, IpsOptions, StrategyParams):
    """Options shared by ``reinforce``, ``rloo``, ``grpo`` and ``ips_grpo``."""

    kl: Literal["reverse", "forward", "none"] = "reverse"
    beta: float = Field(0.05, ge=0.0)

    @model_validator(mode="before")
    @classmethod
    def _sigma_is_beta_here(cls, data: Any) -> Any:
        """REINVENT's ``sigma`` (DAP's inverse KL coefficient) is ``beta`` here: refused with the conversion."""
        if isinstance(data, dict) and "sigma" in data:
            sigma = data["sigma"]
            hint = f" (sigma = {sigma} is beta = {1 / sigma:.4g})" if isinstance(sigma, int | float) and sigma > 0 else ""
            raise ValueError(f"sigma is DAP's option; type {data.get('type', 'reinforce')!r} takes beta, the KL "
                             f"coefficient, beta = 1/sigma{hint}")
        return data


class KLByBeta(LearningStrategy):
    """A strategy whose params carry ``kl`` and its coefficient ``beta`` directly (β, not REINVENT's σ)."""

    @property
    def beta(self) -> float:
        """β, the KL coefficient (also MARA's β)."""
        return self.params.beta

    @property
    def needs_prior_samples(self) -> bool:
        """``kl = "forward"`` is maximum likelihood on prior samples."""
        return self.params.kl == "forward"


class PolicyGradient(KLByBeta):
    """Score-function estimator; subclasses choose the advantage."""

    params: PolicyGradientParams

    @abstractmethod
    def _advantages(self, rewards: torch.Tensor) -> torch.Tensor:
        """Per-row advantages [G] of the on-policy rewards [G]."""

    def _loss(self, batch: StrategyBatch, rewards: torch.Tensor, info: dict[str, float]):
        p, on_policy = self.params, batch.on_policy
        if p.ips:
            rewards = ips_rewards(rewards, batch.outcome_ids, p.ips_eps, on_policy, batch.outcome_freq)
        agent_logp, prior_logp, shaped = batch.agent_logp[on_policy], batch.prior_logp[on_policy], rewards[on_policy]
        loss = batch.agent_logp.sum() * 0.0  # keeps the graph when every row is a replay row
        if agent_logp.numel():
            info["kl_estimate"] = float((agent_logp.detach() - prior_logp).mean())
            if p.kl == "reverse":
                shaped = reverse_kl_shaped_rewards(shaped, agent_logp.detach(), prior_logp, p.beta)
            info["mean_shaped_reward"] = float(shaped.mean())
            loss = policy_gradient_loss(self._advantages(shaped), agent_logp)
        if p.kl == "forward":
            loss = loss + batch_forward_kl_loss(batch, p.beta)
        return loss, rewards, None


class ReinforceParams(PolicyGradientParams):
    """``type = "reinforce"``."""

    type: Literal["reinforce"] = "reinforce"


class Reinforce(PolicyGradient):
    """REINFORCE without baseline."""

    name = "reinforce"
    Params = ReinforceParams

    def _advantages(self, rewards: torch.Tensor) -> torch.Tensor:
        return reinforce_advantages(rewards)


class RLOOParams(PolicyGradientParams):
    """``type = "rloo"``."""

    type: Literal["rloo"] = "rloo"


class RLOO(PolicyGradient):
    """REINFORCE with the leave-one-out baseline."""

    name = "rloo"
    Params = RLOOParams

    def _advantages(self, rewards: torch.Tensor) -> torch.Tensor:
        return rloo_advantages(rewards)


class GRPOParams(PolicyGradientParams):
    """``type = "grpo"``."""

    type: Literal["grpo"] = "grpo"


class GRPO(PolicyGradient):
    """Group-normalised advantages, the whole on-policy batch being one group."""

    name = "grpo"
    Params = GRPOParams

    def _advantages(self, rewards: torch.Tensor) -> torch.Tensor:
        return grpo_advantages(rewards)


class IPSGRPOParams(PolicyGradientParams):
    """``type = "ips_grpo"``: the IPS paper's method, GRPO on r/max(p̂, ε), no KL by default."""

    type: Literal["ips_grpo"] = "ips_grpo"
    ips: Literal[True] = True
    kl: Literal["reverse", "forward", "none"] = "none"


class IPSGRPO(GRPO):
    """GRPO with the IPS modifier on."""

    name = "ips_grpo"
    Params = IPSGRPOParams
