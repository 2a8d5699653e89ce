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
    """Re:Max replay (d'Aliberti et al.; docs/strategies.md, "Re:Max replay"): one example per discovered mode.

    A mode is an outcome as IPS defines it (``mara_chem.rl.outcomes``: a Bemis-Murcko scaffold or an ECFP4
    leader cluster). A molecule scoring at least ``min_score`` (and above 0) is a verified example of its mode;
    the memory keeps the best-scoring example of each mode (the first found on a tie) and, when it holds more
    than ``memory_size`` modes, the ``memory_size`` modes whose examples score best. Because every entry is a
    different mode, the inherited :meth:`sample` (uniform, without replacement) draws each stored mode with
    probability min(1, k/M) for M modes and k = ``sample_size``: a mode found once is replayed as often as one
    found a thousand times, where the score-ranked memory fills up with the copies of its best mode.
    """

    def __init__(self, memory_size: int, sample_size: int, mode: OutcomeKind = "scaffold",
                 cluster_similarity: float = 0.7, min_score: float = 0.0) -> None:
        super().__init__(memory_size, sample_size, deduplicate=True)
        self.outcomes = OutcomeTracker(mode, cluster_similarity=cluster_similarity)
        self.min_score = min_score

    @property
    def modes(self) -> list[str | None]:
        """The mode of each entry, in the order of ``entries`` (derived, so a purge of ``entries`` keeps it true)."""
        return [self.outcomes.key(s) for s, _ in self.entries]

    def add(self, smiles: list[str], scores: list[float]) -> None:
        best: dict[str | None, tuple[str, float]] = dict(zip(self.modes, self.entries))
        for s, v in zip(smiles, scores):
            v = float(v)
            if v <= 0 or v < self.min_score:
                continue
            mode = self.outcomes.key(s)
            if mode is not None and (mode not in best or v > best[mode][1]):
                best[mode] = (s, v)
        self.entries = sorted(best.values(), key=lambda e: (-e[1], e[0]))[: self.memory_size]

    def state_dict(self) -> dict:
        return {"entries": list(self.entries), "outcomes": self.outcomes.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        super().load_state_dict(state)
        self.outcomes.load_state_dict(state["outcomes"])
