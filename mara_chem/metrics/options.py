"""The knobs of every metric (``MetricOptions``) and the fingerprint the diversity numbers use.

Plain data with no import from the rest of ``mara_chem.metrics``, so the metric declarations (``metric.py``), the
metric modules and ``compute.py`` all read it without importing one another in a circle.
"""

from __future__ import annotations

from dataclasses import dataclass

#: #Circles' threshold: the hits it counts are pairwise more than this Tanimoto distance apart
#: (docs/metrics.md, "#Circles")
CIRCLE_DISTANCE = 0.75


@dataclass(frozen=True)
class FingerprintSpec:
    """The fingerprint every diversity number uses; stated in metrics.json and the report."""

    radius: int = 2
    n_bits: int = 2048

    def describe(self) -> str:
        return f"RDKit Morgan (rdFingerprintGenerator), radius {self.radius}, {self.n_bits} bits, Tanimoto"

    def as_dict(self) -> dict[str, object]:
        return {"type": "morgan", "radius": self.radius, "n_bits": self.n_bits, "description": self.describe()}


#: named fingerprint settings; ``moses`` is MOSES's IntDiv fingerprint (Morgan r = 2 folded to 1,024 bits,
#: ``moses.metrics.utils.fingerprints``), so IntDiv1 can be set beside published MOSES tables
FINGERPRINT_PRESETS: dict[str, FingerprintSpec] = {
    "default": FingerprintSpec(radius=2, n_bits=2048),
    "moses": FingerprintSpec(radius=2, n_bits=1024),
}


@dataclass(frozen=True)
class MetricOptions:
    """Knobs with the defaults of docs/metrics.md."""

    n: int = 100
    fingerprint: FingerprintSpec = FingerprintSpec()
    circle_distance: float = CIRCLE_DISTANCE
    seed: int | None = None  # #Circles visiting order: None = discovery order, else a random order
    auc_k: int = 10
    auc_freq: int = 100
