"""DAP, REINVENT's loss (docs/strategies.md, "DAP"), its trajectory-balance (log Z) form, and the IPS variant.

DAP: target_i = log π_0(y_i) + σ·R_i, loss = mean_i (target_i − log π_θ(y_i))²; replay rows join the mean.
With on-policy samples the expected gradient is 2·∇KL(π_θ‖G_β), β = 1/σ, but every per-sample term is
multiplied by the residual, which is ≈ log Z (large: ≈ σ·max R) and only cancels in expectation; and as soon
as the rows are not distributed as π_θ (replay rows, de-duplicated batches, the IPS weights below) the
fixed point moves off G_β, because nothing in the target is normalised.

Trajectory-balance form (``learn_log_z``): loss = mean_i (log π_0(y_i) + σ·R_i − log Z − log π_θ(y_i))² with a
scalar log Z. For any weighting of the rows with full support its unique minimiser is π_θ = G_β (or MARA's
Ḡ) and log Z = log Σ π_0·exp(σR). log Z is either a learnable ``nn.Parameter`` (own optimiser group and
learning rate ``log_z_lr``; initialised from the first batch unless ``log_z_init`` is given) or, with
``log_z_estimate = "batch"``, the closed-form per-batch least-squares value (the weighted mean residual,
detached), which turns the loss into the weighted variance of the residuals.

IPS for DAP (``ips``, or ``type = "ips_dap"``): a molecule sampled n times contributes n identical squared
errors, so DAP's gradient amplifies it n-fold; that multiplier, the outcome probability, is exactly what IPS
removes. We weight row i by w_i = max(1/G, ε)/max(p̂(o_i), ε) (= 1/n_o for ε ≤ 1/G), so every distinct outcome
in the batch counts once, whatever its frequency (REINVENT's zero score for in-batch duplicates is a crude
version of the same idea). Why this and not σ·S/p̂ in the target: scaling the reward by 1/p̂ makes the
fixed point depend on the batch size and on π_θ itself (π ∝ π_0·exp(σR/(Gπ))), i.e. it changes *what* is
learned in a G-dependent way; re-weighting the rows changes only *how* it is learned. With ``learn_log_z`` the
weighted loss has the same unique minimiser as DAP (G_β, or uniform-on-H with MARA), because a
trajectory-balance loss is minimised by the target under any sampling weights with full support; so the
variant keeps DAP's well-defined target while no longer letting frequent molecules dominate the update.
Without log Z the weighted loss is biased (the unnormalised target then fixes
log G̃(o) − log π(o) ∝ π(o) instead of a constant), hence ``ips_dap`` defaults to ``learn_log_z = true``.

Trajectory balance without the prior in the target (``prior_in_target = false``, with ``learn_log_z``): loss =
mean_i (σ·R_i − log Z − log π_θ(y_i))², the loss Genetic GFN trains with (its β is σ here). Its unique minimiser
under any full-support row weighting is π_θ ∝ exp(σR), log Z = log Σ exp(σR): the prior no longer shapes the
target (it enters only through the agent's start and through a KL term added beside the loss, such as the
genetic harness's ``kl_coefficient``).

Likelihood penalty (``likelihood_penalty = c``, off by default): the regulariser of the original REINVENT code
that PMO's REINVENT runs with c = 5,000, loss += c·mean_i(−1/log π_θ(y_i)) over every row (replay rows
included). −1/log π grows without bound as log π → 0, so it pushes back against sequences the agent makes
almost surely, a brake on collapse that changes the fixed point (docs/strategies.md, "DAP").
"""

from __future__ import annotations

from typing import Any, Literal

import torch
from pydantic import Field, model_validator
from torch import nn

from mara_chem.rl.strategies.base import (
    IpsOptions,
    LearningStrategy,
    MaraOptions,
    StrategyBatch,
    StrategyParams,
)
from mara_chem.rl.strategies.ips import ips_weights


