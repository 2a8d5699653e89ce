"""A diversity filter with its own run-file options: a SMILES scores at most ``repeats`` times, then 0."""

from collections import Counter
from typing import Literal

import numpy as np
from pydantic import Field

from mara_chem.rl.diversity_filters import DiversityFilter, FilterParams


class RepeatCapParams(FilterParams):
    type: Literal["example_repeat_cap"] = "example_repeat_cap"
    repeats: int = Field(1, ge=1, description="times a SMILES keeps its score before it scores 0")


class RepeatCap(DiversityFilter):
    name = "example_repeat_cap"
    Params = RepeatCapParams
    example_params = {"repeats": 1}

    def __init__(self, config: RepeatCapParams):
        super().__init__(config)
        self.counts: Counter[str] = Counter()

    def state_dict(self) -> dict:
        return {"counts": dict(self.counts)}

    def load_state_dict(self, state: dict) -> None:
        self.counts = Counter(state["counts"])

    def _filter(self, smiles: list[str | None], out: np.ndarray, steps: int) -> np.ndarray:
        for i, smi in enumerate(smiles):
            if smi is None:
                continue
            self.counts[smi] += 1
            if self.counts[smi] > self.config.repeats:
                out[i] = 0.0
        return out
