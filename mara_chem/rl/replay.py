"""Replay memory (REINVENT's "inception"): the best molecules so far, replayed into the DAP loss."""

from __future__ import annotations

import random

from mara_chem.chem.smiles import randomize


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
