"""Typed scoring section of a run file (REINVENT 4 layout), validated once and then trusted.

Component and transform names are matched as REINVENT matches them (any case, ``_`` and ``-`` ignored:
``custom_alerts`` = ``CustomAlerts``); a component-level ``params`` table applies to every endpoint
(endpoint values win), as in REINVENT.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

import mara_chem.scoring.components  # noqa: F401  (registers the built-in components)
from mara_chem import resources
from mara_chem.scoring.aggregation import list_aggregators
from mara_chem.scoring.component import COMPONENTS, ScoringComponent
from mara_chem.scoring.transforms import build_transform, normalise_name

#: columns every run mode writes besides its endpoints, which an endpoint name must not shadow (compared without
#: case): the oracle log and its reader, staged learning's summary, sampling's and scoring's output CSVs
RESERVED_NAMES = frozenset({
    "call", "step", "stage", "smiles", "score", "reason", "canonical",  # oracle log (+ the metrics reader)
    "Agent", "Prior", "Target", "Score", "SMILES", "SMILES_state", "Scaffold",  # staged learning summary
    "NLL", "valid",  # sampling output
    "row", "id", "input_SMILES",  # scoring output
})
_RESERVED_FOLDED = {n.casefold(): n for n in RESERVED_NAMES}
#: a relative weight above this is a typo (1.7e308 made the weight sum overflow: every molecule scored 1.0)
MAX_WEIGHT = 1e6


class EndpointSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str
    weight: float = Field(1.0, ge=0.0, le=MAX_WEIGHT, allow_inf_nan=False)
    params: dict[str, Any] = Field(default_factory=dict)
    transform: dict[str, Any] | None = None
    # mara-chem: when this endpoint fails, the total is NaN instead of renormalising over the others
    # (default: the component's own choice; docking is required, cheap descriptors are not)
    required: bool | None = None

    @field_validator("name")
    @classmethod
    def _printable(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("endpoint name is empty")
        if not value.isprintable():
            raise ValueError(f"endpoint name {value!r} holds a newline or other control character "
                             "(it becomes a column of the oracle log)")
        if value != value.strip():
            raise ValueError(f"endpoint name {value!r} begins or ends with white space (it becomes a CSV column); "
                             f"write {value.strip()!r}")
        clash = _RESERVED_FOLDED.get(value.casefold())
        if clash is not None or value.endswith("_raw"):
            column = clash or value
            raise ValueError(f"endpoint name {value!r} clashes with the output column {column!r} (oracle log, "
                             "summary, sampling or scoring output); choose another")
        return value


class ComponentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    endpoint: list[EndpointSpec] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _component_params(cls, data: Any) -> Any:
        """REINVENT's component-level ``params``: merged into each endpoint's, the endpoint's taking precedence."""
        if isinstance(data, dict) and isinstance(data.get("params"), dict):
            shared = data["params"]
            endpoints = [
                {**ep, "params": {**shared, **ep.get("params", {})}} if isinstance(ep, dict) else ep
                for ep in data.get("endpoint", [])
            ]
            data = {**{k: v for k, v in data.items() if k != "params"}, "endpoint": endpoints}
        return data


def component_class(name: str) -> type[ScoringComponent]:
    """A registered component by any REINVENT spelling of its name (case, ``_`` and ``-`` ignored)."""
    by_key = {normalise_name(n): n for n in COMPONENTS.names()}
    key = by_key.get(normalise_name(name))
    if key is None:
        raise ValueError(f"unknown component {name!r}; valid: {COMPONENTS.names()}")
    return COMPONENTS.get(key)


