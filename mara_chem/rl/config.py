"""The run file (REINVENT 4 ``staged_learning`` TOML), validated here once and trusted afterwards.

Section and key names follow REINVENT 4 v4.8 (``reinvent/runmodes/RL/validation.py``); mara-chem's own
options are marked as such. Every section forbids unknown keys, so a misspelt key is reported with its
section and name.
"""

from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mara_chem.scoring.spec import ScoringSpec


def device_name(value: str) -> str:
    """The ``device`` key's spelling (whether the device exists is the preflight's question)."""
    if value != "auto" and not (value == "cpu" or value.startswith("cuda")):
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda[:N]', got {value!r}")
    return value


class Section(BaseModel):
    """Strict types: ``max_steps = true`` or ``trusted = "yes"`` is refused, not read as 1 or True (an int still
    reads as a float)."""

    model_config = ConfigDict(extra="forbid", strict=True)


#: sequences sampled per step; far above any published setting, low enough that a typo (10**7) is refused
MAX_BATCH_SIZE = 10_000
#: sampling temperature range: below 0.01 the softmax underflows (1e-300 crashed in torch), above 100 it is noise
MIN_TEMPERATURE, MAX_TEMPERATURE = 0.01, 100.0
#: seeds torch, numpy and Python all accept (numpy takes 0 .. 2**32 - 1)
MAX_SEED = 2**32 - 1


def temperature_field(default: float = 1.0) -> Any:
    return Field(default, ge=MIN_TEMPERATURE, le=MAX_TEMPERATURE, allow_inf_nan=False,
                 description="sampling temperature (1 = the model's own distribution)")


def seed_field(default: int | None = None) -> Any:
    return Field(default, ge=0, le=MAX_SEED, description="random seed of torch, numpy and Python")


def _refuse_unless(value: Any, supported: Any, key: str, why: str) -> Any:
    """A REINVENT key mara-chem has no implementation for: its default is accepted, anything else refused."""
    if value != supported:
        shown = str(value).lower() if isinstance(value, bool) else repr(value)
        raise ValueError(f"{key} = {shown} is not supported by mara-chem ({why})")
    return value


class Parameters(Section):
    prior_file: str
    agent_file: str
    summary_csv_prefix: str = "summary"
    use_checkpoint: bool = False
    purge_memories: bool = True
    batch_size: int = Field(100, ge=2, le=MAX_BATCH_SIZE)
    randomize_smiles: bool = True
    unique_sequences: bool = Field(False, description="drop repeated token sequences of a batch from the update")
    isomeric_smiles: bool = Field(True, description="molecules keep stereochemistry (mara-chem's default, PMO's "
                                  "count); false: REINVENT 4's default, stereoisomers are one molecule")
    tb_isim: bool = False
    # REINVENT keys for other generators; only their defaults are accepted
    smiles_file: str | None = None
    sample_strategy: str | None = "multinomial"
    distance_threshold: int = 99999
    temperature: float = temperature_field()
    # mara-chem options
    hit_threshold: float = Field(0.8, ge=0.0, le=1.0, allow_inf_nan=False, description="score counted as a hit in progress and summary")
    checkpoint_every: int = Field(1, ge=1, description="steps between checkpoints")
    augmentation_rounds: int = Field(0, ge=0, le=100, description="augmented memory: extra updates a step on random "
                                     "SMILES of the batch and the whole replay memory (mara_chem/rl/augmentation.py)")
    selective_memory_purge: bool = Field(True, description="augmented memory: drop the memory's molecules whose "
                                         "scaffold the diversity filter penalised in the step")

    @field_validator("summary_csv_prefix")
    @classmethod
    def _output_prefix(cls, value: str) -> str:
        """``~`` is the user's home (not a folder named ``~``); a path part longer than a file name may be
        (255 bytes) is refused here, not after the run has started."""
        value = os.path.expanduser(value)  # as written otherwise (a trailing / is the preflight's to refuse)
        too_long = [part for part in Path(value).parts if len(part.encode()) > 255 - len("_99.csv")]
        if too_long:
            raise ValueError(f"the path part {too_long[0][:40]}... is {len(too_long[0].encode())} bytes long; a file "
                             "or folder name may have at most 255 (with the summary's _N.csv suffix)")
        return value

    @model_validator(mode="after")
    def _augmentation(self) -> "Parameters":
        # its default is accepted (a recorded run.json holds every key), another value would be ignored: refused
        if not self.selective_memory_purge and not self.augmentation_rounds:
            raise ValueError("selective_memory_purge = false given but augmentation_rounds = 0 (it belongs to "
                             "augmented memory: set augmentation_rounds >= 1)")
        return self

    @model_validator(mode="after")
    def _unsupported(self) -> "Parameters":
        _refuse_unless(self.use_checkpoint, False, "use_checkpoint",
                       "REINVENT reads a diversity filter from the agent file; mara-chem resumes from RUN_DIR/checkpoint.pt")
        _refuse_unless(self.tb_isim, False, "tb_isim", "no iSIM tracking")
        _refuse_unless(self.smiles_file, None, "smiles_file", "it seeds Lib/Link/Mol2Mol generators; SMILES priors "
                       "sample de novo")
        _refuse_unless(self.sample_strategy, "multinomial", "sample_strategy", "SMILES priors sample multinomially")
        _refuse_unless(self.distance_threshold, 99999, "distance_threshold", "a Mol2Mol option")
        return self


