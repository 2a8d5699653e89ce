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
  canonical SMILES and states (``self.sampled``) and the prior to the reward object before REINVENT's body runs,
  and to send the strategy's diagnostics to REINVENT's log and TensorBoard after it.
- ``reinvent/runmodes/RL/learning.py`` 205-222 ``Learning.get_state_dict`` (the stage checkpoint): wrapped to add
  mara-chem's state (log Z, the IPS outcome tracker's window and clusters) under ``CHECKPOINT_KEY``.
- ``reinvent/runmodes/create_adapter.py`` 21-61 ``create_adapter``: wrapped in ``run_staged_learning.py``
  (imported at line 9) to keep the agent file's save dict, from which that state is restored when
  ``use_checkpoint = true``.

The strategy's batch is built by :mod:`mara_chem.rl.strategy_inputs` from REINVENT's tensors, exactly as
mara-chem's loop builds it from its own: every option of a strategy (IPS outcomes and frequencies, MARA's
anchor pool, forward KL) means the same in both loops. The outcome tracker lives in the one reward object
REINVENT keeps for all stages, so IPS ``window`` counts and clusters carry across steps and stages; IPS
``memory`` counts REINVENT's inception memory as it was before this step's batch joined it.

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
from pathlib import Path
from typing import Any, ClassVar, Optional

import numpy as np
import torch
from pydantic import ConfigDict, PrivateAttr, model_serializer, model_validator
from reinvent.runmodes import RL
from reinvent.runmodes.RL.reward import RLReward
from reinvent.runmodes.RL.validation import RLConfig, SectionLearningStrategy

from mara_chem.chem.smiles import SmilesState, canonicalize
from mara_chem.reinvent.export import REINVENT_STRATEGY_TYPES
from mara_chem.rl.marginal import extra_spellings, spelling_marginal
from mara_chem.rl.learning_step import LearningStep
from mara_chem.rl.strategies import LearningStrategy, StrategyBatch, StrategyOutput, StrategyParams, build_strategy
from mara_chem.rl.strategies import list_strategies, strategy_description, strategy_params_model
from mara_chem.rl.strategy_inputs import AnchorPool, OnPolicyRows, Rows, StrategyInputs, memory_options, resume_mismatch

#: a child of REINVENT's "reinvent" logger, so that these lines reach REINVENT's log (stderr or ``-l FILE``)
log = logging.getLogger("reinvent.mara_chem")

#: the key of mara-chem's state (strategy parameters such as log Z, IPS window counts and clusters) in
#: REINVENT's stage checkpoint (``chkpt_file``); restored from the agent file with ``use_checkpoint = true``
CHECKPOINT_KEY = "mara_chem"

