"""Marginal IPS (MIPS; Sandhu, Sinha & Liu; docs/strategies.md, "MIPS"): IPS with the outcome's marginal probability.

Frequency IPS divides a reward by p̂(o) = n_o/G. When the outcomes outnumber the group, n_o is almost always 1
and p̂ = 1/G says nothing about p_θ(o). MIPS divides instead by an estimate of the marginal

    p_θ(o) = Σ_{τ → o} π_θ(τ),

the sum over every trajectory τ that ends in o (on SMILES: every spelling of the molecule). The estimate
comes with the batch (``StrategyBatch.outcome_freq``), made by the caller from the sampled trajectory and a
model of the trajectories that lead to o:

- a backward model P_B(τ | o) (the hypergrid's learned backward policy): p̂(o) = π_θ(τ)/P_B(τ | o)
  (:func:`trajectory_marginal`), exact for every τ when P_B is the policy's own posterior π_θ(τ)/p_θ(o) and
  otherwise, in log space, too high by KL(π_θ(·|o) ‖ P_B) on average;
- a set of spellings (SMILES; ``mara_chem.rl.marginal``): p̂(m) = Σ_{s ∈ S(m)} π_θ(s), a lower bound.

Without an estimate in the batch, p̂(o_i) = π_θ(y_i): the backward model that puts all its mass on the sampled
trajectory, exact where every outcome has one trajectory. The update is IPS-GRPO's with that p̂:
r̃_i = r_i / max(p̂(o_i), ε), and since E_τ[R(o)/p_θ(o)·∇log π_θ(τ)] = ∇Σ_o R(o)·log p_θ(o), the idealised
fixed point is p_θ(o) ∝ R(o) at the outcome level, whatever the group size.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

import torch
from pydantic import Field, model_validator

from mara_chem.rl.strategies.base import StrategyBatch, StrategyOutput
from mara_chem.rl.strategies.policy_gradient import IPSGRPO, IPSGRPOParams


def trajectory_marginal(trajectory_logp: torch.Tensor, backward_logp: torch.Tensor) -> torch.Tensor:
    """p̂(o) = π_θ(τ)/P_B(τ | o) from the sampled trajectory's log-likelihood and its backward log-likelihood
    (detached: the estimate is a constant of the update)."""
    return torch.exp(trajectory_logp.detach() - backward_logp.detach())


class MIPSGRPOParams(IPSGRPOParams):
    """``type = "mips_grpo"``: IPS-GRPO whose p̂ is the outcome's marginal probability. ``marginal_spellings``:
    on SMILES, spellings of each molecule scored by the agent besides those sampled (its canonical SMILES,
    then random ones; ``mara_chem.rl.marginal``). The outcome is the molecule (the marginal is over a
    molecule's spellings) and the frequency options do not apply."""

    type: Literal["mips_grpo"] = "mips_grpo"  # type: ignore[assignment]
    marginal_spellings: int = Field(4, ge=0, le=64)

    @model_validator(mode="after")
    def _marginal_is_per_molecule(self) -> MIPSGRPOParams:
        if self.outcome != "molecule":
            raise ValueError(f"outcome = {self.outcome!r}: mips_grpo's marginal is over a molecule's spellings "
                             "(outcome = 'molecule'); for scaffold or cluster outcomes use ips_grpo")
        given = [k for k in ("frequency", "frequency_window") if k in self.model_fields_set]
        if given:
            raise ValueError(f"{', '.join(given)} given but mips_grpo takes p̂ from the marginal, not a frequency")
        return self


class MIPSGRPO(IPSGRPO):
    """IPS-GRPO on the marginal outcome probability the batch carries (``outcome_freq``)."""

    name = "mips_grpo"
    Params = MIPSGRPOParams
    params: MIPSGRPOParams
    #: the batch's own spellings only: the contract suite's REINVENT side has no agent to score more
    example_params = {"marginal_spellings": 0}

    @property
    def needs_marginal_probability(self) -> bool:
        return True

    def forward(self, batch: StrategyBatch) -> StrategyOutput:
        if batch.outcome_freq is None:  # one trajectory per outcome: the sampled one
            batch = replace(batch, outcome_freq=trajectory_marginal(batch.agent_logp, torch.zeros_like(batch.agent_logp)))
        return super().forward(batch)
