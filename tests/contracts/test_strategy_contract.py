"""Contract of every registered learning strategy: a finite scalar loss whose gradient flows into the agent's
log-probabilities only (prior log-probs and scores are constants), per-row detached rewards, float info,
NaN scores refused before any loss is computed, unknown options refused by name."""

from __future__ import annotations

import math

import pytest
import torch
from tests.contracts.contract_helpers import build_example, implementations

from mara_chem.plugins import STRATEGIES
from mara_chem.rl.strategies import LearningStrategy, StrategyBatch, build_strategy

B = 10


def make_batch(requires_grad: bool = True) -> StrategyBatch:
    g = torch.Generator().manual_seed(0)
    scores = torch.rand(B, generator=g)
    scores[3] = scores[7]  # a repeated outcome
    outcome_ids = torch.arange(B)
    outcome_ids[3] = outcome_ids[7]
    is_replay = torch.zeros(B, dtype=torch.bool)
    is_replay[-2:] = True
    return StrategyBatch(
        agent_logp=(-torch.rand(B, generator=g) * 20 - 5).requires_grad_(requires_grad),
        prior_logp=(-torch.rand(B, generator=g) * 20 - 5).requires_grad_(requires_grad),
        scores=scores.requires_grad_(requires_grad),
        outcome_ids=outcome_ids,
        is_replay=is_replay,
        prior_sample_agent_logp=(-torch.rand(4, generator=g) * 20 - 5).requires_grad_(requires_grad),
    )


@pytest.fixture(params=implementations(STRATEGIES))
def strategy(request) -> LearningStrategy:
    cls = request.param
    return build_example(cls, lambda: build_strategy(type=cls.name, **cls.example_params))


def test_loss_is_a_finite_scalar_differentiable_in_the_agent_logp_only(strategy):
    batch = make_batch()
    out = strategy(batch)
    assert out.loss.dim() == 0 and math.isfinite(float(out.loss.detach()))
    out.loss.backward()
    grad = batch.agent_logp.grad
    assert grad is not None and torch.isfinite(grad).all() and grad.abs().sum() > 0
    assert batch.prior_logp.grad is None, "the prior's log-probs must be constants"
    assert batch.scores.grad is None, "the scores must be constants"


def test_rewards_and_info(strategy):
    out = strategy(make_batch())
    assert out.rewards.shape == (B,) and not out.rewards.requires_grad and torch.isfinite(out.rewards).all()
    assert out.targets is None or (out.targets.shape == (B,) and not out.targets.requires_grad)
    assert all(isinstance(k, str) and isinstance(v, float) for k, v in out.info.items())
    assert out.info["loss"] == pytest.approx(float(out.loss.detach()))
    assert isinstance(strategy.beta, float) and strategy.beta >= 0.0
    for group in strategy.optimizer_param_groups():
        assert all(p.requires_grad for p in group["params"])


def test_nan_scores_are_refused(strategy):
    batch = make_batch(requires_grad=False)
    batch.scores[0] = float("nan")
    with pytest.raises(ValueError, match="NaN"):
        strategy(batch)


def test_unknown_option_is_an_error_naming_it(strategy):
    with pytest.raises(ValueError, match="no_such_option"):
        build_strategy(type=strategy.name, **type(strategy).example_params, no_such_option=1)
