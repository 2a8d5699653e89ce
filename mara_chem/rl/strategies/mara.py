"""MARA, Mode Anchored Reward Augmentation (GX-Chen et al. 2025; docs/strategies.md, "MARA"), as pure tensor functions.

H = {i : S_i ≥ τ} (a zero score is never "high"). If H has no anchor candidate, nothing changes. Otherwise
z = argmax_{i ∈ H ∩ candidates} log π_0(y_i) and, for every i ∈ H,

    R̄_i = S_z + β·(log π_0(y_z) − log π_0(y_i)),

so π_0(y_i)·exp(R̄_i/β) = π_0(y_z)·exp(S_z/β) is the same for every i ∈ H: the reverse-KL optimum
Ḡ ∝ π_0·exp(R̄/β) is uniform over the high-reward set and ∝ π_0·exp(R/β) below τ. In DAP form (β = 1/σ)
the target log π_0(y_i) + σ·R̄_i is simply log π_0(y_z) + σ·S_z for every i ∈ H.
"""

from __future__ import annotations

import torch


def quantile_threshold(scores: torch.Tensor, q: float) -> float:
    """τ as the q-quantile of the (on-policy) batch scores; +inf for an empty batch (H is then empty)."""
    if scores.numel() == 0:
        return float("inf")
    return float(torch.quantile(scores.detach().double(), q))


def high_reward_mask(scores: torch.Tensor, tau: float) -> torch.Tensor:
    """H as a bool mask: S ≥ τ and S > 0 (a zero/invalid score never counts as high reward)."""
    return (scores >= tau) & (scores > 0)


def mara_anchor(
    scores: torch.Tensor,
    prior_logp: torch.Tensor,
    tau: float,
    pool_scores: torch.Tensor | None = None,
    pool_prior_logp: torch.Tensor | None = None,
    candidates: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(S_z, log π_0(y_z)) of the anchor, the most prior-likely high-scoring candidate; None if none.

    Candidates are the batch rows in H (restricted to ``candidates`` when given) plus the pool entries
    (e.g. the replay memory) with score ≥ τ.
    """
    mask = high_reward_mask(scores, tau)
    if candidates is not None:
        mask = mask & candidates
    cand_scores, cand_logp = scores[mask], prior_logp[mask]
    if pool_scores is not None and pool_prior_logp is not None:
        pool_mask = high_reward_mask(pool_scores, tau)
        cand_scores = torch.cat([cand_scores, pool_scores[pool_mask].to(cand_scores)])
        cand_logp = torch.cat([cand_logp, pool_prior_logp[pool_mask].to(cand_logp)])
    if cand_logp.numel() == 0:
        return None
    best = torch.argmax(cand_logp)
    return cand_scores[best], cand_logp[best]


def mara_rewards(
    scores: torch.Tensor,
    prior_logp: torch.Tensor,
    tau: float,
    beta: float,
    pool_scores: torch.Tensor | None = None,
    pool_prior_logp: torch.Tensor | None = None,
    candidates: torch.Tensor | None = None,
    anchor: tuple[torch.Tensor, torch.Tensor] | None = None,
) -> torch.Tensor:
    """MARA-augmented rewards R̄ (module docstring); rows outside H, or every row when H has no anchor,
    keep their score. ``anchor``: (S_z, log π0(y_z)) given by the caller instead of chosen here. Inputs are
    treated as constants (the result carries no gradient)."""
    scores, prior_logp = scores.detach(), prior_logp.detach()
    if anchor is None:
        anchor = mara_anchor(scores, prior_logp, tau, pool_scores, pool_prior_logp, candidates)
    if anchor is None:
        return scores.clone()
    anchor_score, anchor_logp = anchor
    high = high_reward_mask(scores, tau)
    augmented = anchor_score + beta * (anchor_logp - prior_logp)
    return torch.where(high, augmented, scores)
