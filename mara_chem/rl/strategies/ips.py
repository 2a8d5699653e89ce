"""IPS, Inverse Probability Scaling (Sinha, Elango & Liu 2026; docs/strategies.md, "IPS"), as pure tensor functions.

For a group of G on-policy samples, p̂(o) = n_o / G with n_o the number of samples of outcome o, counted
before any de-duplication (replay rows are not samples of the current policy and are never counted).
Policy-gradient form: r̃_i = r_i / max(p̂(o_i), ε). Because Σ_o π(o)·(R(o)/π(o))·∇log π(o) equals
∇Σ_o R(o)·log π(o), the idealised fixed point of an unregularised update is p(o) ∝ R(o).
"""

from __future__ import annotations

import torch


def outcome_counts(outcome_ids: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """n_o for every row: how many rows selected by ``mask`` (default: all) share the row's outcome id."""
    if mask is None:
        mask = torch.ones_like(outcome_ids, dtype=torch.bool)
    _, inverse = torch.unique(outcome_ids, return_inverse=True)
    counts = torch.zeros(int(inverse.max()) + 1 if inverse.numel() else 0, device=outcome_ids.device)
    counts.index_add_(0, inverse[mask], torch.ones(int(mask.sum()), device=outcome_ids.device))
    return counts[inverse]


def outcome_frequencies(outcome_ids: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """p̂(o_i) = n_o / G with G = number of rows selected by ``mask``."""
    counts = outcome_counts(outcome_ids, mask)
    group = int(mask.sum()) if mask is not None else outcome_ids.numel()
    return counts / max(group, 1)


def ips_rewards(
    rewards: torch.Tensor, outcome_ids: torch.Tensor, eps: float, mask: torch.Tensor | None = None,
    p_hat: torch.Tensor | None = None,
) -> torch.Tensor:
    """r̃_i = r_i / max(p̂(o_i), ε) on the rows of ``mask`` (on-policy rows); other rows are unchanged.
    ``p_hat``: p̂ per row from outside the batch (a window or the replay memory); default: counted here."""
    if mask is None:
        mask = torch.ones_like(outcome_ids, dtype=torch.bool)
    if p_hat is None:
        p_hat = outcome_frequencies(outcome_ids, mask)
    p_hat = p_hat.clamp_min(eps).to(rewards)
    return torch.where(mask, rewards / p_hat, rewards)


def ips_weights(outcome_ids: torch.Tensor, eps: float, mask: torch.Tensor | None = None,
                p_hat: torch.Tensor | None = None) -> torch.Tensor:
    """Row weights w_i = max(1/G, ε) / max(p̂(o_i), ε) for DAP's IPS variant (see ``dap.py``).

    With ε ≤ 1/G this is 1/n_o: the n copies of an outcome together weigh as much as one unique sample, so
    each distinct outcome counts once. Rows outside ``mask`` (replay rows) get weight 1. ``p_hat`` as in
    :func:`ips_rewards`.
    """
    if mask is None:
        mask = torch.ones_like(outcome_ids, dtype=torch.bool)
    group = max(int(mask.sum()), 1)
    p_hat = (outcome_frequencies(outcome_ids, mask) if p_hat is None else p_hat).clamp_min(eps)
    weights = max(1.0 / group, eps) / p_hat
    return torch.where(mask, weights, torch.ones_like(weights))


def ips_diagnostics(outcome_ids: torch.Tensor, eps: float, mask: torch.Tensor,
                    p_hat: torch.Tensor | None = None) -> dict[str, float]:
    """For the logs: distinct outcomes among the on-policy rows (``ips_outcomes``) and the mean IPS factor
    1/max(p̂, ε) over them (``ips_mean_factor``); p̂ as in :func:`ips_rewards`."""
    if not bool(mask.any()):
        return {"ips_outcomes": 0.0, "ips_mean_factor": 0.0}
    p_hat = outcome_frequencies(outcome_ids, mask) if p_hat is None else p_hat
    factors = 1.0 / p_hat[mask].clamp_min(eps)
    return {"ips_outcomes": float(torch.unique(outcome_ids[mask]).numel()), "ips_mean_factor": float(factors.mean())}
