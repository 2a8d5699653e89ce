"""What counts as "the same outcome" for IPS, and where its frequency p̂(o) comes from.

IPS divides a reward by p̂(o), the policy's probability of the row's outcome o (docs/strategies.md, "IPS"). Counting exact
molecules in one batch of 64 finds almost no repeats (p̂ = 1/G everywhere, so IPS does nothing), hence two
options of every strategy with ``ips = true``:

``outcome`` — the outcome of a valid molecule:

- ``"molecule"``: its canonical SMILES (the default, and the only choice before these options existed);
- ``"scaffold"``: its Bemis-Murcko scaffold (RDKit); an acyclic molecule, whose scaffold is empty, is its
  own outcome rather than one class shared by every acyclic molecule;
- ``"cluster"``: its leader cluster on ECFP4 (Morgan r = 2, 2048 bits): the molecule joins the existing leader
  it is most similar to when that Tanimoto similarity is ≥ ``cluster_similarity``, else becomes a new leader.
  Leaders persist over the whole run (and its checkpoints), so a cluster keeps its id from step to step.

An invalid sample is always an outcome of its own.

``frequency`` — the estimate p̂(o):

- ``"batch"``: n_o / G over the G on-policy rows of this batch (the IPS paper's estimator, the default). As a
  plug-in estimate 1/p̂ is biased upward for rare outcomes (E[1/n] ≥ 1/E[n], Jensen), and ``ips_eps`` clips
  p̂ from below, which caps the factor at 1/ε;
- ``"window"``: outcome counts pooled over the last ``frequency_window`` steps, this one included. Pooling
  W·G samples makes repeats visible and shrinks the 1/n bias by about a factor W, at the price of lag: the
  counts mix W policies, so an outcome the policy has just learnt to make is under-counted (its reward
  over-scaled) for up to W steps. At a fixed point of the policy the lag vanishes and p ∝ R is kept;
- ``"memory"``: n_o counted over this batch plus the replay memory's molecules. The memory holds the best
  molecules so far, not samples of the policy, so this p̂ measures how crowded an outcome is among the best
  finds: a diversity pressure, not an unbiased IPS estimate; its fixed point is not p ∝ R.

The strategy-input builder (:mod:`mara_chem.rl.strategy_inputs`, used by mara-chem's loop and by the REINVENT
adapter) computes ids and, for ``window``/``memory``, p̂ per row here and hands both to the strategy as
tensors, so the strategies stay pure functions. With the defaults nothing changes: ids are assigned exactly
as before and the strategy counts the batch itself.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import torch
from rdkit import DataStructs

from mara_chem.chem.fingerprints import morgan_fingerprint
from mara_chem.chem.smiles import murcko_scaffold

if TYPE_CHECKING:
    from mara_chem.rl.strategies.base import IpsOptions

OutcomeKind = Literal["molecule", "scaffold", "cluster"]
FrequencySource = Literal["batch", "window", "memory"]


def outcome_ids(keys: Sequence[str | None]) -> torch.Tensor:
    """Same id for the same key, in order of first appearance; each None (invalid sample) gets its own id."""
    table: dict[str, int] = {}
    ids = []
    for i, key in enumerate(keys):
        ids.append(len(keys) + i if key is None else table.setdefault(key, len(table)))
    return torch.as_tensor(ids, dtype=torch.long)


class LeaderClusters:
    """Leader clustering on ECFP4 with a similarity threshold; leaders are kept across calls."""

    def __init__(self, similarity: float) -> None:
        self.similarity = similarity
        self.leaders: list[str] = []
        self._fps: list[Any] = []
        self._of: dict[str, str] = {}

    def key(self, smiles: str) -> str:
        """The leader SMILES of ``smiles``'s cluster (a new cluster when no leader is similar enough)."""
        if smiles in self._of:
            return self._of[smiles]
        fp = morgan_fingerprint(smiles, 2, 2048)
        leader = smiles
        if fp is None:  # unreadable: its own outcome, never a leader (RDKit crashes on a None in its list)
            self._of[smiles] = smiles
            return smiles
        if self._fps:
            sims = DataStructs.BulkTanimotoSimilarity(fp, self._fps)
            best = max(range(len(sims)), key=sims.__getitem__)
            if sims[best] >= self.similarity:
                leader = self.leaders[best]
        if leader == smiles:
            self.leaders.append(smiles)
            self._fps.append(fp)
        self._of[smiles] = leader
        return leader

    def state_dict(self) -> dict[str, Any]:
        return {"leaders": list(self.leaders), "of": dict(self._of)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.leaders = list(state["leaders"])
        self._fps = [morgan_fingerprint(s, 2, 2048) for s in self.leaders]
        self._of = dict(state["of"])


class OutcomeTracker:
    """Outcome keys of canonical SMILES and, for the ``window``/``memory`` sources, p̂ per row."""

    def __init__(self, outcome: OutcomeKind = "molecule", frequency: FrequencySource = "batch",
                 cluster_similarity: float = 0.7, frequency_window: int = 10) -> None:
        self.outcome = outcome
        self.frequency = frequency
        self.clusters = LeaderClusters(cluster_similarity) if outcome == "cluster" else None
        self.window: deque[tuple[Counter[str], int]] = deque(maxlen=frequency_window)  # (counts, G) per step
        self._scaffolds: dict[str, str] = {}
        self.current: tuple[Counter[str], int] = (Counter(), 0)  # the last step's counts and sample size

    @classmethod
    def from_options(cls, options: IpsOptions) -> OutcomeTracker:
        """From a strategy's validated IPS options (``LearningStrategy.ips_options``)."""
        return cls(options.outcome, options.frequency, options.cluster_similarity, options.frequency_window)

    def key(self, smiles: str | None) -> str | None:
        """The outcome of one canonical SMILES (None for an invalid sample)."""
        if smiles is None or self.outcome == "molecule":
            return smiles
        if self.outcome == "cluster":
            return self.clusters.key(smiles)
        if smiles not in self._scaffolds:
            self._scaffolds[smiles] = murcko_scaffold(smiles) or smiles  # acyclic: its own outcome
        return self._scaffolds[smiles]

    def step(self, canon: Sequence[str | None], memory: Sequence[str] = ()) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(outcome ids, p̂ per row or None when the strategy counts the batch itself) for one batch of on-policy
        rows; advances the window."""
        keys = [self.key(c) for c in canon]
        ids = outcome_ids(keys)
        batch = Counter(k for k in keys if k is not None)
        self.current = (batch, len(keys))
        if self.frequency == "batch":
            return ids, None
        if self.frequency == "window":
            self.window.append(self.current)
        return ids, self._p_hat(keys, memory)

    def add_to_step(self, canon: Sequence[str]) -> None:
        """Count more molecules as samples of the current step (the genetic harness's offspring): they join the
        step's counts, and so its window entry."""
        keys = [self.key(c) for c in canon]
        counts, size = self.current
        counts.update(k for k in keys if k is not None)
        self.current = (counts, size + len(keys))
        if self.frequency == "window" and self.window:
            self.window[-1] = self.current

    def step_frequencies(self, canon: Sequence[str | None], memory: Sequence[str] = ()) -> tuple[torch.Tensor,
                                                                                                 torch.Tensor]:
        """(outcome ids, p̂ per row) for rows that are not samples of this step (rows replayed from a buffer): p̂
        is the current step's estimate (its batch, offspring included; pooled over the window; or with the
        memory), read without advancing anything. An outcome the step did not sample has p̂ = 0 (the
        strategy clips it at ``ips_eps``)."""
        keys = [self.key(c) for c in canon]
        return outcome_ids(keys), self._p_hat(keys, memory)

    def _p_hat(self, keys: Sequence[str | None], memory: Sequence[str]) -> torch.Tensor:
        counts, size = self.current
        if self.frequency == "window":
            pooled = sum((c for c, _ in self.window), Counter())
            total = sum(g for _, g in self.window)
        elif self.frequency == "memory":
            pooled = counts + Counter(self.key(s) for s in memory)
            total = size + len(memory)
        else:
            pooled, total = counts, size
        p_hat = [(pooled[k] if k is not None else 1) / max(total, 1) for k in keys]
        return torch.as_tensor(p_hat, dtype=torch.float32)

    def state_dict(self) -> dict[str, Any]:
        return {"window": [(dict(c), g) for c, g in self.window],
                "clusters": self.clusters.state_dict() if self.clusters else None}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.window.clear()
        self.window.extend((Counter(c), int(g)) for c, g in state["window"])
        if self.clusters is not None and state.get("clusters"):
            self.clusters.load_state_dict(state["clusters"])
