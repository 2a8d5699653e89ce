"""``KnownCompounds``: a penalty on molecules already in a series or reference file ("near, not on, the series")."""

from __future__ import annotations

from functools import cached_property

from pydantic import Field, field_validator, model_validator
from rdkit import Chem

from mara_chem.chem.known import KnownCompounds as KnownSet
from mara_chem.scoring.component import ComponentParams, ScoringComponent


class KnownCompoundsParams(ComponentParams):
    smiles_file: list[str] = Field(default_factory=list, description="series / reference files (.smi, .csv, .gz)")
    smiles: list[str] = Field(default_factory=list, description="known SMILES given inline")
    penalty: float = Field(0.0, ge=0.0, le=1.0, description="factor on the total score of a known molecule")

    @field_validator("smiles_file", mode="before")
    @classmethod
    def _listify(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _something_known(self) -> "KnownCompoundsParams":
        if not self.smiles_file and not self.smiles:
            raise ValueError("give 'smiles_file' (a series or reference file) or 'smiles'")
        return self


class KnownCompounds(ScoringComponent):
    """The total score is multiplied by ``penalty`` (0: excluded) for a molecule of the reference set, matched
    by structure without stereochemistry (``mara_chem.chem.known``); the files are read when the component is
    built, so a missing file is reported by ``validate``."""

    name = "KnownCompounds"
    aliases = ("Novelty",)
    raw_range = (0.0, 1.0)
    role = "penalty"
    Params = KnownCompoundsParams
    example_params = {"smiles": ["CC(=O)Nc1ccc(O)cc1"]}
    params: KnownCompoundsParams

    def __init__(self, params: KnownCompoundsParams | dict | None = None):
        super().__init__(params)
        _ = self.known  # read the files now: a missing one is a build (validation) error naming it

    @cached_property
    def known(self) -> KnownSet:
        known = KnownSet()
        for path in self.params.smiles_file:
            try:
                known.add_file(path)
            except FileNotFoundError as exc:
                raise ValueError(f"KnownCompounds smiles_file: {exc}") from None
        if self.params.smiles:
            known.add(self.params.smiles, "inline smiles")
        return known

    def score_mol(self, mol: Chem.Mol) -> float:
        return self.params.penalty if Chem.MolToSmiles(mol, isomericSmiles=False) in self.known.sources else 1.0
