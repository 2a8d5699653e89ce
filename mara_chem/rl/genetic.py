"""Genetic exploration and off-policy replay (``[genetic]``; docs/strategies.md, "Genetic exploration").

After a step's batch has been scored and the agent updated on it, the harness

1. adds the batch's molecules (with the scores the strategy learns from) to a buffer of the ``buffer_size`` best
   distinct molecules; with ``per_mode`` ≥ 1, of the ``per_mode`` best of each mode (scaffold or ECFP4 leader
   cluster, :class:`~mara_chem.rl.replay.ModeReplayMemory`), so that one mode's near-copies cannot fill the
   mating pool and the replayed rows;
2. runs ``generations`` generations: a mating pool of ``population`` parents is drawn from the buffer by rank,
   with replacement, P(rank r) = (1/(kN + r)) / Σ_j 1/(kN + j) over the N buffer entries (r = 0 the best,
   k = ``rank_coefficient``), and ``offspring`` children are made, each from two parents picked at random from the
   pool, by Mol GA's Graph GA crossover followed, with probability ``mutation_rate``, by its mutation
   (``mol_ga.graph_ga.gen_candidates.reproduce``). The children are scored by the caller as ordinary oracle
   calls (an invalid or repeated molecule is free, the budget is never exceeded) and join the buffer, so a
   generation's children can be the next one's parents;
3. trains the agent ``replay_loops`` times on ``replay_sample_size`` rows drawn from the buffer by the same rank
   weights, with the step's own strategy loss, each batch built by the one builder
   (:meth:`~mara_chem.rl.strategy_inputs.StrategyInputs.build_replayed`) and stepped by the loop's one
   optimiser step, plus ``kl_coefficient``·mean(log π_θ − log π_0) over the rows when that is set.

Offspring count as molecules of the step: IPS's frequencies count them with the batch
(:meth:`~mara_chem.rl.strategy_inputs.StrategyInputs.count_step_molecules`), and in the off-policy batches every
row, offspring included, is a candidate for MARA's anchor. What the oracle, the diversity filter, the hit count
and the replay memory do with the offspring is the loop's part (``score`` below).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from rdkit import Chem

from mara_chem.chem.smiles import canonicalize
from mara_chem.models.language_model import LanguageModel
from mara_chem.rl.agent_update import encode_spellable
from mara_chem.rl.config import Genetic
from mara_chem.rl.learning_step import LearningStep
from mara_chem.rl.replay import ModeReplayMemory, ReplayMemory
from mara_chem.rl.strategies import StrategyBatch
from mara_chem.rl.strategy_inputs import AnchorPool, OnPolicyRows, StrategyInputs

#: the rows of drawn buffer entries: agent and prior log-likelihoods (the agent's with its gradient), scores and
#: molecules; entries the model cannot spell are left out (None: none of them)
RowsOf = Callable[[Sequence[tuple[str, float]]], "OnPolicyRows | None"]

#: the caller's scoring of offspring: canonical SMILES in, (SMILES, score the strategy learns from) of those the
#: oracle answered out (those over the budget are left out)
ScoreOffspring = Callable[[list[str]], list[tuple[str, float]]]


def rank_probabilities(n: int, rank_coefficient: float) -> np.ndarray:
    """P(rank r) ∝ 1/(kN + r) for r = 0 (the best) .. N − 1, normalised."""
    weights = 1.0 / (rank_coefficient * n + np.arange(n, dtype=float))
    return weights / weights.sum()


def rank_sample(entries: Sequence[tuple[str, float]], size: int, rank_coefficient: float,
                rng: random.Random) -> list[tuple[str, float]]:
    """``size`` entries drawn with replacement by rank; ``entries`` best first (a replay memory's order)."""
    if not entries:
        return []
    weights = rank_probabilities(len(entries), rank_coefficient).tolist()
    return rng.choices(list(entries), weights=weights, k=size)


#: tries per child under ``max_heavy_atoms`` (Graph GA's crossover retries a pair 10 times, too)
SIZE_TRIES = 10


def make_offspring(parents: Sequence[str], count: int, mutation_rate: float, rng: random.Random,
                   isomeric: bool = True, max_heavy_atoms: int | None = None) -> list[str]:
    """Up to ``count`` distinct canonical children, each of two parents picked at random: Graph GA crossover, then
    mutation with probability ``mutation_rate`` (Mol GA's operators); children RDKit cannot sanitise are dropped.
    ``isomeric``: the run's molecule identity (``isomeric_smiles``).

    ``max_heavy_atoms``: a larger child is made again from the same two parents, up to :data:`SIZE_TRIES` times,
    and dropped (never scored) if none fits. Mol GA removed Graph GA's size check (Jensen's draws a bound near 39
    atoms per child) and crossover joins fragments of any size, so without a cap children can grow generation
    after generation; on an objective that does not punish size (the PMO's scaffold and decoration hops),
    molecules of hundreds of atoms then fill the top and cost seconds a call. ``None``: no cap, and the random
    stream is exactly the one without the option."""
    from mol_ga.graph_ga.gen_candidates import reproduce

    children: dict[str, None] = {}
    for _ in range(count):
        first, second = rng.choice(parents), rng.choice(parents)
        for _ in range(1 if max_heavy_atoms is None else SIZE_TRIES):
            child = reproduce(first, second, mutation_rate, rng)
            canonical = canonicalize(child, isomeric=isomeric) if child else None
            if canonical is None:
                break
            if max_heavy_atoms is None or heavy_atoms(canonical) <= max_heavy_atoms:
                children[canonical] = None
                break
    return list(children)


def heavy_atoms(smiles: str) -> int:
    """Heavy atoms of a sanitisable SMILES (the child's canonical spelling; implicit hydrogens are not atoms)."""
    mol = Chem.MolFromSmiles(smiles)
    return mol.GetNumHeavyAtoms() if mol is not None else 0


class OffPolicyReplay:
    """``loops`` optimiser steps a step, each on ``sample_size`` rows drawn by rank from a buffer, with the
    strategy's own loss (batches from the one builder, :meth:`StrategyInputs.build_replayed`), plus
    ``kl_coefficient``·mean(log π_θ − log π_0) over the rows when that is set. ``rows_of`` turns drawn entries
    into likelihood rows (the loop: the agent and the prior on their token sequences)."""

    def __init__(self, loops: int, sample_size: int, rank_coefficient: float, kl_coefficient: float,
                 inputs: StrategyInputs, learn: LearningStep, rng: random.Random, rows_of: RowsOf,
                 prior_samples: Callable[[int], torch.Tensor] | None = None,
                 anchor_pool: Callable[[], AnchorPool | None] | None = None,
                 memory_smiles: Callable[[], Sequence[str]] | None = None) -> None:
        self.loops, self.sample_size, self.rank_coefficient = loops, sample_size, rank_coefficient
        self.kl_coefficient = kl_coefficient
        self.inputs, self.learn, self.rng, self.rows_of = inputs, learn, rng, rows_of
        self.prior_samples, self.anchor_pool, self.memory_smiles = prior_samples, anchor_pool, memory_smiles

    def __call__(self, buffer: Sequence[tuple[str, float]]) -> list[float]:
        """The updates on ``buffer`` (best first); their losses (none for an empty buffer)."""
        losses = []
        for _ in range(self.loops):
            rows = self.rows_of(rank_sample(buffer, self.sample_size, self.rank_coefficient, self.rng))
            if rows is None:
                break
            batch = self.inputs.build_replayed(rows, prior_samples=self.prior_samples, anchor_pool=self.anchor_pool,
                                               memory_smiles=self.memory_smiles)
            extra = self._prior_kl if self.kl_coefficient else None
            losses.append(float(self.learn(batch, extra).loss.detach()))
        return losses

    def _prior_kl(self, batch: StrategyBatch) -> torch.Tensor:
        """c·mean_i(log π_θ(x_i) − log π_0(x_i)) over the replayed rows (Genetic GFN's prior penalty)."""
        return self.kl_coefficient * (batch.agent_logp - batch.prior_logp.detach()).mean()


class GeneticExploration:
    """The ``[genetic]`` harness of a run: its buffer, its generations and its off-policy replay (module docstring).
    Shares the loop's agent, prior, strategy-input builder, optimiser step and random stream."""

    def __init__(self, options: Genetic, agent: LanguageModel, prior: LanguageModel, inputs: StrategyInputs,
                 learn: LearningStep, rng: random.Random, device: torch.device,
                 prior_samples: Callable[[int], torch.Tensor],
                 anchor_pool: Callable[[], AnchorPool | None], memory_smiles: Callable[[], Sequence[str]],
                 isomeric: bool = True) -> None:
        self.options, self.isomeric = options, isomeric
        self.agent, self.prior, self.inputs, self.learn, self.rng, self.device = agent, prior, inputs, learn, rng, device
        self.buffer = (ModeReplayMemory(options.buffer_size, options.replay_sample_size, options.mode,
                                        options.mode_similarity, per_mode=options.per_mode)
                       if options.per_mode else ReplayMemory(options.buffer_size, options.replay_sample_size))
        #: the prior's log-likelihood of each canonical spelling drawn so far: the prior is fixed, so a molecule
        #: drawn again (the best are drawn every step) is not run through it again; kept in the checkpoint
        self.prior_logp: dict[str, float] = {}
        self.replay = OffPolicyReplay(options.replay_loops, options.replay_sample_size, options.rank_coefficient,
                                      options.kl_coefficient, inputs, learn, rng, self._rows, prior_samples,
                                      anchor_pool, memory_smiles)

    def __call__(self, batch: Sequence[tuple[str, float]], score: ScoreOffspring,
                 exhausted: Callable[[], bool]) -> tuple[list[str], list[float]]:
        """One step's exploration and replay after its batch (``batch``: its scored molecules and learning scores);
        returns (the offspring the oracle answered, the off-policy losses)."""
        self.buffer.add([s for s, _ in batch], [v for _, v in batch])
        found = self.explore(score, exhausted)
        self.inputs.count_step_molecules(found)
        return found, self.replay(self.buffer.entries)

    def explore(self, score: ScoreOffspring, exhausted: Callable[[], bool]) -> list[str]:
        """The generations; returns the offspring the oracle answered, in order (a repeat of an earlier molecule
        is answered from the cache, free)."""
        o = self.options
        found: list[str] = []
        for _ in range(o.generations):
            if exhausted() or not self.buffer.entries:
                break
            pool = [s for s, _ in rank_sample(self.buffer.entries, o.population, o.rank_coefficient, self.rng)]
            children = make_offspring(pool, o.offspring, o.mutation_rate, self.rng, self.isomeric,
                                      o.max_heavy_atoms)
            answered = score(children) if children else []
            self.buffer.add([s for s, _ in answered], [v for _, v in answered])
            found.extend(s for s, _ in answered)
        return found

    def _rows(self, drawn: Sequence[tuple[str, float]]) -> OnPolicyRows | None:
        """The agent's and the prior's log-likelihoods of the drawn molecules (canonical spellings). Draws are
        with replacement and the best entries come up many times: each distinct molecule is run through the agent
        once and its row repeated (the repeats' gradients add up at that row: the weight gradient is the full
        batch's up to rounding), over packed rows (no work on padding; values up to rounding, see
        :meth:`LanguageModel.sequence_log_likelihood`); the prior runs only on molecules it has not seen
        (:attr:`prior_logp`)."""
        names = [s for s, _ in drawn]
        distinct = list(dict.fromkeys(names))
        tokens, spellable = encode_spellable(self.agent.vocabulary, distinct, self.device)
        if tokens is None:
            return None
        row_of = {distinct[i]: k for k, i in enumerate(spellable)}  # molecule -> its row in ``tokens``
        kept = [i for i, s in enumerate(names) if s in row_of]
        smiles = [names[i] for i in kept]
        new = [k for k, i in enumerate(spellable) if distinct[i] not in self.prior_logp]
        if new:
            with torch.no_grad():
                values = self.prior.sequence_log_likelihood(tokens[new], packed=True).tolist()
            self._remember_prior([distinct[spellable[k]] for k in new], values)
        repeat = torch.as_tensor([row_of[s] for s in smiles], dtype=torch.long, device=self.device)
        agent_logp = self.agent.sequence_log_likelihood(tokens, packed=True)[repeat]
        prior_logp = torch.as_tensor([self.prior_logp[s] for s in smiles], dtype=agent_logp.dtype, device=self.device)
        return OnPolicyRows(agent_logp, prior_logp,
                            torch.as_tensor([drawn[i][1] for i in kept], dtype=torch.float32, device=self.device),
                            canonical=smiles)

    def _remember_prior(self, smiles: list[str], values: list[float]) -> None:
        """Adds to the prior's cache; past four buffers' worth, only the molecules still in the buffer stay."""
        self.prior_logp.update(zip(smiles, values))
        if len(self.prior_logp) > 4 * self.options.buffer_size:
            held = {s for s, _ in self.buffer.entries}
            self.prior_logp = {s: v for s, v in self.prior_logp.items() if s in held}

    def clear(self) -> None:
        """Empty the buffer (a new stage scores with another objective; the prior's values stay true)."""
        self.buffer.entries = []

    def state_dict(self) -> dict[str, Any]:
        return {"buffer": self.buffer.state_dict(), "prior_logp": dict(self.prior_logp)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.buffer.load_state_dict(state["buffer"])
        self.prior_logp = dict(state.get("prior_logp", {}))  # a checkpoint written without the cache: none yet
