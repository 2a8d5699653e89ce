"""SMARTS-based components: counts, matches, and alert filters."""

from __future__ import annotations

import math
from functools import cached_property

from pydantic import Field, field_validator, model_validator
from rdkit import Chem

from mara_chem.chem.alerts import (DEFAULT_CATALOGS, HARD_PENALTY, SOFT_PENALTY, alert_factor, alert_names,
                                   catalog_names, entry_names)
from mara_chem.scoring.component import ComponentParams, ScoringComponent


class SmartsParams(ComponentParams):
    smarts: list[str] = Field(min_length=1)
    use_chirality: bool = False

    @field_validator("smarts", mode="before")
    @classmethod
    def _listify(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    @field_validator("smarts")
    @classmethod
    def _parse(cls, value: list[str]) -> list[str]:
        bad = [s for s in value if Chem.MolFromSmarts(s) is None]
        if bad:
            raise ValueError(f"invalid SMARTS: {bad}")
        return value


class _SmartsComponent(ScoringComponent):
    Params = SmartsParams
    example_params = {"smarts": ["c1ccccc1", "[OX2H]"]}

    @cached_property
    def patterns(self) -> list[Chem.Mol]:
        return [Chem.MolFromSmarts(s) for s in self.params.smarts]

    def _matches(self, mol: Chem.Mol) -> list[int]:
        chiral = self.params.use_chirality
        return [len(mol.GetSubstructMatches(p, useChirality=chiral)) for p in self.patterns]


class GroupCount(_SmartsComponent):
    """Total number of matches of the SMARTS patterns."""

    name = "GroupCount"
    raw_range = (0.0, math.inf)

    def score_mol(self, mol: Chem.Mol) -> float:
        return float(sum(self._matches(mol)))


class SubstructureMatch(_SmartsComponent):
    """1 if any pattern matches, else 0 (a score component, e.g. to reward a warhead)."""

    name = "SubstructureMatch"
    raw_range = (0.0, 1.0)

    def score_mol(self, mol: Chem.Mol) -> float:
        return float(any(self._matches(mol)))


class MatchingSubstructure(_SmartsComponent):
    """REINVENT's penalty: the total score is multiplied by 1 if a pattern matches, else 0.5."""

    name = "MatchingSubstructure"
    raw_range = (0.0, 1.0)
    role = "penalty"

    def score_mol(self, mol: Chem.Mol) -> float:
        return 1.0 if any(self._matches(mol)) else 0.5


class CustomAlerts(_SmartsComponent):
    """Structural alerts filter: the total score is multiplied by 0 if any alert matches."""

    name = "CustomAlerts"
    raw_range = (0.0, 1.0)
    role = "penalty"

    def score_mol(self, mol: Chem.Mol) -> float:
        return 0.0 if any(self._matches(mol)) else 1.0


class StructuralAlertsParams(ComponentParams):
    catalogs: list[str] = Field(default_factory=lambda: list(DEFAULT_CATALOGS),
                                description="RDKit FilterCatalog catalogues, e.g. PAINS, BRENK, NIH, ZINC")
    penalty: float = Field(HARD_PENALTY, ge=0.0, le=1.0,
                           description="factor on the total score for each hard alert that matches (0: removed)")
    soft_penalty: float = Field(SOFT_PENALTY, ge=0.0, le=1.0,
                                description="factor for each soft alert (isolated alkene, triple bond, aniline, ...)")
    severity: dict[str, float] = Field(default_factory=dict,
                                       description="catalogue entry name -> its factor when it matches")

    @field_validator("catalogs")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        unknown = [c for c in value if c not in catalog_names()]
        if unknown or not value:
            raise ValueError(f"unknown catalogue(s) {unknown or value}; valid: {catalog_names()}")
        return value

    @model_validator(mode="after")
    def _entries(self) -> "StructuralAlertsParams":
        names = entry_names(tuple(self.catalogs))
        unknown = sorted(k for k in self.severity if k not in names)
        if unknown:
            raise ValueError(f"severity names {unknown}, not entries of {self.catalogs} "
                             "(names as the report's alert_names column writes them)")
        bad = sorted(k for k, v in self.severity.items() if not 0.0 <= v <= 1.0)
        if bad:
            raise ValueError(f"severity factors of {bad} must be in [0, 1]")
        return self


class StructuralAlerts(ScoringComponent):
    """RDKit's PAINS and Brenk alerts (or any FilterCatalog) as a penalty: the total score is multiplied by
    each matching alert's factor: ``soft_penalty`` for the soft alerts (``chem.alerts.SOFT_ALERTS``), ``penalty``
    (0: removed) for the others, ``severity[name]`` for a named entry. The report names the alerts of every hit."""

    name = "StructuralAlerts"
    aliases = ("FilterCatalog", "PainsBrenk")
    raw_range = (0.0, 1.0)
    role = "penalty"
    Params = StructuralAlertsParams
    params: StructuralAlertsParams

    def score_mol(self, mol: Chem.Mol) -> float:
        p = self.params
        return alert_factor(alert_names(mol, tuple(p.catalogs)), p.severity, p.soft_penalty, p.penalty)
