"""Replay memory (REINVENT's "inception"): the best molecules so far, replayed into the DAP loss; or, with
``replay = "remax"``, one example per mode (:class:`ModeReplayMemory`)."""

from __future__ import annotations

import random

from mara_chem.chem.smiles import randomize
from mara_chem.rl.outcomes import OutcomeKind, OutcomeTracker


class ReplayMemory:
    def __init__(self, memory_size: int, sample_size: int, deduplicate: bool = True):
        self.memory_size = memory_size
        self.sample_size = sample_size
        self.deduplicate = deduplicate
        self.entries: list[tuple[str, float]] = []  # (canonical SMILES, score), best first

    def add(self, smiles: list[str], scores: list[float]) -> None:
        pool = self.entries + [(s, float(v)) for s, v in zip(smiles, scores) if v > 0]
        if self.deduplicate:
            best: dict[str, float] = {}
            for s, v in pool:
                best[s] = max(v, best.get(s, v))
            pool = list(best.items())
        pool.sort(key=lambda e: (-e[1], e[0]))
        self.entries = pool[: self.memory_size]

    def sample(self, rng: random.Random, randomize_smiles: bool = False) -> list[tuple[str, float]]:
        """Up to sample_size entries, without replacement; optionally as random SMILES of the same molecule."""
        k = min(self.sample_size, len(self.entries))
        picked = rng.sample(self.entries, k) if k else []
        if randomize_smiles:
            picked = [(randomize(s, seed=rng.randrange(2**31)) or s, v) for s, v in picked]
        return picked

    def __len__(self) -> int:
        return len(self.entries)

    def state_dict(self) -> dict:
        return {"entries": list(self.entries)}

    def load_state_dict(self, state: dict) -> None:
        self.entries = [tuple(e) for e in state["entries"]]  # type: ignore[misc]


class ModeReplayMemory(ReplayMemory):
    """Re:Max replay (d'Aliberti et al.; docs/strategies.md, "Re:Max replay"): one example per discovered mode;
    with ``per_mode`` > 1, the genetic search's mode-capped buffer (docs/strategies.md, "Genetic exploration").

    A mode is an outcome as IPS defines it (``mara_chem.rl.outcomes``: a Bemis-Murcko scaffold or an ECFP4
    leader cluster). A molecule scoring at least ``min_score`` (and above 0) is a verified example of its mode;
    the memory keeps the ``per_mode`` best-scoring distinct examples of each mode (the first found on a tie) and,
    when it holds more than ``memory_size`` entries, the ``memory_size`` best of those. With ``per_mode = 1``
    every entry is a different mode, so the inherited :meth:`sample` (uniform, without replacement) draws each
    stored mode with probability min(1, k/M) for M modes and k = ``sample_size``: a mode found once is replayed as
    often as one found a thousand times, where the score-ranked memory fills up with the copies of its best mode.
    """

    def __init__(self, memory_size: int, sample_size: int, mode: OutcomeKind = "scaffold",
                 cluster_similarity: float = 0.7, min_score: float = 0.0, per_mode: int = 1) -> None:
        super().__init__(memory_size, sample_size, deduplicate=True)
        self.outcomes = OutcomeTracker(mode, cluster_similarity=cluster_similarity)
        self.min_score = min_score
        self.per_mode = per_mode

    @property
    def modes(self) -> list[str | None]:
        """The mode of each entry, in the order of ``entries`` (derived, so a purge of ``entries`` keeps it true)."""
        return [self.outcomes.key(s) for s, _ in self.entries]

    def add(self, smiles: list[str], scores: list[float]) -> None:
        best: dict[str, float] = dict(self.entries)  # stored first, then new ones in the order given
        for s, v in zip(smiles, scores):
            v = float(v)
            if v > 0 and v >= self.min_score and self.outcomes.key(s) is not None and v > best.get(s, 0.0):
                best[s] = v
        kept: list[tuple[str, float]] = []
        held: dict[str | None, int] = {}
        for s, v in sorted(best.items(), key=lambda e: -e[1]):  # stable: on a tie the one found first stays
            mode = self.outcomes.key(s)
            if held.get(mode, 0) < self.per_mode:
                held[mode] = held.get(mode, 0) + 1
                kept.append((s, v))
        self.entries = sorted(kept, key=lambda e: (-e[1], e[0]))[: self.memory_size]

    def state_dict(self) -> dict:
        return {"entries": list(self.entries), "outcomes": self.outcomes.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        super().load_state_dict(state)
        self.outcomes.load_state_dict(state["outcomes"])
