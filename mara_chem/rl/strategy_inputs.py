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

Three entries, one per kind of batch, so that every caller (the loop's update, REINVENT's reward, augmented
memory, the genetic harness's off-policy replay) gets its batch from here:

- :meth:`StrategyInputs.build`: a step's own batch (the rows the agent sampled, then replay rows); steps the
  outcome tracker;
- :meth:`StrategyInputs.rebuild`: the same step's batch for re-spelled copies of its rows (augmented memory):
  new likelihoods, the step's scores, outcome ids, p̂ and MARA anchor, new replay rows; steps nothing;
- :meth:`StrategyInputs.build_replayed`: rows drawn from a buffer rather than sampled (the genetic harness's
  off-policy batches), placed where a step's rows go so that every strategy's loss applies to them; outcome ids
  from the tracker's keys, p̂ the current step's estimate (:meth:`OutcomeTracker.step_frequencies`); steps
  nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import torch

from mara_chem.rl.outcomes import OutcomeTracker, outcome_ids
from mara_chem.rl.strategies import LearningStrategy, StrategyBatch, StrategyOutput


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
        sample_logp = self._prior_sample_logp(prior_samples, len(on_policy))
        return StrategyBatch(
            agent_logp=agent_logp, prior_logp=prior_logp, scores=scores, outcome_ids=ids.to(device),
            is_replay=is_replay.to(device), prior_sample_agent_logp=sample_logp,
            anchor_pool_prior_logp=None if pool is None else pool.prior_logp.to(device),
            anchor_pool_scores=None if pool is None else pool.scores.to(device),
            outcome_freq=None if p_hat is None else p_hat.to(device),
        )

    def rebuild(self, step: StrategyBatch, output: StrategyOutput, agent_logp: torch.Tensor, prior_logp: torch.Tensor,
                replay: Rows | None = None, *,
                prior_samples: Callable[[int], torch.Tensor] | None = None) -> StrategyBatch:
        """The batch of re-spelled copies of a step's on-policy rows, in the same order: their own log-likelihoods
        (``agent_logp``, ``prior_logp``), the step's scores, outcome ids and p̂, the step's MARA anchor (from
        ``output``), then ``replay`` rows (each its own outcome, p̂ = 1). The outcome tracker is not stepped."""
        n = int(step.on_policy.sum())
        if agent_logp.shape[0] != n or prior_logp.shape[0] != n:
            raise ValueError(f"{agent_logp.shape[0]} re-spelled rows for a step of {n} on-policy rows")
        device = agent_logp.device
        ids, freq, scores = step.outcome_ids[:n], step.outcome_freq, step.scores[:n]
        is_replay = torch.zeros(n, dtype=torch.bool, device=device)
        freq = None if freq is None else freq[:n]
        if replay is not None and len(replay):
            m = len(replay)
            agent_logp = torch.cat([agent_logp, replay.agent_logp.to(agent_logp)])
            prior_logp = torch.cat([prior_logp, replay.prior_logp.to(prior_logp)])
            scores = torch.cat([scores, replay.scores.to(scores)])
            first = int(ids.max().item()) + 1 if n else 0
            ids = torch.cat([ids, first + torch.arange(m, device=device)])
            is_replay = torch.cat([is_replay, torch.ones(m, dtype=torch.bool, device=device)])
            freq = None if freq is None else torch.cat([freq, torch.ones(m, device=device)])
        sample_logp = self._prior_sample_logp(prior_samples, n)
        return replace(step, agent_logp=agent_logp, prior_logp=prior_logp, scores=scores, outcome_ids=ids,
                       is_replay=is_replay, outcome_freq=freq, prior_sample_agent_logp=sample_logp,
                       mara_anchor=step_anchor(output, device))

    def build_replayed(
        self,
        rows: OnPolicyRows,
        *,
        prior_samples: Callable[[int], torch.Tensor] | None = None,
        anchor_pool: Callable[[], AnchorPool | None] | None = None,
        memory_smiles: Callable[[], Sequence[str]] | None = None,
    ) -> StrategyBatch:
        """The batch of rows drawn from a buffer (``rows.canonical``: their molecules), placed as a step's rows
        (no ``is_replay``) so that every strategy's loss, group statistics and MARA anchor apply to them. With
        IPS, outcome ids come from the tracker's keys and p̂ is the current step's estimate (its batch and the
        molecules :meth:`count_step_molecules` added); nothing is stepped. The callables as in :meth:`build`."""
        device = rows.agent_logp.device
        if self.outcomes is None:
            ids, p_hat = outcome_ids(list(rows.canonical)), None
        else:
            memory: Sequence[str] = ()
            if self.outcomes.frequency == "memory" and memory_smiles is not None:
                memory = memory_smiles()
            ids, p_hat = self.outcomes.step_frequencies(list(rows.canonical), memory)
        pool = anchor_pool() if self.strategy.needs_anchor_pool and anchor_pool is not None else None
        sample_logp = self._prior_sample_logp(prior_samples, len(rows))
        return StrategyBatch(
            agent_logp=rows.agent_logp, prior_logp=rows.prior_logp, scores=rows.scores, outcome_ids=ids.to(device),
            is_replay=torch.zeros(len(rows), dtype=torch.bool, device=device), prior_sample_agent_logp=sample_logp,
            anchor_pool_prior_logp=None if pool is None else pool.prior_logp.to(device),
            anchor_pool_scores=None if pool is None else pool.scores.to(device),
            outcome_freq=None if p_hat is None else p_hat.to(device),
        )

    def observe(self, canonical: Sequence[str | None],
                memory_smiles: Callable[[], Sequence[str]] | None = None) -> None:
        """A step's batch that no update uses (the genetic harness without an on-policy update): the outcome
        tracker counts it all the same, so that IPS's p̂ of the step and its window are what :meth:`build`
        would have left."""
        if self.outcomes is not None:
            self._outcomes(canonical, memory_smiles)

    def count_step_molecules(self, canonical: Sequence[str]) -> None:
        """Molecules the step found besides its batch (the genetic harness's offspring): IPS counts them as samples
        of the step (its p̂ for :meth:`build_replayed`, and the window). Nothing without IPS."""
        if self.outcomes is not None and canonical:
            self.outcomes.add_to_step(canonical)

    def _prior_sample_logp(self, source: Callable[[int], torch.Tensor] | None, n: int) -> torch.Tensor | None:
        """The agent's log-likelihoods of max(1, n) prior samples when the strategy needs them (forward KL)."""
        if not self.strategy.needs_prior_samples:
            return None
        if source is None:
            raise ValueError(f"strategy {self.strategy.name!r} needs prior samples and the caller gave no source")
        return source(max(1, n))

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


def step_anchor(output: StrategyOutput, device: torch.device) -> tuple[torch.Tensor, torch.Tensor] | None:
    """A step's MARA anchor (S_z, log π0(y_z)) as the strategy reported it; None without MARA or an anchor."""
    if "mara_anchor_score" not in output.info:
        return None
    return (torch.tensor(output.info["mara_anchor_score"], device=device),
            torch.tensor(output.info["mara_anchor_prior_logp"], device=device))


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
