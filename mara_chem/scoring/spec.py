"""Typed scoring section of a run file (REINVENT 4 layout), validated once and then trusted."""

from __future__ import annotations

import json
import tomllib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

import mara_chem.scoring.components  # noqa: F401  (registers the built-in components)
from mara_chem import resources
from mara_chem.scoring.aggregation import list_aggregators
from mara_chem.scoring.component import COMPONENTS
from mara_chem.scoring.transforms import build_transform


class EndpointSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    weight: float = Field(1.0, ge=0.0)
    params: dict[str, Any] = Field(default_factory=dict)
    transform: dict[str, Any] | None = None
    # mara-chem: when this endpoint fails, the total is NaN instead of renormalising over the others
    # (default: the component's own choice; docking is required, cheap descriptors are not)
    required: bool | None = None


class ComponentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    endpoint: list[EndpointSpec] = Field(min_length=1)


class ScoringSpec(BaseModel):
    """``[stage.scoring]``: aggregation type and components, or ``filename`` to include a scoring file."""

    model_config = ConfigDict(extra="forbid")
    type: str = "geometric_mean"
    component: list[dict[str, ComponentSpec]] = Field(default_factory=list)
    filename: str | None = None
    filetype: Literal["toml", "json"] = "toml"
    parallel: bool | int = False

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
        for i, entry in enumerate(self.component):
            if len(entry) != 1:
                raise ValueError(f"component[{i}] must hold exactly one component table, got {list(entry)}")
            (cname, spec), = entry.items()
            if cname not in COMPONENTS:
                raise ValueError(f"component[{i}]: unknown component {cname!r}; valid: {COMPONENTS.names()}")
            cls = COMPONENTS.get(cname)
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
                    build_transform(ep.transform)
                except (ValidationError, ValueError) as exc:
                    raise ValueError(f"{where}.transform: {_short(exc)}") from None
        return self


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc'])) or '(table)'}: {e['msg']}" for e in exc.errors())
    return str(exc)


def load_scoring_file(filename: str, filetype: str = "toml") -> dict[str, Any]:
    """A scoring file from the given path, or by name from the scoring files shipped in the package."""
    path = resources.resolve("scoring", filename)
    if not path.is_file():
        raise ValueError(f"scoring file {filename!r} not found (bundled scoring files: {resources.bundled_names('scoring')})")
    text = path.read_text()
    data = json.loads(text) if filetype == "json" else tomllib.loads(text)
    return data.get("scoring", data)