class ScoringSpec(BaseModel):
    """``[stage.scoring]``: aggregation type and components, or ``filename`` to include a scoring file."""

    model_config = ConfigDict(extra="forbid")
    type: str = "geometric_mean"
    component: list[dict[str, ComponentSpec]] = Field(default_factory=list)
    filename: str | None = None
    filetype: Literal["toml", "json"] = "toml"
    parallel: bool | int = False  # REINVENT's scoring processes; only serial (false or 1) is accepted

    @field_validator("parallel")
    @classmethod
    def _serial(cls, value: bool | int) -> bool | int:
        if value not in (False, 1):  # True == 1 too
            raise ValueError(f"parallel = {value!r} is not supported by mara-chem (components score in this "
                             "process; vina_docking has its own workers: n_workers, executor)")
        return value

    @model_validator(mode="before")
    @classmethod
    def _include(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("filename"):
            included = load_scoring_file(data["filename"], data.get("filetype", "toml"))
            merged = {**included, **{k: v for k, v in data.items() if k not in ("filename", "filetype")}}
            merged["filename"], merged["filetype"] = data["filename"], data.get("filetype", "toml")
            return merged
        return data

    @model_validator(mode="after")
    def _check_components(self) -> "ScoringSpec":
        if self.type not in list_aggregators():
            raise ValueError(f"type {self.type!r} is not a scoring type; valid: {list_aggregators()}")
        if not self.component:
            raise ValueError("no scoring components given")
        names: set[str] = set()
        score_weight = 0.0
        for i, entry in enumerate(self.component):
            if len(entry) != 1:
                raise ValueError(f"component[{i}] must hold exactly one component table, got {list(entry)}")
            (cname, spec), = entry.items()
            try:
                cls = component_class(cname)
            except ValueError as exc:
                raise ValueError(f"component[{i}]: {exc}") from None
            for j, ep in enumerate(spec.endpoint):
                where = f"component[{i}].{cname}.endpoint[{j}]"
                if ep.name in names:
                    raise ValueError(f"{where}: endpoint name {ep.name!r} is used twice")
                names.add(ep.name)
                try:
                    cls.Params(**ep.params)
                except ValidationError as exc:
                    raise ValueError(f"{where}.params: {_short(exc)}") from None
                try:
                    transform = build_transform(ep.transform)
                except (ValidationError, ValueError) as exc:
                    raise ValueError(f"{where}.transform: {_short(exc)}") from None
                if transform is None and not _unit_range(cls.raw_range):
                    low, high = cls.raw_range  # type: ignore[misc]
                    raise ValueError(
                        f"{where} ({ep.name!r}): {cls.name} values lie in [{low:g}, {high:g}], not [0, 1]; "
                        "without a transform every molecule would be clipped to the same score. Add a "
                        "transform (sigmoid, reverse_sigmoid, double_sigmoid, step, ...)"
                    )
                if cls.role == "score":
                    score_weight += ep.weight
        if self.component and score_weight == 0.0 and any(
            component_class(next(iter(e))).role == "score" for e in self.component
        ):
            raise ValueError("every scoring endpoint has weight 0, so the total score is undefined")
        return self


def _unit_range(raw_range: tuple[float, float] | None) -> bool:
    """True when the raw value is already a score (or the component cannot say in advance)."""
    return raw_range is None or (0.0 <= raw_range[0] and raw_range[1] <= 1.0)


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = []
        for e in exc.errors():
            msg = e["msg"].removeprefix("Value error, ")
            parts.append(f"{'.'.join(map(str, e['loc']))}: {msg}" if e["loc"] else msg)
        return "; ".join(parts)
    return str(exc)


def load_scoring_file(filename: str, filetype: str = "toml") -> dict[str, Any]:
    """A scoring file from the given path, or by name from the scoring files shipped in the package.

    As REINVENT does, a ``.toml``/``.json`` suffix decides the format over ``filetype``.
    """
    path = resources.resolve("scoring", Path(filename).expanduser())
    if not path.exists():
        raise ValueError(f"scoring file {filename!r} not found (bundled scoring files: "
                         f"{resources.bundled_names('scoring')})")
    if not path.is_file():
        raise ValueError(f"scoring file {str(path)!r} is not a file")
    fmt = path.suffix.lstrip(".").lower() if path.suffix.lower() in (".toml", ".json") else filetype
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"scoring file {str(path)!r} is not a text file") from None
    except OSError as exc:
        raise ValueError(f"scoring file {str(path)!r} cannot be read: {exc.strerror}") from None
    try:
        data = json.loads(text) if fmt == "json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"scoring file {str(path)!r} is not valid {fmt.upper()}: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"scoring file {str(path)!r} must hold a table of components")
    return data.get("scoring", data)
