"""Learning-strategy plumbing: the batch and output records, the shared option models and the registry.

A strategy maps a :class:`StrategyBatch` of tensors to a scalar loss (docs/strategies.md): it knows
nothing about files, chemistry, optimisers or replay memory. Strategies register themselves by name through
``Registered`` (``mara_chem/registry.py``) into ``mara_chem.plugins.STRATEGIES`` (third-party strategies: entry-point group
``mara_chem.strategies``); :func:`build_strategy` validates the options
against the strategy's own pydantic model (unknown keys are errors naming the key).
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

import torch
from pydantic import BaseModel, ConfigDict, Field, model_validator
from torch import nn

from mara_chem.plugins import STRATEGIES
from mara_chem.registry import Registered
from mara_chem.rl.strategies.ips import ips_diagnostics
from mara_chem.rl.strategies.mara import high_reward_mask, mara_anchor, mara_rewards, quantile_threshold


@dataclass
class StrategyBatch:
    """One learning step's tensors; row i is one sampled (or replayed) sequence y_i.

    ``agent_logp`` carries the gradient; ``prior_logp`` and ``scores`` are treated as constants. Rows with
    ``is_replay`` come from replay memory (appended at the end): they join DAP's loss but are excluded from
    group statistics, IPS counts and policy-gradient estimators, which assume on-policy samples.
    """

    agent_logp: torch.Tensor
    prior_logp: torch.Tensor
    scores: torch.Tensor
    outcome_ids: torch.Tensor
    is_replay: torch.Tensor
    prior_sample_agent_logp: torch.Tensor | None = None
    anchor_pool_prior_logp: torch.Tensor | None = None
    anchor_pool_scores: torch.Tensor | None = None
    outcome_freq: torch.Tensor | None = None
    """p̂(o_i) per row when IPS frequencies come from outside the batch (``mara_chem.rl.outcomes``) or MIPS's
    marginal estimate (``mips.py``); None: IPS counts ``outcome_ids`` over the batch's on-policy rows."""
    mara_anchor: tuple[torch.Tensor, torch.Tensor] | None = None
    """MARA's anchor (S_z, log π0(y_z)) fixed by the caller (augmented copies keep their step's anchor,
    :mod:`mara_chem.rl.augmentation`); None: chosen from the batch (and pool) as usual."""

    def __post_init__(self) -> None:
        size = self.agent_logp.shape
        if len(size) != 1:
            raise ValueError(f"agent_logp must be 1-D [B], got shape {tuple(size)}")
        for name in ("prior_logp", "scores", "outcome_ids", "is_replay"):
            if getattr(self, name).shape != size:
                raise ValueError(f"{name} has shape {tuple(getattr(self, name).shape)}, expected {tuple(size)}")
        if self.outcome_freq is not None and self.outcome_freq.shape != size:
            raise ValueError(f"outcome_freq has shape {tuple(self.outcome_freq.shape)}, expected {tuple(size)}")
        if self.is_replay.dtype != torch.bool:
            raise ValueError("is_replay must be a bool tensor")
        if (self.anchor_pool_prior_logp is None) != (self.anchor_pool_scores is None):
            raise ValueError("anchor_pool_prior_logp and anchor_pool_scores must be given together")
        if self.anchor_pool_scores is not None and self.anchor_pool_scores.shape != self.anchor_pool_prior_logp.shape:
            raise ValueError("anchor_pool_prior_logp and anchor_pool_scores must have the same shape")

    @property
    def on_policy(self) -> torch.Tensor:
        """Bool mask [B] of rows sampled from the current agent."""
        return ~self.is_replay


@dataclass
class StrategyOutput:
    """``loss``: scalar to minimise; ``rewards``: per-row rewards after the MARA/IPS modifiers (before any
    KL shaping); ``targets``: DAP's per-row target log-likelihood (None for policy-gradient strategies);
    ``info``: scalars for logging."""

    loss: torch.Tensor
    rewards: torch.Tensor
    info: dict[str, float] = field(default_factory=dict)
    targets: torch.Tensor | None = None


class StrategyParams(BaseModel):
    """Options every strategy accepts. ``rate`` is the optimiser's learning rate: it belongs to the loop's
    optimiser and is accepted (and ignored) here so that a whole ``[learning_strategy]`` table validates."""

    model_config = ConfigDict(extra="forbid")

    type: str
    rate: float = Field(1e-4, gt=0)


