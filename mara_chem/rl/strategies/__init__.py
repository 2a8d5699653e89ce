"""Learning strategies as pure tensor functions (docs/strategies.md).

    strategy = build_strategy(type="mara", sigma=128, tau=0.8)   # a [learning_strategy] table
    out = strategy(StrategyBatch(...))                            # StrategyOutput(loss, rewards, info, targets)

Types: ``dap``, ``mara`` (DAP + MARA), ``ips_dap``, ``reinforce``, ``rloo``, ``grpo``, ``ips_grpo``; MARA
(``mara = true``) and IPS (``ips = true``) are options of every type. ``LearningStrategyConfig`` is the
discriminated union (on ``type``) of the per-type option models, for the run-file validator.
"""

from __future__ import annotations

from typing import Annotated, Union

from pydantic import Field

from mara_chem.plugins import STRATEGIES
from mara_chem.rl.strategies.base import (
    IpsOptions,
    LearningStrategy,
    MaraOptions,
    StrategyBatch,
    StrategyOutput,
    StrategyParams,
    build_strategy,
    list_strategies,
    strategy_params_model,
)
from mara_chem.rl.strategies.dap import DAP, closed_form_log_z, dap_loss, dap_targets
from mara_chem.rl.strategies.ips import ips_rewards, ips_weights, outcome_counts, outcome_frequencies
from mara_chem.rl.strategies.mara import mara_anchor, mara_rewards, quantile_threshold
from mara_chem.rl.strategies.policy_gradient import (
    PolicyGradient,
    forward_kl_loss,
    grpo_advantages,
    policy_gradient_loss,
    reinforce_advantages,
    reverse_kl_shaped_rewards,
    rloo_advantages,
)

# built-in types only: building it must not import plugins (they import this package); the run-file validator
# dispatches through ``strategy_params_model`` and so accepts plugins too
LearningStrategyConfig = Annotated[
    Union[tuple(strategy_params_model(name) for name in STRATEGIES.names(plugins=False))],  # noqa: UP007
    Field(discriminator="type"),
]

__all__ = [
    "DAP",
    "IpsOptions",
    "LearningStrategy",
    "LearningStrategyConfig",
    "MaraOptions",
    "PolicyGradient",
    "StrategyBatch",
    "StrategyOutput",
    "StrategyParams",
    "build_strategy",
    "closed_form_log_z",
    "dap_loss",
    "dap_targets",
    "forward_kl_loss",
    "grpo_advantages",
    "ips_rewards",
    "ips_weights",
    "list_strategies",
    "mara_anchor",
    "mara_rewards",
    "outcome_counts",
    "outcome_frequencies",
    "policy_gradient_loss",
    "quantile_threshold",
    "reinforce_advantages",
    "reverse_kl_shaped_rewards",
    "rloo_advantages",
    "strategy_params_model",
]