def dap_targets(prior_logp: torch.Tensor, rewards: torch.Tensor, sigma: float,
                prior_in_target: bool = True) -> torch.Tensor:
    """target_i = log π_0(y_i) + σ·R_i, or σ·R_i without the prior (constant: no gradient)."""
    target = sigma * rewards
    return (prior_logp + target if prior_in_target else target).detach()


def _weighted_mean(values: torch.Tensor, weights: torch.Tensor | None) -> torch.Tensor:
    if weights is None:
        return values.mean()
    return (weights * values).sum() / weights.sum()


def dap_loss(
    agent_logp: torch.Tensor,
    prior_logp: torch.Tensor,
    rewards: torch.Tensor,
    sigma: float,
    log_z: torch.Tensor | float | None = None,
    weights: torch.Tensor | None = None,
    prior_in_target: bool = True,
) -> torch.Tensor:
    """mean_i w_i·(log π_0(y_i) + σ·R_i − log Z − log π_θ(y_i))² / mean w (the log π_0 term only with
    ``prior_in_target``); log Z = 0 and w = 1 by default."""
    residual = dap_targets(prior_logp, rewards, sigma, prior_in_target) - agent_logp
    if log_z is not None:
        residual = residual - log_z
    return _weighted_mean(residual.pow(2), weights)


def likelihood_penalty(agent_logp: torch.Tensor, coefficient: float) -> torch.Tensor:
    """c·mean_i(−1/log π_θ(y_i)): original REINVENT's penalty on sequences the agent makes almost surely."""
    return coefficient * (-1.0 / agent_logp).mean()


def closed_form_log_z(
    agent_logp: torch.Tensor,
    prior_logp: torch.Tensor,
    rewards: torch.Tensor,
    sigma: float,
    weights: torch.Tensor | None = None,
    prior_in_target: bool = True,
) -> torch.Tensor:
    """argmin over log Z of :func:`dap_loss`: the weighted mean residual, detached."""
    residual = dap_targets(prior_logp, rewards, sigma, prior_in_target) - agent_logp.detach()
    return _weighted_mean(residual, weights).detach()


class DAPParams(MaraOptions, IpsOptions, StrategyParams):
    """``type = "dap"``: REINVENT's loss; optional log Z (trajectory balance), MARA and IPS modifiers."""

    type: Literal["dap"] = "dap"
    sigma: float = Field(128.0, gt=0.0)
    learn_log_z: bool = False
    log_z_estimate: Literal["parameter", "batch"] = "parameter"
    log_z_lr: float | None = Field(None, gt=0.0)
    log_z_init: float | None = None
    #: bounded as every numeric key: PMO's REINVENT runs 5,000; far above, the penalty overflows the loss
    likelihood_penalty: float = Field(0.0, ge=0.0, le=1e6)
    prior_in_target: bool = True

    @model_validator(mode="after")
    def _check_log_z(self) -> DAPParams:
        given = [k for k in ("log_z_estimate", "log_z_lr", "log_z_init") if k in self.model_fields_set]
        if not self.learn_log_z and given:
            raise ValueError(f"{', '.join(given)} given but learn_log_z = false")
        if not self.prior_in_target and not self.learn_log_z:
            raise ValueError("prior_in_target = false is trajectory balance: it needs learn_log_z = true")
        if not self.prior_in_target and self.mara:
            raise ValueError("prior_in_target = false cannot be combined with MARA (its anchor is defined through "
                             "the prior in the target)")
        return self


