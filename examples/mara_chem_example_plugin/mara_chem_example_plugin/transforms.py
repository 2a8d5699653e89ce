"""A transform: linear from 0 at ``low`` to 1 at ``high`` (clipped into [0, 1] by mara-chem)."""

from typing import Literal

import numpy as np

from mara_chem.scoring import Transform


class Ramp(Transform):
    name = "example_ramp"
    monotone = "increasing"
    example_params = {"low": 0.0, "high": 1.0}
    type: Literal["example_ramp"] = "example_ramp"
    low: float
    high: float

    def _apply(self, x: np.ndarray) -> np.ndarray:
        return (x - self.low) / (self.high - self.low)