class MaraOptions(BaseModel):
    """MARA modifier options (docs/strategies.md, "MARA"): H = {i : S_i ≥ τ}; τ fixed or a quantile of the batch scores."""

    model_config = ConfigDict(extra="forbid")

    mara: bool = False
    tau: float | None = Field(None, ge=0.0, le=1.0)
    tau_quantile: float | None = Field(None, gt=0.0, lt=1.0)
    anchor_pool: Literal["batch", "batch+memory"] = "batch"

    @model_validator(mode="after")
    def _check_mara(self) -> MaraOptions:
        given = [k for k in ("tau", "tau_quantile", "anchor_pool") if k in self.model_fields_set]
        if not self.mara and given:
            raise ValueError(f"{', '.join(given)} given but mara = false (set mara = true or type = 'mara')")
        if self.mara and (self.tau is None) == (self.tau_quantile is None):
            raise ValueError("MARA needs exactly one of 'tau' or 'tau_quantile'")
        return self


class IpsOptions(BaseModel):
    """IPS modifier options (docs/strategies.md, "IPS"): p̂(o) clipped below at ``ips_eps``; what an outcome is
    and where p̂ comes from are ``outcome`` and ``frequency`` (``mara_chem.rl.outcomes`` states each estimator's
    bias)."""

    model_config = ConfigDict(extra="forbid")

    ips: bool = False
    ips_eps: float = Field(0.01, gt=0.0, le=1.0)
    outcome: Literal["molecule", "scaffold", "cluster"] = "molecule"
    cluster_similarity: float = Field(0.7, gt=0.0, le=1.0)
    frequency: Literal["batch", "window", "memory"] = "batch"
    frequency_window: int = Field(10, ge=1)

    @model_validator(mode="after")
    def _check_ips(self) -> IpsOptions:
        given = [k for k in ("ips_eps", "outcome", "frequency", "cluster_similarity", "frequency_window")
                 if k in self.model_fields_set]
        if not self.ips and given:
            raise ValueError(f"{', '.join(given)} given but ips = false")
        if "cluster_similarity" in self.model_fields_set and self.outcome != "cluster":
            raise ValueError("cluster_similarity given but outcome is not 'cluster'")
        if "frequency_window" in self.model_fields_set and self.frequency != "window":
            raise ValueError("frequency_window given but frequency is not 'window'")
        return self


