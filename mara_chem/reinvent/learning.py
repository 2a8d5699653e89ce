"""mara-chem's learning strategies inside REINVENT 4.8's own staged-learning loop.

What is wrapped (REINVENT 4.8.24 line numbers; :mod:`mara_chem.reinvent.compat` refuses any other version
or signature):

- ``reinvent/runmodes/RL/validation.py`` 26-29 ``SectionLearningStrategy`` and 74-81 ``RLConfig``: subclassed.
  ``[learning_strategy]`` of a mara-chem type is validated by that strategy's own option model (unknown keys
  are errors); any other table goes through REINVENT's model unchanged. The subclass replaces the name
  ``RLConfig`` in ``run_staged_learning.py`` (imported at line 14, used at line 43).
- ``reinvent/runmodes/RL/setup/reward_strategy.py`` 14-46 ``setup_reward_strategy``: replaced in
  ``run_staged_learning.py`` (imported at line 13, called at line 101). For a mara-chem table it looks the
  type up where REINVENT does (``getattr(reinvent.runmodes.RL, f"{type}_strategy")``, where :func:`install`
  registered every mara-chem type) and builds :class:`MaraReward`; any other table goes to REINVENT's.
- ``reinvent/runmodes/RL/reward.py`` 165-245 ``RLReward``: :class:`MaraReward` subclasses it with the same
  call signature and return value, so ``Learning.optimize`` and the reports are untouched.
- ``reinvent/runmodes/RL/reinvent.py`` 23-37 ``ReinventLearning.update``: wrapped to hand the step's
  canonical SMILES and states (``self.sampled``) and the prior to the reward object before REINVENT's body runs.

The traps this handles: REINVENT's geometric mean floors every total at 1e-8, so invalid rows get 1e-8 (set
to 0 here from their state); REINVENT zeroes in-batch duplicates before the strategy (strategies that count
them, IPS, get back the real score of the molecule's first occurrence); a learned log Z is not in REINVENT's
optimiser (added as a parameter group); REINVENT's ``mask_idx`` indexes rows before the NaN filter (here
the replay memory gets exactly the valid, scored rows).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Optional

import numpy as np
import torch
from pydantic import PrivateAttr, model_serializer, model_validator
from reinvent.runmodes import RL
from reinvent.runmodes.RL.reward import RLReward
from reinvent.runmodes.RL.validation import RLConfig, SectionLearningStrategy

from mara_chem.rl.strategies import LearningStrategy, StrategyBatch, StrategyOutput, StrategyParams, build_strategy
from mara_chem.rl.strategies import list_strategies, strategy_params_model

log = logging.getLogger(__name__)

SMILES_INVALID, SMILES_VALID, SMILES_DUPLICATE = 0, 1, 2
#: keys REINVENT's own ``[learning_strategy]`` accepts; a ``dap`` table with any other key is mara-chem's DAP
REINVENT_STRATEGY_KEYS = frozenset({"type", "sigma", "rate"})


def is_mara_table(table: Any) -> bool:
    """Whether a ``[learning_strategy]`` table is for mara-chem (its type, or ``dap`` with mara-chem options)."""
    if not isinstance(table, dict) or table.get("type") not in list_strategies():
        return False
    return table["type"] != "dap" or bool(set(table) - REINVENT_STRATEGY_KEYS)


@dataclass
class StepContext:
    """What ``ReinventLearning.update`` knows and ``RLReward.__call__`` is not given."""

    smiles: list[str]  # REINVENT's processed SMILES: canonical for valid and duplicate rows
    states: np.ndarray  # 0 invalid, 1 valid, 2 in-batch duplicate
    prior: Any  # REINVENT's prior ModelAdapter (forward-KL strategies sample from it)


@dataclass
class StepRecord:
    """One update as the strategy saw it (for hooks: tests, logging)."""

    batch: StrategyBatch
    output: StrategyOutput


class MaraStrategyType:
    """What :func:`install` registers as ``reinvent.runmodes.RL.<type>_strategy``: the mara-chem type.

    REINVENT's ``RLReward`` calls a strategy with four tensors and nothing else; mara-chem's strategies need
    the step's context, so they run only inside :class:`MaraReward`, and a direct call says so.
    """

    def __init__(self, type_: str):
        self.type = type_

    def build(self, params: StrategyParams) -> LearningStrategy:
        return build_strategy(params)

    def __call__(self, *args: Any, **kwargs: Any):
        raise RuntimeError(f"mara-chem strategy {self.type!r} needs the step context: run it with `mara-chem reinvent`"
                           " (or call mara_chem.reinvent.install() before REINVENT sets up the run)")

    def __repr__(self) -> str:
        return f"<mara-chem learning strategy {self.type!r}>"


class MaraReward(RLReward):
    """``RLReward`` with a mara-chem strategy: same call and return, with the step's full context.

    Returns (agent log-likelihoods, prior log-likelihoods, per-row target (DAP's log π0 + σR, or the
    reward for policy-gradient types), loss) over the rows REINVENT keeps (non-NaN scores), as REINVENT does.
    """

    step_hooks: ClassVar[list[Callable[[StepRecord], None]]] = []

    def __init__(self, optimizer: torch.optim.Optimizer, strategy: LearningStrategy):
        super().__init__(optimizer, getattr(strategy.params, "sigma", None), strategy)
        self.strategy = strategy
        for group in strategy.optimizer_param_groups():  # e.g. learned log Z with its own rate
            optimizer.add_param_group(group)
        self.context: StepContext | None = None

    def __call__(self, orig_smilies, scores, agent_nlls, prior_nlls, mask_idx, inception, agent):
        context, self.context = self.context, None
        if context is None:
            raise RuntimeError("mara-chem's reward was called without the step context (ReinventLearning.update "
                               "is not wrapped: call mara_chem.reinvent.install())")
        scores = self._scores(np.asarray(scores, dtype=float), context)
        keep = ~np.isnan(scores)
        rows = np.flatnonzero(keep)
        agent_lls = -agent_nlls[torch.as_tensor(rows, device=agent_nlls.device)]
        prior_lls = -prior_nlls[torch.as_tensor(rows, device=prior_nlls.device)].detach()
        score_t = torch.as_tensor(scores[rows], dtype=agent_lls.dtype, device=agent_lls.device)
        ids = _outcome_ids([context.smiles[i] for i in rows], context.states[rows])
        is_replay = torch.zeros(len(rows), dtype=torch.bool)
        pool: dict[str, torch.Tensor] = {}
        if inception is not None:
            valid = context.states[rows] == SMILES_VALID
            replay = inception(np.asarray(orig_smilies)[rows][valid], score_t[valid], prior_lls[valid])
            pool = _anchor_pool(inception, score_t)
            if replay:  # REINVENT's inception sample: (raw SMILES, scores, prior log-likelihoods)
                replay_smiles, replay_scores, replay_prior = replay
                agent_lls = torch.cat([agent_lls, -agent.likelihood_smiles(list(replay_smiles))])
                prior_lls = torch.cat([prior_lls, _as_tensor(replay_prior, agent_lls)])
                score_t = torch.cat([score_t, _as_tensor(replay_scores, agent_lls)])
                ids = torch.cat([ids, 2 * len(context.smiles) + torch.arange(len(replay_smiles))])  # all distinct
                is_replay = torch.cat([is_replay, torch.ones(len(replay_smiles), dtype=torch.bool)])
        device = agent_lls.device
        batch = StrategyBatch(
            agent_logp=agent_lls, prior_logp=prior_lls, scores=score_t, outcome_ids=ids.to(device),
            is_replay=is_replay.to(device), prior_sample_agent_logp=self._prior_sample_logp(context, agent, len(rows)),
            **pool,
        )
        out = self.strategy(batch)
        self._optimizer.zero_grad()
        out.loss.backward()
        self._optimizer.step()
        for hook in self.step_hooks:
            hook(StepRecord(batch, out))
        n = len(rows)
        target = out.targets if out.targets is not None else out.rewards
        return agent_lls[:n].detach(), prior_lls[:n], target[:n].detach(), out.loss.detach().view(1)

    def _scores(self, scores: np.ndarray, context: StepContext) -> np.ndarray:
        """REINVENT's totals with invalid rows at 0 (not the geometric mean's 1e-8 floor) and, for strategies
        that count duplicates, each duplicate's real score (its first occurrence's, after the diversity filter)."""
        scores = scores.copy()
        scores[context.states == SMILES_INVALID] = 0.0
        if not self.strategy.zero_batch_duplicates:
            first: dict[str, float] = {}
            for i, (smi, state) in enumerate(zip(context.smiles, context.states)):
                if state == SMILES_VALID:
                    first.setdefault(smi, scores[i])
                elif state == SMILES_DUPLICATE:
                    scores[i] = first[smi]
        return scores

    def _prior_sample_logp(self, context: StepContext, agent, n: int) -> torch.Tensor | None:
        """Agent log-likelihood of prior samples, for ``kl = "forward"``."""
        if getattr(self.strategy.params, "kl", None) != "forward":
            return None
        _, smiles, _ = context.prior.model.sample(max(1, n))
        return -agent.likelihood_smiles(smiles)


def _as_tensor(values, like: torch.Tensor) -> torch.Tensor:
    """Inception rows hold tensors or numpy scalars; one float tensor like ``like``."""
    return torch.as_tensor([float(v) for v in values], dtype=like.dtype, device=like.device)


def _outcome_ids(smiles: list[str], states: np.ndarray) -> torch.Tensor:
    """Same id for the same canonical molecule; each invalid row its own id."""
    table: dict[str, int] = {}
    ids = [len(smiles) + i if state == SMILES_INVALID else table.setdefault(smi, len(table))
           for i, (smi, state) in enumerate(zip(smiles, states))]
    return torch.as_tensor(ids, dtype=torch.long)


def _anchor_pool(inception, like: torch.Tensor) -> dict[str, torch.Tensor]:
    """MARA's ``batch+memory`` anchor pool: the inception memory's scores and prior log-likelihoods."""
    if not len(inception):
        return {}
    return {"anchor_pool_scores": _as_tensor([row[1] for row in inception.storage], like),
            "anchor_pool_prior_logp": _as_tensor([row[2] for row in inception.storage], like)}


class MaraSectionLearningStrategy(SectionLearningStrategy):
    """REINVENT's ``[learning_strategy]``; a mara-chem table is validated by its type's option model."""

    _mara: Optional[StrategyParams] = PrivateAttr(None)

    @model_validator(mode="wrap")
    @classmethod
    def _route(cls, data: Any, handler):
        if not is_mara_table(data):
            return handler(data)
        params = strategy_params_model(data["type"]).model_validate(data)
        section = handler({"type": params.type, "rate": params.rate})  # REINVENT's sigma field is unused here
        section._mara = params
        return section

    @model_serializer(mode="wrap")
    def _dump(self, handler):
        if self._mara is None:
            return handler(self)
        return {"type": self._mara.type, **self._mara.model_dump(mode="json", exclude_unset=True)}

    @property
    def mara_params(self) -> StrategyParams | None:
        return self._mara


class MaraRLConfig(RLConfig):
    """REINVENT's staged-learning model with the extended ``[learning_strategy]``."""

    learning_strategy: Optional[MaraSectionLearningStrategy] = None


