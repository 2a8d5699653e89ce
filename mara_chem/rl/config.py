"""The run file (REINVENT 4 ``staged_learning`` TOML), validated here once and trusted afterwards.

Section and key names follow REINVENT 4 v4.8 (``reinvent/runmodes/RL/validation.py``); mara-chem's own
options are marked as such. Every section forbids unknown keys, so a misspelt key is reported with its
section and name.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mara_chem.scoring.spec import ScoringSpec


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Parameters(Section):
    prior_file: str
    agent_file: str
    summary_csv_prefix: str = "summary"
    use_checkpoint: bool = False
    purge_memories: bool = True
    batch_size: int = Field(100, ge=2)
    randomize_smiles: bool = True
    unique_sequences: bool = False
    # REINVENT keys for other generators; accepted so REINVENT files load, not used by SMILES priors
    smiles_file: str | None = None
    sample_strategy: str | None = "multinomial"
    distance_threshold: int = 99999
    # mara-chem options
    temperature: float = Field(1.0, gt=0.0)
    hit_threshold: float = Field(0.8, ge=0.0, le=1.0, description="score counted as a hit in progress and summary")
    checkpoint_every: int = Field(1, ge=1, description="steps between checkpoints")


class DiversityFilterBase(Section):
    bucket_size: int = Field(25, ge=1)
    minscore: float = Field(0.4, ge=0.0, le=1.0)


class IdenticalMurckoScaffold(DiversityFilterBase):
    type: Literal["IdenticalMurckoScaffold"]


class IdenticalTopologicalScaffold(DiversityFilterBase):
    type: Literal["IdenticalTopologicalScaffold"]


class ScaffoldSimilarity(DiversityFilterBase):
    type: Literal["ScaffoldSimilarity"]
    minsimilarity: float = Field(0.4, ge=0.0, le=1.0)


class PenalizeSameSmiles(Section):
    type: Literal["PenalizeSameSmiles"]
    penalty_multiplier: float = Field(0.5, ge=0.0, le=1.0)


DiversityFilterConfig = Annotated[
    Union[IdenticalMurckoScaffold, IdenticalTopologicalScaffold, ScaffoldSimilarity, PenalizeSameSmiles],
    Field(discriminator="type"),
]


class Inception(Section):
    smiles_file: str | None = None
    memory_size: int = Field(50, ge=0)
    sample_size: int = Field(10, ge=0)
    deduplicate: bool = True


class Stage(Section):
    max_steps: int = Field(ge=1)
    max_score: float | None = Field(1.0, ge=0.0, le=1.0)
    chkpt_file: str | None = None
    termination: Literal["simple"] = "simple"
    min_steps: int | None = Field(50, ge=0)
    scoring: ScoringSpec
    diversity_filter: DiversityFilterConfig | None = None
    # mara-chem: the oracle budget of this stage (one call = first scoring of a new valid canonical SMILES)
    max_oracle_calls: int | None = Field(None, ge=1)


class RunConfig(Section):
    run_type: Literal["staged_learning"]
    device: str = "cpu"
    tb_logdir: str | None = None
    json_out_config: str | None = None
    seed: int | None = None
    parameters: Parameters
    learning_strategy: dict[str, Any] = Field(default_factory=lambda: {"type": "dap"})
    diversity_filter: DiversityFilterConfig | None = None
    inception: Inception | None = None
    stage: list[Stage] = Field(min_length=1)

    @field_validator("device")
    @classmethod
    def _device(cls, value: str) -> str:
        if value != "auto" and not (value == "cpu" or value.startswith("cuda")):
            raise ValueError(f"device must be 'auto', 'cpu' or 'cuda[:N]', got {value!r}")
        return value

    @field_validator("learning_strategy")
    @classmethod
    def _strategy(cls, value: dict[str, Any]) -> dict[str, Any]:
        from mara_chem.rl.strategies import strategy_params_model

        params = dict(value)
        params.setdefault("type", "dap")
        model = strategy_params_model(params["type"])
        try:
            return model(**params).model_dump(exclude_unset=True) | {"type": params["type"]}
        except ValidationError as exc:
            raise ValueError(_describe(exc)) from None

    @property
    def run_dir(self) -> Path:
        return Path(self.parameters.summary_csv_prefix).parent

    def filter_for(self, stage: Stage) -> DiversityFilterConfig | None:
        return stage.diversity_filter or self.diversity_filter


class ConfigError(ValueError):
    """A run file that cannot be used; the message names the section and key."""


def _describe(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"] if not str(p).startswith("function-"))
        kind = err["type"]
        if kind == "extra_forbidden":
            msg = "unknown key"
        elif kind == "missing":
            msg = "required key is missing"
        else:
            msg = err["msg"]
        if err.get("input") is not None and kind not in ("extra_forbidden", "missing") and not isinstance(err["input"], dict):
            msg += f" (got {err['input']!r})"
        lines.append(f"[{loc}] {msg}" if loc else msg)
    return "\n".join(lines)


def load_run_config(source: str | Path | dict[str, Any]) -> RunConfig:
    """Parse and validate a run file (or an already-parsed dict); raises ConfigError with readable lines."""
    if isinstance(source, dict):
        data = source
    else:
        path = Path(source)
        if not path.is_file():
            raise ConfigError(f"run file {path} does not exist")
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    try:
        return RunConfig(**data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None
