"""The one optimiser step of a strategy: a batch in, the strategy's output out, the parameters moved once.

Every caller that trains the agent goes through :class:`LearningStep`: the loop's update
(:mod:`mara_chem.rl.agent_update`), augmented memory's rounds (:mod:`mara_chem.rl.augmentation`), the genetic
harness's off-policy replay (:mod:`mara_chem.rl.genetic`) and REINVENT's reward object
(:mod:`mara_chem.reinvent.learning`), so that what a step is (zero the gradients, backward, step) is written once.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from mara_chem.rl.strategies import LearningStrategy, StrategyBatch, StrategyOutput

#: a loss term added to the strategy's own (e.g. the genetic harness's KL to the prior on replayed rows)
ExtraLoss = Callable[[StrategyBatch], torch.Tensor]


class LearningStep:
    """A strategy and the optimiser that holds the agent's (and the strategy's own) parameters."""

    def __init__(self, strategy: LearningStrategy, optimizer: torch.optim.Optimizer) -> None:
        self.strategy, self.optimizer = strategy, optimizer

    def __call__(self, batch: StrategyBatch, extra: ExtraLoss | None = None) -> StrategyOutput:
        """The strategy's loss on ``batch`` (plus ``extra(batch)``) and one optimiser step on it; the output's
        ``loss`` is the total that was minimised."""
        out = self.strategy(batch)
        loss = out.loss if extra is None else out.loss + extra(batch)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        if extra is not None:
            out.loss = loss
        return out
