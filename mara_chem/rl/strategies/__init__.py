"""Learning strategies as pure tensor functions (docs/strategies.md).

    strategy = build_strategy(type="mara", sigma=128, tau=0.8)   # a [learning_strategy] table
    out = strategy(StrategyBatch(...))                            # StrategyOutput(loss, rewards, info, targets)

Types: ``dap``, ``mara`` (DAP + MARA), ``ips_dap``, ``reinforce``, ``rloo``, ``grpo``, ``ips_grpo``,
``mips_grpo`` (IPS on the marginal outcome probability), ``dmpo`` (forward KL to the group's target); MARA
(``mara = true``) and IPS (``ips = true``) are options of every type. The run-file validator checks a table
with its type's own model (``strategy_params_model``), plugins included.
"""

from __future__ import annotations

from mara_chem.rl.strategies.base import (
    IpsOptions,
    LearningStrategy,
    MaraOptions,
    StrategyBatch,
    StrategyOutput,
    StrategyParams,
    build_strategy,
    list_strategies,
    strategy_description,
    strategy_params_model,
)
from mara_chem.rl.strategies.dap import DAP, closed_form_log_z, dap_loss, dap_targets
from mara_chem.rl.strategies.dmpo import DMPO, dmpo_loss, dmpo_targets
from mara_chem.rl.strategies.ips import ips_rewards, ips_weights, outcome_counts, outcome_frequencies
from mara_chem.rl.strategies.mara import mara_anchor, mara_rewards, quantile_threshold
from mara_chem.rl.strategies.mips import MIPSGRPO, trajectory_marginal
from mara_chem.rl.strategies.policy_gradient import (
    PolicyGradient,
    forward_kl_loss,
    grpo_advantages,
    policy_gradient_loss,
    reinforce_advantages,
    reverse_kl_shaped_rewards,
    rloo_advantages,
)

__all__ = [
    "DAP",
    "DMPO",
    "IpsOptions",
    "LearningStrategy",
    "MIPSGRPO",
    "MaraOptions",
    "PolicyGradient",
    "StrategyBatch",
    "StrategyOutput",
    "StrategyParams",
    "build_strategy",
    "closed_form_log_z",
    "dap_loss",
    "dap_targets",
    "dmpo_loss",
    "dmpo_targets",
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
    "strategy_description",
    "strategy_params_model",
    "trajectory_marginal",
]
