"""What a learning strategy is fed, built in one place for mara-chem's loop and for REINVENT's.

Both loops compute their tensors their own way (mara-chem from token rows, REINVENT from its NLLs and its
inception memory) and hand them here as rows; :class:`StrategyInputs` turns them into the
:class:`~mara_chem.rl.strategies.StrategyBatch` the strategy sees, so the same rows give the same batch
and the same loss in either loop. What goes beyond the on-policy rows is asked for only when the strategy
declares it needs it (``LearningStrategy.needs_prior_samples``, ``needs_anchor_pool``, ``ips_options``):

- outcome ids, and p̂ per row for IPS ``window``/``memory`` frequencies, from the strategy's
  :class:`~mara_chem.rl.outcomes.OutcomeTracker` (kept here, with its state, across steps and checkpoints);
  without IPS every valid molecule is its own outcome and every invalid row one of its own;
- replay rows, appended after the on-policy rows, each its own outcome (p̂ = 1: never counted);
- the agent's log-likelihoods of prior samples (forward KL), MARA's anchor pool and MIPS's marginal outcome
  probability (``needs_marginal_probability``; on SMILES :func:`mara_chem.rl.marginal.spelling_marginal`), from
  callables the caller supplies and that are called only when needed (they cost a sampling or a model pass).

Further rows (e.g. augmented copies of the batch) are simply more :class:`OnPolicyRows` or
:class:`Rows` handed to :meth:`StrategyInputs.build`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from mara_chem.rl.outcomes import OutcomeTracker, outcome_ids
from mara_chem.rl.strategies import LearningStrategy, StrategyBatch


@dataclass
class Rows:
    """Rows of one kind: the agent's log-likelihoods (they carry the gradient), the prior's, the scores."""

    agent_logp: torch.Tensor
    prior_logp: torch.Tensor
    scores: torch.Tensor

    def __post_init__(self) -> None:
        n = self.agent_logp.shape[0]
        if self.prior_logp.shape[0] != n or self.scores.shape[0] != n:
            raise ValueError(f"rows disagree in length: agent {n}, prior {self.prior_logp.shape[0]}, "
                             f"scores {self.scores.shape[0]}")

    def __len__(self) -> int:
        return int(self.agent_logp.shape[0])


@dataclass
class OnPolicyRows(Rows):
    """Rows sampled from the current agent, with each row's canonical SMILES (None: invalid)."""

    canonical: Sequence[str | None] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.canonical) != len(self):
            raise ValueError(f"{len(self.canonical)} canonical SMILES for {len(self)} on-policy rows")


@dataclass
class AnchorPool:
    """MARA's extra anchor candidates (the replay memory): prior log-likelihoods and scores."""

    prior_logp: torch.Tensor
    scores: torch.Tensor


class StrategyInputs:
    """The one builder of a strategy's batch; owns the strategy's outcome tracker (None without IPS)."""

    def __init__(self, strategy: LearningStrategy) -> None:
        self.strategy = strategy
        options = strategy.ips_options
        self.outcomes: OutcomeTracker | None = None if options is None else OutcomeTracker.from_options(options)

    def build(
        self,
        on_policy: OnPolicyRows,
        replay: Rows | None = None,
        *,
        prior_samples: Callable[[int], torch.Tensor] | None = None,
        anchor_pool: Callable[[], AnchorPool | None] | None = None,
        memory_smiles: Callable[[], Sequence[str]] | None = None,
        marginal_probability: Callable[[], torch.Tensor] | None = None,
    ) -> StrategyBatch:
        """The batch for one update; advances the outcome tracker (IPS ``window``) by one step.

        ``prior_samples(n)``: the agent's log-likelihoods of n prior samples, called when the strategy
        needs them (n = the on-policy row count, at least 1). ``anchor_pool()``: MARA's pool, called when
        the strategy anchors on memory. ``memory_smiles()``: canonical SMILES of the replay memory, called
        for IPS ``frequency = "memory"``. ``marginal_probability()``: p̂_θ(o_i) of every on-policy row summed
        over the trajectories reaching its outcome, called when the strategy needs it (MIPS).
        """
        strategy = self.strategy
        device = on_policy.agent_logp.device
        ids, p_hat = self._outcomes(on_policy.canonical, memory_smiles)
        if strategy.needs_marginal_probability:
            if marginal_probability is None:
                raise ValueError(f"strategy {strategy.name!r} needs the marginal outcome probability and the "
                                 "caller gave no estimator")
            p_hat = marginal_probability().detach().float().cpu()
            if p_hat.shape != (len(on_policy),):
                raise ValueError(f"marginal probability has shape {tuple(p_hat.shape)}, expected ({len(on_policy)},)")
        agent_logp, prior_logp, scores = on_policy.agent_logp, on_policy.prior_logp, on_policy.scores
        is_replay = torch.zeros(len(on_policy), dtype=torch.bool)
        if replay is not None and len(replay):
            agent_logp = torch.cat([agent_logp, replay.agent_logp.to(agent_logp)])
            prior_logp = torch.cat([prior_logp, replay.prior_logp.to(prior_logp)])
            scores = torch.cat([scores, replay.scores.to(scores)])
            first = int(ids.max().item()) + 1 if len(ids) else 0
            ids = torch.cat([ids, first + torch.arange(len(replay))])  # each replay row its own outcome
            is_replay = torch.cat([is_replay, torch.ones(len(replay), dtype=torch.bool)])
            p_hat = None if p_hat is None else torch.cat([p_hat, torch.ones(len(replay))])
        pool = None
        if strategy.needs_anchor_pool and anchor_pool is not None:
            pool = anchor_pool()
        sample_logp = None
        if strategy.needs_prior_samples:
            if prior_samples is None:
                raise ValueError(f"strategy {strategy.name!r} needs prior samples and the caller gave no source")
            sample_logp = prior_samples(max(1, len(on_policy)))
        return StrategyBatch(
            agent_logp=agent_logp, prior_logp=prior_logp, scores=scores, outcome_ids=ids.to(device),
            is_replay=is_replay.to(device), prior_sample_agent_logp=sample_logp,
            anchor_pool_prior_logp=None if pool is None else pool.prior_logp.to(device),
            anchor_pool_scores=None if pool is None else pool.scores.to(device),
            outcome_freq=None if p_hat is None else p_hat.to(device),
        )

    def _outcomes(self, canonical: Sequence[str | None],
                  memory_smiles: Callable[[], Sequence[str]] | None) -> tuple[torch.Tensor, torch.Tensor | None]:
        if self.outcomes is None:
            return outcome_ids(list(canonical)), None
        memory: Sequence[str] = ()
        if self.outcomes.frequency == "memory" and memory_smiles is not None:
            memory = memory_smiles()
        return self.outcomes.step(list(canonical), memory)

    def state_dict(self) -> dict[str, Any] | None:
        """The outcome tracker's state (window counts, cluster leaders) for a checkpoint; None without one."""
        return None if self.outcomes is None else self.outcomes.state_dict()

    def load_state_dict(self, state: dict[str, Any] | None) -> None:
        if self.outcomes is not None and state is not None:
            self.outcomes.load_state_dict(state)