def setup_reward_strategy_factory(original: Callable) -> Callable:
    """REINVENT's ``setup_reward_strategy`` for its own types, :class:`MaraReward` for mara-chem's."""

    def setup_reward_strategy(config, agent):
        params = getattr(config, "mara_params", None)
        if params is None:
            return original(config, agent)
        registered = getattr(RL, f"{config.type}_strategy")  # where REINVENT looks strategies up
        if not isinstance(registered, MaraStrategyType):  # "dap" with mara-chem options: REINVENT's own is there
            registered = MaraStrategyType(config.type)
        strategy = registered.build(params).to(agent.device)
        optimizer = torch.optim.Adam(agent.get_network_parameters(), lr=params.rate)
        log.info("Using mara-chem learning strategy %s", params.model_dump(exclude_unset=True))
        return MaraReward(optimizer, strategy)

    return setup_reward_strategy


def update_with_context(original: Callable) -> Callable:
    """``ReinventLearning.update`` that first hands the step's context to a mara-chem reward."""

    def update(self, results, orig_smilies):
        if isinstance(self.reward_nlls, MaraReward):
            states = np.array([state.value for state in self.sampled.states], dtype=int)
            self.reward_nlls.context = StepContext(list(self.sampled.smilies), states, self.prior)
        return original(self, results, orig_smilies)

    update.__wrapped__ = original
    return update