#: a ``[diversity_filter]`` table, checked by its filter's own model (``rl/diversity_filters.py``: the filter is
#: found by ``type`` in the registry, so a plugin filter works here) and kept as that model's full dump
DiversityFilterTable = dict[str, Any]


def _check_filter(value: Any) -> Any:
    from mara_chem.rl.diversity_filters import filter_params

    if not isinstance(value, dict):
        return value  # None, or a wrong type pydantic then reports
    return filter_params(value).model_dump()  # its errors are nested under this key


class Inception(Section):
    smiles_file: str | None = None
    memory_size: int = Field(50, ge=0)
    sample_size: int = Field(10, ge=0)
    deduplicate: bool = True
    # mara-chem: Re:Max replay, one example per mode sampled uniformly over modes (rl/replay.py: ModeReplayMemory)
    replay: Literal["score", "remax"] = Field("score", description="'score': the best molecules so far; 'remax': "
                                              "the best example of each mode, modes replayed uniformly")
    mode: Literal["scaffold", "cluster"] = Field("scaffold", description="remax: what a mode is (as IPS's outcome)")
    mode_similarity: float = Field(0.7, gt=0.0, le=1.0, description="remax, mode = 'cluster': ECFP4 Tanimoto to "
                                   "join a cluster's leader")
    min_score: float = Field(0.0, ge=0.0, le=1.0, description="remax: score a molecule needs to stand for its mode")
    # mara-chem: when the replay sample is drawn (docs/strategies.md, "Replay memory")
    replay_includes_step: bool = Field(False, description="true: the step's batch joins the memory before the "
                                       "step's replay sample is drawn (REINVENT 4's order); false: after (the "
                                       "original REINVENT's and PMO's order)")

    @model_validator(mode="after")
    def _remax_options(self) -> "Inception":
        # a default is accepted (a recorded run.json holds every key); another value would be ignored: refused
        given = [k for k in ("mode", "mode_similarity", "min_score")
                 if k in self.model_fields_set and getattr(self, k) != type(self).model_fields[k].default]
        if self.replay == "score" and given:
            raise ValueError(f"{', '.join(given)} given but replay = 'score' (they belong to replay = 'remax')")
        if ("mode_similarity" in self.model_fields_set and self.mode != "cluster"
                and self.mode_similarity != type(self).model_fields["mode_similarity"].default):
            raise ValueError("mode_similarity given but mode is not 'cluster'")
        if self.replay == "remax" and not self.deduplicate:
            raise ValueError("deduplicate = false with replay = 'remax' (a mode's one example is never repeated)")
        return self

    @field_validator("smiles_file")
    @classmethod
    def _seed_file(cls, value: str | None) -> str | None:
        return _refuse_unless(value, None, "smiles_file", "the replay memory starts empty and fills with scored "
                              "molecules; seeding it would need oracle calls")


