"""One step's samples as one record, read by the filter, the update and the summary (as REINVENT's
``RLReportData`` carries one step to its reporters).

Every per-row array is indexed by the sampled row, in sampling order. Two masks, each with one meaning:
``has_score`` (the row has a score: invalid rows at 0, and every scored valid row; the valid rows the
oracle budget left unscored are out) and ``in_update`` (the rows the learning step uses: ``has_score`` and,
with ``unique_sequences``, only the first copy of each token sequence).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from mara_chem.chem.smiles import SmilesState, canonicalize
from mara_chem.models.language_model import Sampled
from mara_chem.rl.oracle import Scored, scores_array


def batch_states(canonical: list[str | None]) -> np.ndarray:
    """SMILES_state per row: invalid, valid, or a duplicate of an earlier row's molecule."""
    states, seen = [], set()
    for c in canonical:
        states.append(SmilesState.INVALID if c is None else SmilesState.DUPLICATE if c in seen else SmilesState.VALID)
        if c is not None:
            seen.add(c)
    return np.array(states, dtype=int)


def first_occurrences(items: list[str]) -> np.ndarray:
    """True at the first occurrence of each item (identical strings = identical token sequences)."""
    seen: set[str] = set()
    out = np.zeros(len(items), dtype=bool)
    for i, item in enumerate(items):
        out[i] = item not in seen
        seen.add(item)
    return out


@dataclass
class StepSamples:
    """The sampled rows of one step and what the step learnt about them, filled in as the step goes."""

    raw: list[str]  # SMILES as sampled
    tokens: torch.Tensor  # [B, T] token rows
    sampled_logp: torch.Tensor | None  # the agent's log-likelihoods from the sampling pass (None: recompute)
    canonical: list[str | None]  # None: invalid
    states: np.ndarray  # SmilesState per row
    scored: dict[str, Scored] = field(default_factory=dict)  # the oracle's answers, by canonical SMILES
    scaffolds: dict[str, str | None] = field(default_factory=dict)  # Murcko scaffolds where used (hits, summary)
    totals: np.ndarray = field(default_factory=lambda: np.zeros(0))  # total score per row; NaN: none or failed
    has_score: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    filtered: np.ndarray = field(default_factory=lambda: np.zeros(0))  # scores the strategy learns from
    penalised: list[str] = field(default_factory=list)  # molecules the diversity filter lowered (augmentation's purge)
    in_update: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    columns: dict[str, np.ndarray] = field(default_factory=dict)  # Target, Agent, Prior (NLL); NaN outside in_update

    @classmethod
    def from_sampled(cls, sampled: Sampled, isomeric: bool = True) -> StepSamples:
        """The rows of ``sampled``; ``isomeric = False`` (REINVENT 4's ``isomeric_smiles`` default) names each
        molecule by its stereo-free canonical SMILES, so stereoisomers are one molecule: one oracle call, one
        score, and in-batch duplicates of each other."""
        canonical = [canonicalize(s, isomeric=isomeric) for s in sampled.smiles]
        return cls(raw=list(sampled.smiles), tokens=sampled.tokens, sampled_logp=sampled.log_likelihood,
                   canonical=canonical, states=batch_states(canonical))

    @property
    def valid_smiles(self) -> list[str]:
        """Canonical SMILES of the valid rows (duplicates included), in row order: what the oracle is asked."""
        return [c for c in self.canonical if c is not None]

    @property
    def duplicate(self) -> np.ndarray:
        return self.states == SmilesState.DUPLICATE

    def take_scores(self, scored: dict[str, Scored]) -> None:
        """Record the oracle's answers: totals per row and the ``has_score`` mask."""
        self.scored = scored
        self.totals = scores_array(self.canonical, scored)
        self.has_score = np.array([c is None or c in scored for c in self.canonical])

    @property
    def scored_canonical(self) -> list[str | None]:
        """Canonical SMILES of the scored rows, None elsewhere (what the diversity filter sees)."""
        return [c if c in self.scored else None for c in self.canonical]