class LearningStrategy(Registered, nn.Module, metaclass=ABCMeta):
    """Base of every strategy. ``forward`` keeps the books (input checks, the MARA modifier, info);
    subclasses implement :meth:`_loss` and :attr:`beta`. A subclass registers itself by its class-level
    ``name`` (as every plugin family does) and declares its options model ``Params`` (as components and
    filters do) whose ``type`` field defaults to the same name."""

    plugin_registry = STRATEGIES
    name: ClassVar[str]
    Params: ClassVar[type[StrategyParams]]
    #: options besides ``type`` the contract suite builds the strategy with ({} = the defaults)
    example_params: ClassVar[dict[str, Any]] = {}

    @classmethod
    def _check_registration(cls) -> None:
        params = getattr(cls, "Params", None)
        if not (isinstance(params, type) and issubclass(params, StrategyParams)):
            raise TypeError(f"{cls.__name__} declares no Params (its options model, a StrategyParams subclass)")
        declared = params.model_fields["type"].default
        if declared != cls.name:
            raise TypeError(f"{cls.__name__}.Params declares type {declared!r}, registered as {cls.name!r}")

    def __init__(self, params: StrategyParams) -> None:
        super().__init__()
        self.params = params

    @property
    @abstractmethod
    def beta(self) -> float:
        """KL coefficient β used by the MARA augmentation."""

    # --- what the strategy needs in its batch: read by mara_chem.rl.strategy_inputs (safe defaults) ------
    @property
    def mara_options(self) -> MaraOptions | None:
        """The MARA options when the modifier is on (params that carry :class:`MaraOptions` with mara = true)."""
        params = self.params
        return params if isinstance(params, MaraOptions) and params.mara else None

    @property
    def ips_options(self) -> IpsOptions | None:
        """The IPS options when the modifier is on: what an outcome is and where its frequency comes from
        (params that carry :class:`IpsOptions` with ips = true); None: no outcome tracking."""
        params = self.params
        return params if isinstance(params, IpsOptions) and params.ips else None

    @property
    def needs_prior_samples(self) -> bool:
        """Whether the batch must carry the agent's log-likelihoods of prior samples (a forward-KL term)."""
        return False

    @property
    def needs_marginal_probability(self) -> bool:
        """Whether the batch must carry an estimate of each on-policy row's outcome probability p_θ(o_i) summed
        over the trajectories reaching o_i (MIPS; ``outcome_freq``)."""
        return False

    @property
    def needs_anchor_pool(self) -> bool:
        """Whether MARA's anchor may come from the replay memory (``anchor_pool = "batch+memory"``)."""
        mara = self.mara_options
        return mara is not None and mara.anchor_pool == "batch+memory"

    @property
    def zero_batch_duplicates(self) -> bool:
        """Whether the loop should zero the scores of in-batch duplicates (REINVENT's behaviour). False with
        IPS, which needs the duplicates' real scores and counts them itself."""
        return self.ips_options is None

    def optimizer_param_groups(self) -> list[dict[str, Any]]:
        """Extra optimiser parameter groups the strategy owns (e.g. DAP's log Z); empty by default."""
        return []

    def forward(self, batch: StrategyBatch) -> StrategyOutput:
        """Loss, modified rewards and logging info for one batch (prior log-probs and scores are constants)."""
        dtype = batch.agent_logp.dtype
        if bool(torch.isnan(batch.scores).any()):
            raise ValueError("scores contain NaN: failed scores must be resolved before the learning strategy")
        batch = replace(batch, prior_logp=batch.prior_logp.detach().to(dtype), scores=batch.scores.detach().to(dtype))
        rewards = batch.scores
        info: dict[str, float] = {"n_rows": float(rewards.numel()), "n_replay": float(batch.is_replay.sum())}
        if self.mara_options is not None:
            rewards = self._apply_mara(batch, rewards, info)
        loss, rewards, targets = self._loss(batch, rewards, info)
        if self.ips_options is not None:
            info.update(ips_diagnostics(batch.outcome_ids, self.ips_options.ips_eps, batch.on_policy, batch.outcome_freq))
        info["loss"] = float(loss.detach())
        return StrategyOutput(loss=loss, rewards=rewards.detach(), info=info, targets=targets)

    @abstractmethod
    def _loss(
        self, batch: StrategyBatch, rewards: torch.Tensor, info: dict[str, float]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """Return (loss, rewards after the strategy's own modifiers, DAP targets or None); may add to info."""

    def _apply_mara(self, batch: StrategyBatch, rewards: torch.Tensor, info: dict[str, float]) -> torch.Tensor:
        """MARA on the scores (docs/strategies.md, "MARA"); τ from the options or the on-policy score quantile."""
        p = self.mara_options
        on_policy = batch.on_policy
        tau = p.tau if p.tau is not None else quantile_threshold(rewards[on_policy], p.tau_quantile)
        use_memory = p.anchor_pool == "batch+memory"
        candidates = None if use_memory else on_policy
        pool_scores = batch.anchor_pool_scores if use_memory else None
        pool_logp = batch.anchor_pool_prior_logp if use_memory else None
        prior_logp = batch.prior_logp
        anchor = (batch.mara_anchor if batch.mara_anchor is not None
                  else mara_anchor(rewards, prior_logp, tau, pool_scores, pool_logp, candidates))
        info["mara_tau"] = float(tau)
        info["mara_high_fraction"] = float(high_reward_mask(rewards, tau).float().mean())
        if anchor is not None:
            info["mara_anchor_score"], info["mara_anchor_prior_logp"] = float(anchor[0]), float(anchor[1])
        return mara_rewards(rewards, prior_logp, tau, self.beta, pool_scores, pool_logp, candidates, batch.mara_anchor)


def list_strategies() -> list[str]:
    """Registered learning-strategy names (built-in and installed plugins), sorted."""
    return STRATEGIES.names()


def _strategy_class(type_: str) -> type[LearningStrategy]:
    return STRATEGIES.get(type_)


def strategy_description(params: StrategyParams) -> str:
    """The strategy with every resolved option, defaults included, as both loops log it at start (mara-chem's
    and REINVENT's), so the two logs of one run file name the same strategy in the same words."""
    resolved = ", ".join(f"{key} = {value!r}" for key, value in params.model_dump(mode="json").items())
    return f"mara-chem learning strategy {params.type!r} ({resolved})"


def strategy_params_model(type_: str) -> type[StrategyParams]:
    """The pydantic model that validates a ``[learning_strategy]`` table of this type."""
    return _strategy_class(type_).Params


def build_strategy(config: StrategyParams | Mapping[str, Any] | None = None, /, **options: Any) -> LearningStrategy:
    """Build a strategy from a validated params model, a mapping (a TOML table) or keyword options.

    ``build_strategy(type="mara", sigma=128, tau=0.8)``; unknown type or option → ValueError naming it.
    """
    if isinstance(config, StrategyParams):
        if not options:
            return _strategy_class(config.type)(config)
        config = {"type": config.type, **config.model_dump(exclude_unset=True)}
    merged = {**dict(config or {}), **options}
    if "type" not in merged:
        raise ValueError(f"learning strategy needs a 'type'; valid: {', '.join(list_strategies())}")
    cls = _strategy_class(merged["type"])
    return cls(cls.Params.model_validate(merged))
