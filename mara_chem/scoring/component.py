"""Scoring components: the public ``__call__`` keeps the books, subclasses fill one hook.

A component maps canonical SMILES to *raw* values (QED, kcal/mol, ...). Failures are NaN with a reason,
never a crash and never a silent zero. Each component owns a typed pydantic parameter model; unknown
parameters are errors that name the key.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict

from mara_chem.chem.smiles import copy_mol, to_mol
from mara_chem.plugins import COMPONENTS
from mara_chem.registry import Registered


class ComponentParams(BaseModel):
    """Base of every component's parameter model (``[stage.scoring.component.X.endpoint] params``)."""

    model_config = ConfigDict(extra="forbid", strict=True)  # booleans are booleans: trusted = "yes" is refused


@dataclass
class Failure:
    """A molecule that could not be scored, with the reason that goes to the oracle log."""

    reason: str


@dataclass
class Scored:
    """A value with a note for the reason column (why a retrosynthesis scored 0: the search's reason)."""

    value: float
    note: str


@dataclass
class ComponentResult:
    values: np.ndarray  # raw values, NaN where scoring failed
    reasons: list[str | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.reasons:
            self.reasons = [None] * len(self.values)


class ScoringComponent(Registered, ABC):
    """Base class. Subclasses set ``name`` and ``Params`` and implement ``score_mol`` or ``score_batch``.

    ``__call__`` is the template: it calls ``score_batch`` (default: ``score_mol`` per parsed molecule) and
    turns exceptions, ``Failure`` and non-finite values into NaN with a reason. A class that overrides
    neither hook cannot be instantiated.
    """

    plugin_registry = COMPONENTS
    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    Params: ClassVar[type[ComponentParams]] = ComponentParams
    #: "score" components enter the weighted mean; "penalty" components multiply the aggregate (REINVENT's filters)
    role: ClassVar[str] = "score"
    #: a required endpoint that fails makes the total NaN (zero reward) instead of dropping out of the mean;
    #: expensive oracles set this so an agent cannot win by generating molecules they cannot score
    required_by_default: ClassVar[bool] = False

    @property
    def scores_in_checks(self) -> bool:
        """Whether a run file's check may score molecules with this component (the objective check); False
        for one whose model a check must not load (a pickled QSAR model: validation never unpickles)."""
        return True
    #: parameters the contract suite (tests/contracts) builds the component with; {} = the defaults
    example_params: ClassVar[dict[str, Any]] = {}
    #: (min, max) of the raw value; an endpoint without a transform needs it inside [0, 1] (validation
    #: refuses, e.g., molecular weight used raw). None: not known in advance (a user's model).
    raw_range: ClassVar[tuple[float, float] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        if "score_batch" in cls.__dict__ and getattr(cls.score_mol, "__isabstractmethod__", False):
            cls.score_mol = _batch_only  # one of the two hooks is enough (runs before ABCMeta counts abstracts)
        super().__init_subclass__(**kwargs)  # registers the class by its name and aliases

    def __init__(self, params: ComponentParams | dict | None = None):
        if params is None or isinstance(params, dict):
            params = self.Params(**(params or {}))
        self.params = params

    def __call__(self, smiles: Sequence[str], mols: Sequence[Any] | None = None) -> ComponentResult:
        """Score a batch; any per-molecule exception or non-finite value becomes NaN with a reason.

        ``mols``: the batch already parsed (``to_mol`` of each SMILES, None where invalid), so that the components
        of one scorer parse a molecule once between them; a component that scores per molecule (``score_mol``)
        scores copies (a copy costs about a fifth of a parse, and what one component changes on a molecule
        cannot reach the next), one that overrides ``score_batch`` ignores them."""
        if mols is not None and len(mols) != len(smiles):
            raise ValueError(f"component {self.name}: {len(mols)} molecules for {len(smiles)} SMILES")
        if mols is not None and self.scores_parsed:
            outputs = self._score_mols([copy_mol(m) for m in mols])
        else:
            outputs = self.score_batch(list(smiles))
        if len(outputs) != len(smiles):
            raise RuntimeError(f"component {self.name} returned {len(outputs)} values for {len(smiles)} SMILES")
        values = np.full(len(smiles), np.nan, dtype=float)
        reasons: list[str | None] = [None] * len(smiles)
        for i, out in enumerate(outputs):
            note = out.note if isinstance(out, Scored) else None
            out = out.value if isinstance(out, Scored) else out
            value = _as_float(out)
            if isinstance(out, Failure):
                reasons[i] = f"{self.name}: {out.reason}"
            elif value is None or not math.isfinite(value):
                reasons[i] = f"{self.name}: non-finite value {out!r}"
            else:
                values[i] = value
                reasons[i] = f"{self.name}: {note}" if note else None
        return ComponentResult(values, reasons)

    @property
    def scores_parsed(self) -> bool:
        """True when the component scores parsed molecules one by one (it keeps the default ``score_batch``).
        Read from the bound method, not the class: a ``score_batch`` replaced on the instance is a plain function
        (no ``__func__``) and must keep receiving SMILES."""
        return getattr(self.score_batch, "__func__", None) is ScoringComponent.score_batch

    def score_batch(self, smiles: list[str]) -> list[float | Failure | Scored]:
        """Default hook: one molecule at a time through ``score_mol``; override for batched/parallel work."""
        return self._score_mols([to_mol(smi) for smi in smiles])

    def _score_mols(self, mols: list[Any]) -> list[float | Failure]:
        """``score_mol`` of each parsed molecule (None: invalid SMILES)."""
        results: list[float | Failure] = []
        for mol in mols:
            if mol is None:
                results.append(Failure("invalid SMILES"))
                continue
            try:
                results.append(float(self.score_mol(mol)))
            except Exception as exc:  # a component bug on one molecule must not kill the run
                results.append(Failure(f"{type(exc).__name__}: {exc}"))
        return results

    @abstractmethod
    def score_mol(self, mol: Any) -> float:
        """The raw value of one parsed RDKit molecule (not needed when ``score_batch`` is overridden)."""

    def name_molecules(self, ids: dict[str, str]) -> None:
        """Ids (canonical SMILES -> the input's compound id) of molecules about to be scored, for the files a
        component writes beside its scores (a docking pose); a component that writes none ignores them."""

    def close(self) -> None:
        """Release worker pools or other resources; called once at the end of a run."""


def _as_float(out: Any) -> float | None:
    try:
        return float(out)
    except (TypeError, ValueError):
        return None


def _batch_only(self: ScoringComponent, mol: Any) -> float:
    raise TypeError(f"{type(self).__name__} scores whole batches (score_batch); it has no score_mol")


def list_components() -> list[str]:
    return COMPONENTS.names()


def build_component(name: str, params: dict | None = None) -> ScoringComponent:
    return COMPONENTS.get(name)(params or {})
