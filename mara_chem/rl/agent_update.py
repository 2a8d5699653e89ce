"""One learning step of the agent: a step's update rows and a replay sample in, one optimiser step out.

The agent's and the prior's log-likelihoods are computed here (the replay rows' and the batch's in one prior
pass); the strategy's batch comes from the one builder (:mod:`mara_chem.rl.strategy_inputs`), which asks for
prior samples, MARA's anchor pool and the memory's SMILES only when the strategy needs them.
"""

from __future__ import annotations

import random

import numpy as np
import torch

from mara_chem.models.language_model import LanguageModel
from mara_chem.models.tokenizer import UnknownTokenError, Vocabulary
from mara_chem.rl.augmentation import StepUpdate
from mara_chem.rl.learning_step import LearningStep
from mara_chem.rl.marginal import extra_spellings, spelling_marginal
from mara_chem.rl.replay import ReplayMemory
from mara_chem.rl.step_samples import StepSamples
from mara_chem.rl.strategies import LearningStrategy
from mara_chem.rl.strategy_inputs import AnchorPool, OnPolicyRows, Rows, StrategyInputs


class AgentUpdate:
    """The agent's update; owns the strategy-input builder (and so the IPS outcome tracker's state)."""

    def __init__(self, agent: LanguageModel, prior: LanguageModel, strategy: LearningStrategy,
                 optimizer: torch.optim.Optimizer, rng: random.Random, randomize_smiles: bool,
                 device: torch.device) -> None:
        self.agent, self.prior, self.strategy, self.optimizer = agent, prior, strategy, optimizer
        self.rng, self.randomize_smiles, self.device = rng, randomize_smiles, device
        self.inputs = StrategyInputs(strategy)
        self.learn = LearningStep(strategy, optimizer)  # the one optimiser step: augmentation and replay share it
        self.memory: ReplayMemory | None = None
        self.last: StepUpdate | None = None  # the last update as the strategy saw it (augmented memory reuses it)

    @property
    def fused_likelihood(self) -> bool:
        """The agent's log-likelihoods come from its sampling pass (no second forward) unless dropout would make
        the sampling pass (eval mode) differ from the training-mode likelihood."""
        return not self.agent.network.hyperparameters().get("dropout", 0.0)

    def __call__(self, samples: StepSamples, memory: ReplayMemory | None) -> float:
        """One optimiser step on the ``in_update`` rows and a sample of ``memory``; returns the loss and fills
        ``samples.columns`` (per-row Target, Agent and Prior NLL)."""
        self.memory = memory
        rows = np.nonzero(samples.in_update)[0]
        idx = torch.as_tensor(rows, dtype=torch.long)
        tokens = samples.tokens[idx.to(samples.tokens.device)]
        replay = self.memory.sample(self.rng, self.randomize_smiles) if self.memory else []
        replay_tokens, kept_replay = self._encode([s for s, _ in replay])
        replay_scores = [replay[i][1] for i in kept_replay]
        if samples.sampled_logp is not None:
            agent_logp = samples.sampled_logp[idx.to(samples.sampled_logp.device)]
        else:
            agent_logp = self.agent.sequence_log_likelihood(tokens)
        # batch and replay rows in one prior pass; measured against two passes, the batch rows keep their bits and the
        # replay rows do not (last bits: MKL picks its kernel by the row count; docs/measurements.md, "Throughput of a run")
        with torch.no_grad():
            prior_logp = self.prior.sequence_log_likelihood(_stack_padded(tokens, replay_tokens, self.prior.vocabulary.pad_idx))
        n = len(rows)
        on_policy = OnPolicyRows(
            agent_logp, prior_logp[:n], torch.as_tensor(samples.filtered[rows], dtype=torch.float32, device=self.device),
            canonical=[samples.canonical[i] for i in rows])
        replay_rows = None
        if replay_scores:
            replay_rows = Rows(self.agent.sequence_log_likelihood(replay_tokens), prior_logp[n:],
                               torch.as_tensor(replay_scores, dtype=torch.float32, device=self.device))
        raw = [samples.raw[i] for i in rows]
        batch = self.inputs.build(on_policy, replay_rows, prior_samples=self.prior_sample_logp,
                                  anchor_pool=self.anchor_pool, memory_smiles=self.memory_smiles,
                                  marginal_probability=lambda: spelling_marginal(
                                      on_policy.canonical, raw, agent_logp, self.spelling_logp,
                                      lambda m: extra_spellings(m, self.strategy.params.marginal_spellings)))
        out = self.learn(batch)
        self.last = StepUpdate(batch, out, list(on_policy.canonical), tokens)
        # "Target" in the summary: DAP's target log-likelihood where the strategy has one, else its reward
        target = out.targets if out.targets is not None else out.rewards
        for name, values in (("Target", target), ("Agent", -agent_logp), ("Prior", -prior_logp)):
            column = np.full(len(samples.raw), np.nan)
            column[rows] = values[:n].detach().cpu().numpy()
            samples.columns[name] = column
        return float(out.loss.detach())

    def skip(self, samples: StepSamples, memory: ReplayMemory | None) -> float:
        """The step without its on-policy update (``[genetic] on_policy_update = false``): the outcome tracker still
        counts the ``in_update`` rows; the per-row columns are NaN. Returns NaN (no loss)."""
        self.memory = memory
        rows = np.nonzero(samples.in_update)[0]
        self.inputs.observe([samples.canonical[i] for i in rows], self.memory_smiles)
        self.last = None
        for name in ("Target", "Agent", "Prior"):
            samples.columns[name] = np.full(len(samples.raw), np.nan)
        return float("nan")

    def _encode(self, smiles: list[str]) -> tuple[torch.Tensor | None, list[int]]:
        return encode_spellable(self.agent.vocabulary, smiles, self.device)

    def spelling_logp(self, smiles: list[str]) -> torch.Tensor:
        """The agent's log-likelihood of each SMILES (no gradient); -inf for one its vocabulary cannot spell."""
        out = torch.full((len(smiles),), float("-inf"))
        tokens, kept = self._encode(smiles)
        if tokens is not None:
            with torch.no_grad():
                out[torch.as_tensor(kept)] = self.agent.sequence_log_likelihood(tokens).float().cpu()
        return out

    def prior_sample_logp(self, n: int) -> torch.Tensor:
        """Agent log-likelihood of n prior samples: the maximum-likelihood form of a forward-KL term."""
        return self.agent.sequence_log_likelihood(self.prior.sample(n).tokens)

    def memory_smiles(self) -> list[str]:
        """Canonical SMILES of the replay memory (IPS ``frequency = \"memory\"``)."""
        return [s for s, _ in self.memory.entries] if self.memory else []

    def anchor_pool(self) -> AnchorPool | None:
        """The replay memory as MARA's anchor candidates (prior log-likelihoods and scores)."""
        if not self.memory:
            return None
        tokens, kept = self._encode([s for s, _ in self.memory.entries])
        if tokens is None:
            return None
        with torch.no_grad():
            pool_logp = self.prior.sequence_log_likelihood(tokens)
        scores = [self.memory.entries[i][1] for i in kept]
        return AnchorPool(pool_logp, torch.as_tensor(scores, dtype=torch.float32, device=self.device))


def encode_spellable(vocabulary: Vocabulary, smiles: list[str],
                     device: torch.device) -> tuple[torch.Tensor | None, list[int]]:
    """Token rows for the SMILES the vocabulary can spell, and their indices (the rest are skipped)."""
    good = []
    for i, s in enumerate(smiles):
        try:
            vocabulary.encode(s)
            good.append(i)
        except UnknownTokenError:
            continue
    if not good:
        return None, []
    return vocabulary.encode_batch([smiles[i] for i in good]).to(device), good


def _stack_padded(tokens: torch.Tensor, more: torch.Tensor | None, pad: int) -> torch.Tensor:
    """Rows of ``tokens`` then ``more`` (if any), right-padded to the longer width."""
    if more is None:
        return tokens
    width = max(tokens.shape[1], more.shape[1])
    return torch.cat([torch.nn.functional.pad(t, (0, width - t.shape[1]), value=pad) for t in (tokens, more)])
