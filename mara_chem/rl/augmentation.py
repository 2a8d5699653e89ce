"""Augmented memory (Guo & Schwaller, JACS Au 2024): extra updates of a step on randomised SMILES, free of oracle calls.

After a step's own update, and once the step's molecules have joined the replay memory, ``augmentation_rounds``
more optimiser steps are taken, each on

- a copy of the step's update rows in which every valid molecule is spelt as a new random SMILES (an invalid
  row, or one whose random spellings the vocabulary cannot write, keeps its sampled sequence), with the same
  scores; and
- the whole replay memory, each molecule as a new random SMILES, with its stored score,

as in the authors' implementation (``augmented_memory_replay`` replays the whole buffer). Every row's prior and
agent log-likelihoods are those of its own token sequence: a random spelling is another sequence, with its own
probability, and the loss is the strategy's on these sequences.

What stays on canonical SMILES: a row's outcome id and IPS's p̂ (the step's, from the canonical SMILES, reused
for its copies: the tracker is not stepped again), and MARA's anchor (the step's (S_z, log π0(y_z)), fixed for
the rounds, so a random spelling never changes which molecule anchors or with what likelihood). The round's batch
is the strategy-input builder's ``rebuild`` of the step's batch (:mod:`mara_chem.rl.strategy_inputs`) and its
optimiser step the loop's (:mod:`mara_chem.rl.learning_step`).

Selective memory purge (before the rounds): the memory loses every molecule whose Bemis–Murcko scaffold is that
of a molecule the diversity filter penalised in this step (its filtered score below its score), as Augmented
Memory and Saturn do, so that a scaffold the filter has closed stops steering the augmented updates.
With ``augmentation_rounds = 0`` nothing here runs: the run is the same, bit for bit.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from mara_chem.chem.smiles import murcko_scaffold, randomize
from mara_chem.models.language_model import LanguageModel
from mara_chem.models.tokenizer import Vocabulary
from mara_chem.rl.learning_step import LearningStep
from mara_chem.rl.replay import ReplayMemory
from mara_chem.rl.strategies import StrategyBatch, StrategyOutput
from mara_chem.rl.strategy_inputs import Rows, StrategyInputs


def random_spelling(smiles: str | None, rng: random.Random, vocabulary: Vocabulary) -> str | None:
    """A random SMILES of the molecule that the vocabulary can write (one draw from ``rng``), else None."""
    if smiles is None:
        return None
    spelt = randomize(smiles, seed=rng.randrange(2**31))
    return spelt if spelt and not vocabulary.unknown_tokens(spelt) else None


def padded(rows: Sequence[Sequence[int]], pad: int) -> torch.Tensor:
    """Right-padded LongTensor [B, T] of token index rows."""
    out = torch.full((len(rows), max(len(r) for r in rows)), pad, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.as_tensor(list(row), dtype=torch.long)
    return out


def respelt_rows(canonical: Sequence[str | None], tokens: torch.Tensor, rng: random.Random,
                 vocabulary: Vocabulary) -> tuple[torch.Tensor, list[str | None]]:
    """The update rows with each valid molecule as a random SMILES (token rows, and the spellings; None where the
    row keeps its own sequence)."""
    pad = vocabulary.pad_idx
    spellings = [random_spelling(c, rng, vocabulary) for c in canonical]
    rows = [vocabulary.encode(s) if s is not None else [int(t) for t in tokens[i] if int(t) != pad]
            for i, s in enumerate(spellings)]
    return padded(rows, pad), spellings


def respelt_memory(memory: ReplayMemory, rng: random.Random,
                   vocabulary: Vocabulary) -> tuple[torch.Tensor | None, list[float]]:
    """The whole memory as random SMILES (the canonical SMILES where no random spelling fits the vocabulary;
    molecules the vocabulary cannot write at all are left out): token rows and their scores."""
    rows, scores = [], []
    for smiles, score in memory.entries:
        spelt = random_spelling(smiles, rng, vocabulary)
        if spelt is None and not vocabulary.unknown_tokens(smiles):
            spelt = smiles
        if spelt is not None:
            rows.append(vocabulary.encode(spelt))
            scores.append(float(score))
    return (padded(rows, vocabulary.pad_idx) if rows else None), scores


def selective_memory_purge(memory: ReplayMemory, penalised: Sequence[str]) -> int:
    """Remove from ``memory`` every molecule sharing a Bemis–Murcko scaffold with a penalised molecule; returns
    how many were removed."""
    closed = {murcko_scaffold(s) for s in penalised}
    if not closed:
        return 0
    kept = [(s, v) for s, v in memory.entries if murcko_scaffold(s) not in closed]
    removed = len(memory.entries) - len(kept)
    memory.entries = kept
    return removed


@dataclass
class StepUpdate:
    """What a step's own update saw: its batch (on-policy rows first), its output, and for the on-policy rows the
    canonical SMILES (None: invalid) and token rows."""

    batch: StrategyBatch
    output: StrategyOutput
    canonical: Sequence[str | None]
    tokens: torch.Tensor


class AugmentedMemory:
    """The augmentation rounds of a run (module docstring); shares the loop's agent, strategy-input builder,
    learning step and random stream. Each round's batch is the builder's :meth:`~StrategyInputs.rebuild` of the
    step's batch."""

    def __init__(self, rounds: int, purge: bool, agent: LanguageModel, prior: LanguageModel, inputs: StrategyInputs,
                 learn: LearningStep, rng: random.Random,
                 prior_samples: Callable[[int], torch.Tensor | None]) -> None:
        self.rounds, self.purge = rounds, purge
        self.agent, self.prior, self.inputs, self.learn, self.rng = agent, prior, inputs, learn, rng
        self.prior_samples = prior_samples

    def __call__(self, step: StepUpdate, memory: ReplayMemory | None, penalised: Sequence[str]) -> list[float]:
        """Purge (if on), then the rounds; returns each round's loss. No oracle call is made."""
        if self.purge and memory is not None:
            selective_memory_purge(memory, penalised)
        return [self._round(step, memory) for _ in range(self.rounds)]

    def _round(self, step: StepUpdate, memory: ReplayMemory | None) -> float:
        vocabulary, device = self.agent.vocabulary, step.batch.agent_logp.device
        n = len(step.canonical)
        tokens, _ = respelt_rows(step.canonical, step.tokens, self.rng, vocabulary)
        memory_tokens, memory_scores = respelt_memory(memory, self.rng, vocabulary) if memory else (None, [])
        rows = tokens if memory_tokens is None else _stack(tokens, memory_tokens, vocabulary.pad_idx)
        rows = rows.to(device)
        agent_logp = self.agent.sequence_log_likelihood(rows)
        with torch.no_grad():
            prior_logp = self.prior.sequence_log_likelihood(rows)
        replay = None
        if memory_scores:
            replay = Rows(agent_logp[n:], prior_logp[n:], torch.as_tensor(memory_scores, dtype=torch.float32,
                                                                          device=device))
        batch = self.inputs.rebuild(step.batch, step.output, agent_logp[:n], prior_logp[:n], replay,
                                    prior_samples=self.prior_samples)
        return float(self.learn(batch).loss.detach())


def _stack(tokens: torch.Tensor, more: torch.Tensor, pad: int) -> torch.Tensor:
    width = max(tokens.shape[1], more.shape[1])
    return torch.cat([torch.nn.functional.pad(t, (0, width - t.shape[1]), value=pad) for t in (tokens, more)])
