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
- the agent's log-likelihoods of prior samples (forward KL) and MARA's anchor pool, from callables the
  caller supplies and that are called only when needed (they cost a sampling or a prior pass).

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
    ) -> StrategyBatch:
        """The batch for one update; advances the outcome tracker (IPS ``window``) by one step.

        ``prior_samples(n)``: the agent's log-likelihoods of n prior samples, called when the strategy
        needs them (n = the on-policy row count, at least 1). ``anchor_pool()``: MARA's pool, called when
        the strategy anchors on memory. ``memory_smiles()``: canonical SMILES of the replay memory, called
        for IPS ``frequency = "memory"``.
        """
        strategy = self.strategy
        device = on_policy.agent_logp.device
        ids, p_hat = self._outcomes(on_policy.canonical, memory_smiles)
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

    def settings(self) -> dict[str, Any]:
        """What a saved state means (stored beside it): the strategy's type and state keys (a learned log Z)
        and the outcome tracker's definition. A state is restored only into equal settings
        (:func:`resume_mismatch`): scaffold counts are no cluster counts, MARA has no log Z."""
        ips = self.strategy.ips_options
        outcomes = None if ips is None else {
            "outcome": ips.outcome, "frequency": ips.frequency,
            "cluster_similarity": ips.cluster_similarity if ips.outcome == "cluster" else None}
        return {"type": self.strategy.name, "state": sorted(self.strategy.state_dict()), "outcomes": outcomes}

    def state_dict(self) -> dict[str, Any] | None:
        """The outcome tracker's state (window counts, cluster leaders) for a checkpoint; None without one."""
        return None if self.outcomes is None else self.outcomes.state_dict()

    def load_state_dict(self, state: dict[str, Any] | None) -> None:
        if self.outcomes is not None and state is not None:
            self.outcomes.load_state_dict(state)


def describe_settings(settings: dict[str, Any]) -> str:
    """``settings`` (:meth:`StrategyInputs.settings`) in run-file words."""
    text = f"type = {settings.get('type')!r}"
    state = settings.get("state") or []
    if state:
        text += " with a learned log Z" if any(k.startswith("log_z") for k in state) else f" with {', '.join(state)}"
    outcomes = settings.get("outcomes")
    if outcomes:
        text += ", IPS " + ", ".join(f"{k} = {v!r}" for k, v in outcomes.items() if v is not None)
    return text


def resume_mismatch(saved: dict[str, Any] | None, now: dict[str, Any]) -> str | None:
    """Why a saved strategy state (its ``settings``; None: it records none) cannot be restored into a strategy
    with settings ``now``; None when it can."""
    if saved is None:
        return "it does not record which strategy wrote it"
    if saved != now:
        return f"it was written by {describe_settings(saved)}, this run file has {describe_settings(now)}"
    return None


def memory_options(strategy: LearningStrategy) -> list[str]:
    """The options of ``strategy`` that read the replay memory (``[inception]``, in mara-chem's loop and in
    REINVENT's): without a memory they would change nothing, so a run file must not give them without one."""
    found = []
    ips = strategy.ips_options
    if ips is not None and ips.frequency == "memory":
        found.append('frequency = "memory"')
    if strategy.needs_anchor_pool:
        found.append('anchor_pool = "batch+memory"')
    return found
