"""Run files of every mode, one pydantic model per ``run_type`` behind a discriminated union.

Keys follow REINVENT 4 v4.8 (``reinvent/runmodes/{TL,samplers,scoring}/validation.py``) where they apply;
mara-chem's own keys are marked. Every section forbids unknown keys, so a misspelt key is named.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter, ValidationError, field_validator

from mara_chem.rl.config import (
    ConfigError,
    RunConfig,
    Section,
    _describe,
    device_name,
    read_run_file,
    seed_field,
    temperature_field,
)
from mara_chem.scoring.spec import ScoringSpec


class TLParameters(Section):
    input_model_file: str
    smiles_file: str
    output_model_file: str
    num_epochs: int = Field(ge=1)
    batch_size: int = Field(32, ge=1)
    sample_batch_size: int = Field(1000, ge=100, description="samples drawn for the quality figures")
    validation_smiles_file: str | None = None
    save_every_n_epochs: Literal[1] = 1  # a checkpoint is written after every epoch
    randomize_smiles: bool = True
    # mara-chem
    patience: int = Field(3, ge=1, description="epochs without a better validation NLL before stopping")
    validation_fraction: float = Field(0.1, gt=0.0, lt=1.0, allow_inf_nan=False, description="held out when no validation file is given")


class TLScheduler(Section):
    """REINVENT's ``[scheduler]`` (StepLR); mara-chem applies ``gamma`` once per epoch."""

    lr: float = Field(1e-4, gt=0.0, le=1.0, allow_inf_nan=False)
    gamma: float = Field(1.0, gt=0.0, le=1.0, allow_inf_nan=False)


class TransferLearningConfig(Section):
    run_type: Literal["transfer_learning"]
    device: str = "cpu"
    seed: int = seed_field(0)
    json_out_config: str | None = None
    parameters: TLParameters
    scheduler: TLScheduler = Field(default_factory=TLScheduler)

    _device = field_validator("device")(classmethod(lambda cls, v: device_name(v)))


class SamplingParameters(Section):
    model_file: str
    num_smiles: int = Field(ge=1)
    output_file: str = "samples.csv"
    unique_molecules: bool = True
    temperature: float = temperature_field()
    # mara-chem
    valid_only: bool = Field(True, description="keep only molecules RDKit can parse")
    sdf_file: str | None = Field(None, description="also write the molecules (2D) with their NLL to this SDF")
    batch_size: int = Field(1000, ge=1)
    max_samples: int | None = Field(None, ge=1, description="give up after this many draws (default 20 x num_smiles)")


class SamplingConfig(Section):
    run_type: Literal["sampling"]
    device: str = "cpu"
    seed: int | None = seed_field()
    json_out_config: str | None = None
    parameters: SamplingParameters
    scoring: ScoringSpec | None = None

    _device = field_validator("device")(classmethod(lambda cls, v: device_name(v)))


class ScoringParameters(Section):
    smiles_file: str
    output_csv: str = "score_results.csv"
    smiles_column: str = "SMILES"
    standardize_smiles: bool = True
    # mara-chem
    batch_size: int = Field(100, ge=1, description="molecules scored and written per chunk (the resume unit)")
    id_column: str | None = Field(None, description="CSV column of compound ids (default: 'id' if present, "
                                                    "else the row number)")
    sdf_file: str | None = Field(None, description="also write the scored rows (2D) with every column to this SDF")


class ScoringRunConfig(Section):
    run_type: Literal["scoring"]
    device: str = "cpu"  # accepted for REINVENT compatibility; the scoring components run on CPU
    json_out_config: str | None = None
    parameters: ScoringParameters
    scoring: ScoringSpec


AnyRunConfig = Annotated[
    Union[RunConfig, TransferLearningConfig, SamplingConfig, ScoringRunConfig], Field(discriminator="run_type")
]
RUN_TYPES = ("staged_learning", "transfer_learning", "sampling", "scoring")
_ADAPTER: TypeAdapter = TypeAdapter(AnyRunConfig)


def peek_run_type(path: Path) -> str | None:
    """The file's ``run_type`` (None when it cannot be read as TOML; the full loader then says why)."""
    try:
        value = read_run_file(path).get("run_type")
    except ConfigError:
        return None
    return value if isinstance(value, str) else None


def load_any_config(source: str | Path | dict[str, Any]):
    """Parse and validate a run file of any mode; raises ConfigError with one line per problem."""
    data = read_run_file(source)
    run_type = data.get("run_type")
    if run_type not in RUN_TYPES:
        raise ConfigError(f"[run_type] must be one of {', '.join(RUN_TYPES)}; got {run_type!r}")
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise ConfigError(_strip_tag(_describe(exc), run_type)) from None


def _strip_tag(text: str, run_type: str) -> str:
    """Pydantic prefixes union errors with the tag ('[staged_learning.parameters.x]'); drop it, once per line (a
    scoring run's missing ``[scoring]`` is '[scoring.scoring]', which must stay '[scoring]')."""
    lines = []
    for line in text.splitlines():
        if line.startswith(f"[{run_type}."):
            line = "[" + line[len(run_type) + 2:]
        elif line.startswith(f"[{run_type}]"):
            line = "[(top level)]" + line[len(run_type) + 2:]
        lines.append(line)
    return "\n".join(lines)
