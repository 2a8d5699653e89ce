"""A learning strategy: REINFORCE with the batch-mean baseline and a fixed-weight pull towards the prior."""

from typing import Literal

import torch
from pydantic import Field

from mara_chem.rl.strategies import LearningStrategy, StrategyBatch, StrategyParams


class BaselinePGParams(StrategyParams):
    type: Literal["example_baseline_pg"] = "example_baseline_pg"
    beta: float = Field(0.05, ge=0.0)


class BaselinePolicyGradient(LearningStrategy):
    name = "example_baseline_pg"
    Params = BaselinePGParams

    @property
    def beta(self) -> float:
        return self.params.beta

    def _loss(self, batch: StrategyBatch, rewards: torch.Tensor, info: dict[str, float]):
        on = batch.on_policy
        shaped = rewards[on] - self.beta * (batch.agent_logp[on].detach() - batch.prior_logp[on])
        loss = -((shaped - shaped.mean()) * batch.agent_logp[on]).mean()
        return loss, rewards, None
