"""DMPO, distribution-matching policy optimisation (Li et al.; docs/strategies.md, "DMPO"), as pure tensor functions.

Over the G on-policy rows of a group (replay rows are left out), a target and the policy's own distribution
restricted to the group:

    q_i = R_i^{1/T} / Σ_j R_j^{1/T}   (T = ``temperature``; T = 1: proportional to the rewards),
    p_i = π_θ(y_i) / Σ_j π_θ(y_j)     (a softmax of the sequence log-likelihoods),

and the loss is the forward KL of the group, KL(q ‖ p) = −Σ_i q_i·log p_i + const, whose gradient in
log π_θ(y_i) is p_i − q_i. Forward KL is mode-covering: every rewarded row in the group pulls, in proportion
to its reward, not only the first high-reward trajectory found. For a large group, with n_τ ≈ G·π(τ) copies
of trajectory τ, the expected update vanishes where π(τ)/Σ_τ' π(τ')² = R(τ)^{1/T}/E_π[R^{1/T}], i.e. at

    π(τ) ∝ R(τ)^{1/T}  over trajectories,

so an outcome o reached by |T(o)| trajectories of equal reward ends at p(o) ∝ |T(o)|·R(o)^{1/T}: DMPO
matches rewards per trajectory, not per outcome. A group whose rewards are all zero has no target and gives
a zero loss. ``kl = "forward"`` adds β·KL(π_0 ‖ π_θ) as maximum likelihood on prior samples (as in
``policy_gradient.py``).
"""

from __future__ import annotations

from typing import Literal

import torch
from pydantic import Field, model_validator

from mara_chem.rl.strategies.base import StrategyBatch, StrategyParams
from mara_chem.rl.strategies.policy_gradient import KLByBeta, batch_forward_kl_loss


def dmpo_targets(rewards: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """q_i = R_i^{1/T}/Σ_j R_j^{1/T} (rewards clipped at 0); all zeros when no reward is positive."""
    powered = rewards.detach().clamp_min(0.0).pow(1.0 / temperature)
    total = powered.sum()
    return powered / total if float(total) > 0 else torch.zeros_like(powered)


def dmpo_loss(agent_logp: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """−Σ_i q_i·log softmax(log π_θ)_i, i.e. KL(q ‖ p) up to the target's entropy; zero for an all-zero q."""
    if float(targets.sum()) <= 0:
        return agent_logp.sum() * 0.0
    return -(targets.detach() * torch.log_softmax(agent_logp, dim=0)).sum()


class DMPOParams(StrategyParams):
    """``type = "dmpo"``: ``temperature`` T of the target q ∝ R^{1/T}; optional forward KL to the prior."""

    type: Literal["dmpo"] = "dmpo"
    temperature: float = Field(1.0, gt=0.0, le=100.0)
    kl: Literal["forward", "none"] = "none"
    beta: float = Field(0.05, ge=0.0)

    @model_validator(mode="after")
    def _beta_needs_kl(self) -> DMPOParams:
        if "beta" in self.model_fields_set and self.kl == "none":
            raise ValueError("beta given but kl = 'none' (set kl = 'forward')")
        return self


class DMPO(KLByBeta):
    """Forward KL from the group's reward-proportional target to the policy restricted to the group."""

    name = "dmpo"
    Params = DMPOParams
    params: DMPOParams

    def _loss(self, batch: StrategyBatch, rewards: torch.Tensor, info: dict[str, float]):
        p, on_policy = self.params, batch.on_policy
        agent_logp = batch.agent_logp[on_policy]
        loss = batch.agent_logp.sum() * 0.0  # keeps the graph when every row is a replay row
        if agent_logp.numel():
            group_target = dmpo_targets(rewards[on_policy], p.temperature)
            loss = dmpo_loss(agent_logp, group_target)
            positive = group_target[group_target > 0]
            info["dmpo_target_entropy"] = float(-(positive * positive.log()).sum()) if positive.numel() else 0.0
        if p.kl == "forward":
            loss = loss + batch_forward_kl_loss(batch, p.beta)
        return loss, rewards, None