class DAP(LearningStrategy):
    """REINVENT's DAP loss composed from :func:`dap_loss`; owns log Z when ``learn_log_z``."""

    name = "dap"
    Params = DAPParams
    params: DAPParams

    def __init__(self, params: DAPParams) -> None:
        super().__init__(params)
        self.log_z: nn.Parameter | None = None
        if params.learn_log_z and params.log_z_estimate == "parameter":
            init = 0.0 if params.log_z_init is None else params.log_z_init
            self.log_z = nn.Parameter(torch.tensor(init, dtype=torch.float32))
            self.register_buffer("log_z_initialised", torch.tensor(params.log_z_init is not None))

    @property
    def beta(self) -> float:
        """β = 1/σ (REINVENT's σ is the inverse KL coefficient)."""
        return 1.0 / self.params.sigma

    @property
    def log_z_lr(self) -> float:
        """Learning rate for log Z: ``log_z_lr`` or 100 × ``rate``."""
        return self.params.log_z_lr if self.params.log_z_lr is not None else 100.0 * self.params.rate

    def optimizer_param_groups(self) -> list[dict[str, Any]]:
        """[{"params": [log Z], "lr": log_z_lr}] when log Z is a learnable parameter, else []."""
        return [] if self.log_z is None else [{"params": [self.log_z], "lr": self.log_z_lr}]

    def _log_z(
        self, batch: StrategyBatch, rewards: torch.Tensor, weights: torch.Tensor | None
    ) -> torch.Tensor | None:
        """log Z for this batch: None (plain DAP), the closed-form estimate, or the learned parameter (set to
        the closed-form estimate on its first use unless ``log_z_init`` was given)."""
        if not self.params.learn_log_z:
            return None
        estimate = closed_form_log_z(batch.agent_logp, batch.prior_logp, rewards, self.params.sigma, weights,
                                     self.params.prior_in_target)
        if self.log_z is None:
            return estimate
        if not bool(self.log_z_initialised):
            with torch.no_grad():
                self.log_z.copy_(estimate)
                self.log_z_initialised.fill_(True)
        return self.log_z

    def _loss(self, batch: StrategyBatch, rewards: torch.Tensor, info: dict[str, float]):
        weights = None
        if self.params.ips:
            weights = ips_weights(batch.outcome_ids, self.params.ips_eps, batch.on_policy,
                                  batch.outcome_freq).to(rewards)
            mean_weight = float(weights[batch.on_policy].sum() / max(int(batch.on_policy.sum()), 1))
            # with batch frequencies the mean weight is the share of distinct outcomes; with a window's or the
            # memory's p̂ it is no fraction (it can exceed 1), and is reported as what it is
            info["ips_distinct_fraction" if batch.outcome_freq is None else "ips_mean_weight"] = mean_weight
        log_z = self._log_z(batch, rewards, weights)
        loss = dap_loss(batch.agent_logp, batch.prior_logp, rewards, self.params.sigma, log_z, weights,
                        self.params.prior_in_target)
        if self.params.likelihood_penalty:
            penalty = likelihood_penalty(batch.agent_logp, self.params.likelihood_penalty)
            info["likelihood_penalty"] = float(penalty.detach())
            loss = loss + penalty
        targets = dap_targets(batch.prior_logp, rewards, self.params.sigma, self.params.prior_in_target)
        if log_z is not None:
            info["log_z"] = float(log_z.detach())
        info["mean_target"] = float(targets.mean())
        return loss, rewards, targets


class MARAParams(DAPParams):
    """``type = "mara"``: DAP + MARA, the MARA paper's chemistry setting (needs ``tau`` or ``tau_quantile``)."""

    type: Literal["mara"] = "mara"  # type: ignore[assignment]
    mara: Literal[True] = True


class MARA(DAP):
    """DAP with the MARA modifier on."""

    name = "mara"
    Params = MARAParams
    example_params = {"tau_quantile": 0.5}


class IPSDAPParams(DAPParams):
    """``type = "ips_dap"``: DAP with IPS row weights; log Z on by default (see the module docstring)."""

    type: Literal["ips_dap"] = "ips_dap"  # type: ignore[assignment]
    ips: Literal[True] = True
    learn_log_z: bool = True


class IPSDAP(DAP):
    """DAP with the IPS row weights on."""

    name = "ips_dap"
    Params = IPSDAPParams