class Genetic(Section):
    """mara-chem's ``[genetic]`` table: genetic exploration after each step's batch, then off-policy replay
    (docs/strategies.md, "Genetic exploration"; ``mara_chem/rl/genetic.py``). ``generations = 0`` switches it off
    (the run is the run without the table), and then no other key may be given."""

    generations: int = Field(2, ge=0, le=100, description="Graph GA generations per step (0: off)")
    offspring: int = Field(8, ge=1, le=MAX_BATCH_SIZE, description="offspring per generation")
    mutation_rate: float = Field(0.01, ge=0.0, le=1.0, allow_inf_nan=False,
                                 description="probability that a crossover child is also mutated")
    max_heavy_atoms: int | None = Field(None, ge=1, le=1000,
                                        description="children with more heavy atoms are remade from the same "
                                        "parents, up to 10 tries, then dropped unscored (none: no cap, Mol GA's "
                                        "operators as they are)")
    population: int = Field(64, ge=2, le=MAX_BATCH_SIZE, description="mating pool drawn by rank per generation")
    rank_coefficient: float = Field(0.01, gt=0.0, le=10.0, allow_inf_nan=False,
                                    description="k of the rank weights 1/(kN + rank)")
    replay_loops: int = Field(8, ge=0, le=100, description="off-policy updates per step")
    replay_sample_size: int = Field(64, ge=1, le=MAX_BATCH_SIZE, description="rows per off-policy update")
    buffer_size: int = Field(1024, ge=2, le=1_000_000, description="best molecules kept for parents and replay")
    kl_coefficient: float = Field(0.0, ge=0.0, le=100.0, allow_inf_nan=False,
                                  description="c·mean(log π − log π0) added to each off-policy loss")
    on_policy_update: bool = Field(True, description="also update on the step's own batch (false: the agent "
                                   "learns only from the off-policy replay, as Genetic GFN does)")
    per_mode: int = Field(0, ge=0, le=1_000_000, description="at most this many molecules of one mode in the "
                          "buffer, so parents and replayed rows spread over the modes found (0: no cap)")
    mode: Literal["scaffold", "cluster"] = Field("cluster", description="per_mode: what a mode is (as IPS's outcome)")
    mode_similarity: float = Field(0.4, gt=0.0, le=1.0, allow_inf_nan=False,
                                   description="per_mode, mode = 'cluster': ECFP4 Tanimoto to join a leader")

    @model_validator(mode="after")
    def _off(self) -> "Genetic":
        # a default is accepted (a recorded run.json holds every key); another value would be ignored: refused
        def given(keys: set[str]) -> list[str]:
            return sorted(k for k in keys & self.model_fields_set
                          if getattr(self, k) != type(self).model_fields[k].default)

        others = given(set(type(self).model_fields) - {"generations"})
        if self.generations == 0 and others:
            raise ValueError(f"{', '.join(others)} given but generations = 0 (genetic exploration is off; remove "
                             "them or set generations >= 1)")
        if self.per_mode == 0 and given({"mode", "mode_similarity"}):
            raise ValueError(f"{', '.join(given({'mode', 'mode_similarity'}))} given but per_mode = 0 (the buffer "
                             "has no cap per mode; set per_mode >= 1)")
        if self.mode != "cluster" and given({"mode_similarity"}):
            raise ValueError("mode_similarity given but mode is not 'cluster'")
        return self

    @property
    def on(self) -> bool:
        return self.generations > 0


class Stage(Section):
    max_steps: int = Field(ge=1)
    max_score: float | None = Field(1.0, ge=0.0, le=1.0, allow_inf_nan=False)
    chkpt_file: str | None = None
    termination: Literal["simple"] = "simple"
    min_steps: int | None = Field(50, ge=0)
    scoring: ScoringSpec
    diversity_filter: DiversityFilterTable | None = None
    # mara-chem: the oracle budget of this stage (one call = first scoring of a new valid canonical SMILES)
    max_oracle_calls: int | None = Field(None, ge=1)

    _filter = field_validator("diversity_filter")(_check_filter)