#: the strategy's per-step diagnostics REINVENT's log and TensorBoard receive (``StrategyOutput.info`` keys)
DIAGNOSTICS = ("loss", "mara_tau", "mara_high_fraction", "mara_anchor_score", "ips_outcomes", "ips_mean_factor",
               "ips_distinct_fraction", "ips_mean_weight", "log_z", "kl_estimate", "n_replay")

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
class UpdateRecord:
    """One update as the strategy saw it (for hooks: tests, logging), with the on-policy rows' canonical SMILES
    (None: invalid) and the replay memory's, which the outcome tracker read."""

    batch: StrategyBatch
    output: StrategyOutput
    canonical: list[str | None]
    memory: list[str]


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

    step_hooks: ClassVar[list[Callable[[UpdateRecord], None]]] = []

    def __init__(self, optimizer: torch.optim.Optimizer, strategy: LearningStrategy):
        super().__init__(optimizer, getattr(strategy.params, "sigma", None), strategy)
        self.strategy = strategy
        for group in strategy.optimizer_param_groups():  # e.g. learned log Z with its own rate
            optimizer.add_param_group(group)
        self.context: StepContext | None = None
        self.inputs = StrategyInputs(strategy)  # its outcome tracker lives across REINVENT's steps and stages
        self.learn = LearningStep(strategy, optimizer)  # the same optimiser step as mara-chem's loop
        self.last_info: dict[str, float] = {}
        self._steps: dict[int, int] = {}  # updates per stage, for TensorBoard's step axis

    def state_dict(self) -> dict[str, Any]:
        """What REINVENT's checkpoint lacks: the strategy's own state (log Z) and the outcome tracker's, with
        the settings they mean something under."""
        return {"settings": self.inputs.settings(), "strategy": self.strategy.state_dict(),
                "inputs": self.inputs.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a saved state; one written by another strategy or outcome definition is refused
        (:func:`resume_refusal`; the run file's validation refuses it first)."""
        reason = resume_mismatch(state.get("settings"), self.inputs.settings())
        if reason:
            raise ValueError(resume_refusal("the agent file", reason))
        self.strategy.load_state_dict(state["strategy"])
        self.inputs.load_state_dict(state["inputs"])

    def report(self, stage: int, tensorboard: Any | None) -> None:
        """The last update's diagnostics to REINVENT's log and (when it writes one) TensorBoard."""
        step = self._steps[stage] = self._steps.get(stage, 0) + 1
        shown = {key: self.last_info[key] for key in DIAGNOSTICS if key in self.last_info}
        log.info("mara-chem %s stage %d step %d: %s", self.strategy.name, stage, step,
                 ", ".join(f"{key} {value:.4g}" for key, value in shown.items()))
        if tensorboard is not None:
            for key, value in shown.items():
                tensorboard.add_scalar(f"mara-chem/{key}", value, step)

    def __call__(self, orig_smilies, scores, agent_nlls, prior_nlls, mask_idx, inception, agent):
        context, self.context = self.context, None
        if context is None:
            raise RuntimeError("mara-chem's reward was called without the step context (ReinventLearning.update "
                               "is not wrapped: call mara_chem.reinvent.install())")
        scores = self._scores(np.asarray(scores, dtype=float), context)
        rows = np.flatnonzero(~np.isnan(scores))
        agent_lls = -agent_nlls[torch.as_tensor(rows, device=agent_nlls.device)]
        prior_lls = -prior_nlls[torch.as_tensor(rows, device=prior_nlls.device)].detach()
        score_t = torch.as_tensor(scores[rows], dtype=agent_lls.dtype, device=agent_lls.device)
        on_policy = OnPolicyRows(agent_lls, prior_lls, score_t, canonical=[
            None if context.states[i] == SmilesState.INVALID else context.smiles[i] for i in rows])
        replay, memory = None, []
        if inception is not None:
            memory = [row[0] for row in inception.storage]  # before this batch joins it, as in mara-chem's loop
            valid = context.states[rows] == SmilesState.VALID
            sampled = inception(np.asarray(orig_smilies)[rows][valid], score_t[valid], prior_lls[valid])
            if sampled:  # REINVENT's inception sample: (raw SMILES, scores, prior log-likelihoods)
                replay_smiles, replay_scores, replay_prior = sampled
                replay = Rows(-agent.likelihood_smiles(list(replay_smiles)), _as_tensor(replay_prior, agent_lls),
                              _as_tensor(replay_scores, agent_lls))
        memory = [canonicalize(s) or s for s in memory]
        batch = self.inputs.build(
            on_policy, replay,
            prior_samples=lambda n: -agent.likelihood_smiles(list(context.prior.model.sample(n)[1])),
            anchor_pool=lambda: _inception_pool(inception, agent_lls), memory_smiles=lambda: memory,
            marginal_probability=lambda: spelling_marginal(
                on_policy.canonical, [str(s) for s in np.asarray(orig_smilies)[rows]], agent_lls,
                lambda smiles: _spelling_logp(agent, smiles),
                lambda m: extra_spellings(m, self.strategy.params.marginal_spellings)))
        out = self.learn(batch)
        self.last_info = out.info
        for hook in self.step_hooks:
            hook(UpdateRecord(batch, out, list(on_policy.canonical), memory))
        n = len(rows)
        target = out.targets if out.targets is not None else out.rewards
        return agent_lls[:n].detach(), prior_lls[:n], target[:n].detach(), out.loss.detach().view(1)

    def _scores(self, scores: np.ndarray, context: StepContext) -> np.ndarray:
        """REINVENT's totals with invalid rows at 0 (not the geometric mean's 1e-8 floor) and, for strategies
        that count duplicates, each duplicate's real score (its first occurrence's, after the diversity filter)."""
        scores = scores.copy()
        scores[context.states == SmilesState.INVALID] = 0.0
        if not self.strategy.zero_batch_duplicates:
            first: dict[str, float] = {}
            for i, (smi, state) in enumerate(zip(context.smiles, context.states)):
                if state == SmilesState.VALID:
                    first.setdefault(smi, scores[i])
                elif state == SmilesState.DUPLICATE:
                    scores[i] = first[smi]
        return scores


def _spelling_logp(agent, smiles: list[str]) -> torch.Tensor:
    """REINVENT's agent log-likelihood of each SMILES (no gradient); -inf for one its vocabulary cannot spell."""
    with torch.no_grad():
        try:
            return -agent.likelihood_smiles(smiles).detach().float().cpu()
        except (KeyError, ValueError, IndexError):
            out = torch.full((len(smiles),), float("-inf"))
            for i, s in enumerate(smiles):
                try:
                    out[i] = -agent.likelihood_smiles([s]).detach().float().cpu()[0]
                except (KeyError, ValueError, IndexError):
                    continue
            return out


def _as_tensor(values, like: torch.Tensor) -> torch.Tensor:
    """Inception rows hold tensors or numpy scalars; one float tensor like ``like``."""
    return torch.as_tensor([float(v) for v in values], dtype=like.dtype, device=like.device)


def _inception_pool(inception, like: torch.Tensor) -> AnchorPool | None:
    """MARA's ``batch+memory`` anchor pool: the inception memory's scores and prior log-likelihoods."""
    if inception is None or not len(inception):
        return None
    return AnchorPool(prior_logp=_as_tensor([row[2] for row in inception.storage], like),
                      scores=_as_tensor([row[1] for row in inception.storage], like))


class MaraSectionLearningStrategy(SectionLearningStrategy):
    """REINVENT's ``[learning_strategy]``; a mara-chem table is validated by its type's option model."""

    model_config = ConfigDict(**{**SectionLearningStrategy.model_config, "title": "SectionLearningStrategy"})

    _mara: Optional[StrategyParams] = PrivateAttr(None)
    _resume: bool = PrivateAttr(False)

    @model_validator(mode="wrap")
    @classmethod
    def _route(cls, data: Any, handler):
        if isinstance(data, dict) and "type" in data and data["type"] not in (*REINVENT_STRATEGY_TYPES,
                                                                              *list_strategies()):
            raise ValueError(f"unknown learning strategy type {data['type']!r}; valid: REINVENT's "
                             f"{', '.join(REINVENT_STRATEGY_TYPES)} and mara-chem's {', '.join(list_strategies())}")
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


def resume_refusal(where: str, reason: str) -> str:
    """The one refusal of a strategy state that does not fit, with the documented way on (docs/reinvent.md)."""
    return (f"use_checkpoint = true: the mara-chem strategy state in {where} cannot be restored: {reason}. To go on "
            "with this strategy from that agent's weights, set use_checkpoint = false (the strategy state and "
            "REINVENT's diversity filter then start fresh), or keep the strategy that wrote it")


def saved_strategy_state(agent_file: str) -> dict[str, Any] | None:
    """mara-chem's state in a REINVENT agent file (a stage checkpoint), read without running any pickle;
    None when the file holds none (a prior, REINVENT's own strategies) or cannot be read here (REINVENT's
    loader reports that)."""
    from reinvent.utils import prior_registry

    from mara_chem.models.reinvent_prior import load_model_file

    path = Path(prior_registry.get(agent_file) or agent_file)
    if not path.is_file():
        return None
    try:
        payload = load_model_file(path)
    except Exception:  # not a file mara-chem reads safely: REINVENT's own loader says what it is
        return None
    state = payload.get(CHECKPOINT_KEY) if isinstance(payload, dict) else None
    return state if isinstance(state, dict) else None


class MaraRLConfig(RLConfig):
    """REINVENT's staged-learning model with the extended ``[learning_strategy]``."""

    #: REINVENT's own name in its validation errors (with the hook on, a REINVENT user meets this model)
    model_config = ConfigDict(**{**RLConfig.model_config, "title": "RLConfig"})

    learning_strategy: Optional[MaraSectionLearningStrategy] = None

    @model_validator(mode="after")
    def _check_files(self) -> MaraRLConfig:
        """What REINVENT would fail on only after loading its models, or with a traceback that names no file:
        a stage without chkpt_file, a mara-chem prior as prior_file/agent_file (how to convert it), a mara-chem plugin component that
        cannot be built (a package missing: MaraGuacamol without guacamol)."""
        from reinvent.utils import prior_registry

        from mara_chem.reinvent.components import check_plugin_components
        from mara_chem.reinvent.model_files import check_model_file

        for number, stage in enumerate(self.stage, start=1):
            if not stage.chkpt_file:  # optional in REINVENT's model, yet its stage hand-over crashes without it
                raise ValueError(f"[[stage]] {number}: chkpt_file is required (REINVENT writes the stage's agent there)")
        for key in ("prior_file", "agent_file"):
            name = getattr(self.parameters, key)
            check_model_file(Path(prior_registry.get(name) or name), key)
        problems = [f"[[stage]] {number} scoring: {problem}" for number, stage in enumerate(self.stage, start=1)
                    for problem in check_plugin_components(stage.scoring)]
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @model_validator(mode="after")
    def _check_mara_strategy(self) -> MaraRLConfig:
        """A mara-chem strategy: options that read REINVENT's inception memory need ``[inception]``; with
        ``use_checkpoint = true`` it resumes its own state from the agent file, which must be its own."""
        params = None if self.learning_strategy is None else self.learning_strategy.mara_params
        if params is None:
            return self
        inputs = StrategyInputs(build_strategy(params))
        needs_memory = memory_options(inputs.strategy)
        if needs_memory and self.inception is None:
            raise ValueError(f"[learning_strategy] {' and '.join(needs_memory)} read(s) REINVENT's inception memory, "
                             "and this run file has no [inception]: it would change nothing; add an [inception] "
                             "section or remove the option")
        self.learning_strategy._resume = bool(self.parameters.use_checkpoint)
        if self.parameters.use_checkpoint:
            saved = saved_strategy_state(self.parameters.agent_file)
            reason = None if saved is None else resume_mismatch(saved.get("settings"), inputs.settings())
            if reason:
                raise ValueError(resume_refusal(f"agent_file {self.parameters.agent_file}", reason))
        return self


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
        log.info("Using %s", strategy_description(params))
        reward = MaraReward(optimizer, strategy)
        saved = _loaded_agent_state.get(CHECKPOINT_KEY)
        if config._resume and saved is not None:
            reward.load_state_dict(saved)
            log.info("mara-chem strategy state restored from the agent file (use_checkpoint = true)")
        return reward

    return setup_reward_strategy


def update_with_context(original: Callable) -> Callable:
    """``ReinventLearning.update`` that first hands the step's context to a mara-chem reward, then reports the
    strategy's diagnostics to REINVENT's log and TensorBoard."""

    def update(self, results, orig_smilies):
        reward = self.reward_nlls
        if not isinstance(reward, MaraReward):
            return original(self, results, orig_smilies)
        states = np.array([state.value for state in self.sampled.states], dtype=int)
        reward.context = StepContext(list(self.sampled.smilies), states, self.prior)
        returned = original(self, results, orig_smilies)
        reward.report(self.stage_no, self.tb_reporter)
        return returned

    update.__wrapped__ = original
    return update


def state_dict_with_strategy(original: Callable) -> Callable:
    """``Learning.get_state_dict`` (REINVENT's stage checkpoint) with mara-chem's state under CHECKPOINT_KEY."""

    def get_state_dict(self):
        state = original(self)
        if state is not None and isinstance(self.reward_nlls, MaraReward):
            state[CHECKPOINT_KEY] = self.reward_nlls.state_dict()
        return state

    get_state_dict.__wrapped__ = original
    return get_state_dict


#: the save dict of the last model file ``run_staged_learning`` loaded, which is the agent's (it reads the prior
#: first, then the agent, then sets up the reward strategy), for the resume above
_loaded_agent_state: dict[str, Any] = {}


def create_adapter_keeping_agent_state(original: Callable) -> Callable:
    """REINVENT's ``create_adapter`` in ``run_staged_learning``; remembers the save dict it read (REINVENT keeps
    only the diversity filter from it)."""

    def create_adapter(dict_filename, mode, device):
        adapter, save_dict, model_type = original(dict_filename, mode, device)
        _loaded_agent_state.clear()
        _loaded_agent_state.update(save_dict)
        return adapter, save_dict, model_type

    create_adapter.__wrapped__ = original
    return create_adapter
