"""Named strategy variants: the tables of ``benchmarks/variants.toml`` (run-file options, label, colour).

A value ``"@strict"`` or ``"@lenient"`` in a variant's options stands for that threshold of the task it runs
on, so MARA's τ follows each task's thresholds instead of a number fixed for one task.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchlab.paths import VARIANTS_FILE
from benchlab.tasks import Task

BASELINE = "dap"
THRESHOLD_REFS = ("@strict", "@lenient")


class Harness(BaseModel):
    """What surrounds the strategy in a run: diversity filter, replay memory, augmentation.

    The defaults are the lab's REINVENT-style harness (scaffold filter with bucket 10 and minscore = the task's
    lenient threshold, replay memory 100 / sample 10, no augmentation), so a variant without a ``harness`` table
    runs exactly as before and keeps its configuration fingerprint. PMO's REINVENT runs
    ``diversity_filter = "none"`` with ``sample_size = 24``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    diversity_filter: Literal["scaffold", "none"] = "scaffold"
    bucket_size: int = Field(10, ge=1)
    memory_size: int = Field(100, ge=0)
    sample_size: int = Field(10, ge=0)
    #: augmented memory (``[parameters] augmentation_rounds``, its selective purge on): extra updates a step
    augmentation_rounds: int = Field(0, ge=0, le=100)
    #: Re:Max replay (``[inception] replay = "remax"``): one example per mode, modes replayed uniformly;
    #: ``replay_min_score`` a number or a threshold reference ("@lenient", "@strict") of the task
    replay: Literal["score", "remax"] = "score"
    replay_mode: Literal["scaffold", "cluster"] = "scaffold"
    replay_min_score: float | Literal["@lenient", "@strict"] = 0.0
    #: ``[parameters] randomize_smiles``: replayed SMILES re-spelled at random (mara-chem's and REINVENT 4's
    #: default) or as stored (PMO's REINVENT)
    randomize_smiles: bool = True
    #: ``[parameters] isomeric_smiles``: molecules keep stereo (mara-chem's default, PMO's count) or are their
    #: stereo-free SMILES (REINVENT 4's default, as the REINVENT peer runs: stereoisomers share one oracle call)
    isomeric_smiles: bool = True
    #: genetic exploration: the run file's ``[genetic]`` table (validated by mara-chem's model per job)
    genetic: dict[str, Any] | None = None

    @property
    def is_default(self) -> bool:
        return self == Harness()


class Variant(BaseModel):
    """One named variant; ``learning_strategy`` is validated by mara-chem's strategy models per job."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    label: str
    color: str | None = None
    learning_strategy: dict[str, Any]
    harness: Harness = Harness()

    def options(self, task: Task) -> dict[str, Any]:
        """The ``[learning_strategy]`` table for ``task`` (threshold references replaced by numbers)."""
        refs = {"@strict": task.strict, "@lenient": task.lenient}
        return {k: refs.get(v, v) if isinstance(v, str) else v for k, v in self.learning_strategy.items()}


def load_variants(path: str | Path = VARIANTS_FILE) -> dict[str, Variant]:
    """Every variant of the table file, by name; a malformed entry is a one-line error naming it."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SystemExit(f"variants file {path}: {exc}") from None
    variants = {}
    for name, table in data.items():
        try:
            variants[name] = Variant(name=name, **table)
        except (TypeError, ValidationError) as exc:
            first = exc.errors()[0] if isinstance(exc, ValidationError) else {"loc": (), "msg": str(exc)}
            where = ".".join(str(p) for p in first["loc"])
            raise SystemExit(f"variants file {path}: [{name}] {where}: {first['msg']}") from None
    return variants


def resolve_variants(names: list[str], known: dict[str, Variant]) -> list[Variant]:
    """Variant names to Variant objects; an unknown name is a one-line error listing the valid ones."""
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown variant(s) {', '.join(unknown)}; valid: {', '.join(known)}")
    return [known[n] for n in names]