class RunConfig(Section):
    run_type: Literal["staged_learning"]
    device: str = "cpu"
    tb_logdir: str | None = None
    json_out_config: str | None = Field(None, description="write the validated run file here as JSON at the start")
    seed: int | None = seed_field()
    parameters: Parameters
    learning_strategy: dict[str, Any] = Field(default_factory=lambda: {"type": "dap"})
    diversity_filter: DiversityFilterTable | None = None
    inception: Inception | None = None
    genetic: Genetic | None = None  # mara-chem: genetic exploration and off-policy replay

    _filter = field_validator("diversity_filter")(_check_filter)
    stage: list[Stage] = Field(min_length=1)

    @model_validator(mode="after")
    def _genetic_without_on_policy_update(self) -> "RunConfig":
        if self.genetic_on and not self.genetic.on_policy_update and self.parameters.augmentation_rounds:
            raise ValueError("[genetic] on_policy_update = false with [parameters] augmentation_rounds > 0: augmented "
                             "memory re-spells the step's own update, which is then not made; set one of them back")
        return self

    @property
    def genetic_on(self) -> bool:
        """Whether the run has genetic exploration (a ``[genetic]`` table with generations >= 1)."""
        return self.genetic is not None and self.genetic.on

    @model_validator(mode="before")
    @classmethod
    def _reinvent_sections(cls, data: Any) -> Any:
        """REINVENT sections without a mara-chem implementation are named as such, not as unknown keys."""
        if isinstance(data, dict):
            for key in ("responder", "intrinsic_penalty"):
                if key in data:
                    raise ValueError(f"[{key}] is a REINVENT section not supported by mara-chem; remove it")
        return data

    _device = field_validator("device")(classmethod(lambda cls, v: device_name(v)))

    @field_validator("learning_strategy")
    @classmethod
    def _strategy(cls, value: dict[str, Any]) -> dict[str, Any]:
        from mara_chem.rl.strategies import strategy_params_model

        params = dict(value)
        params.setdefault("type", "dap")
        if not isinstance(params["type"], str):
            raise ValueError(f"type must be a strategy name (a string), got {params['type']!r}")
        model = strategy_params_model(params["type"])
        try:
            checked = model.model_validate(params, strict=True).model_dump(exclude_unset=True) | {"type": params["type"]}
        except ValidationError as exc:
            raise ValueError(_describe(exc)) from None
        for key, item in checked.items():
            if isinstance(item, float) and not math.isfinite(item):
                raise ValueError(f"{key} must be a finite number, got {item}")
        if "rate" in checked and not 0 < checked["rate"] <= 1:
            raise ValueError(f"rate (the agent's learning rate) must lie in (0, 1], got {checked['rate']} "
                             "(published settings use 1e-4 to 1e-3; above 1 the agent is destroyed in a step)")
        return checked

    @model_validator(mode="after")
    def _memory_options_need_a_memory(self) -> RunConfig:
        """Options that read the replay memory would change nothing without one (docs/reinvent.md)."""
        if self.inception is None or not self.inception.memory_size:
            from mara_chem.rl.strategies import build_strategy
            from mara_chem.rl.strategy_inputs import memory_options

            needs = memory_options(build_strategy(self.learning_strategy))
            if needs:
                raise ValueError(f"[learning_strategy] {' and '.join(needs)} read(s) the replay memory, and this "
                                 "run file has none ([inception] with memory_size > 0): it would change nothing; "
                                 "add an [inception] section or remove the option")
        elif self.inception.replay_includes_step:
            from mara_chem.rl.strategies import build_strategy
            from mara_chem.rl.strategy_inputs import memory_options

            # the memory would hold the step's batch twice over: as its rows and as the memory's
            needs = memory_options(build_strategy(self.learning_strategy))
            if needs:
                raise ValueError(f"[inception] replay_includes_step = true with [learning_strategy] "
                                 f"{' and '.join(needs)}: those read the memory as it was before the step's batch, "
                                 "which this order no longer keeps; use one or the other")
        return self

    @property
    def run_dir(self) -> Path:
        return Path(self.parameters.summary_csv_prefix).parent

    def filter_for(self, stage: Stage) -> DiversityFilterTable | None:
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
            msg = err["msg"].removeprefix("Value error, ")
        if err.get("input") is not None and kind not in ("extra_forbidden", "missing") and not isinstance(err["input"], dict):
            msg += f" (got {err['input']!r})"
        lines.append(f"[{loc}] {msg}" if loc else msg)
    return "\n".join(lines)


def read_run_file(source: str | Path | dict[str, Any]) -> dict[str, Any]:
    """A run file's TOML as a dict (an already-parsed dict passes through), for every run mode's loader;
    raises ConfigError naming the file when it is missing, not text or not TOML."""
    if isinstance(source, dict):
        return source
    path = Path(source)
    if not path.is_file():
        raise ConfigError(f"run file {path} {'is not a file' if path.exists() else 'does not exist'}")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def load_run_config(source: str | Path | dict[str, Any]) -> RunConfig:
    """Parse and validate a staged-learning run file (or an already-parsed dict); raises ConfigError with
    readable lines."""
    data = read_run_file(source)
    try:
        return RunConfig(**data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None
