"""Protonation states at a given pH, by name: ``pka_rules`` (default), ``dimorphite``, ``molscrub``, ``openbabel``.

Why ``pka_rules`` is the default: it is mara-chem's own documented rule layer (``pka_rules.py``, RDKit only,
Apache-2.0) and the only tool here that gets common drugs right: 59 of 59 drugs of the validation set it was
written against and 25 of 27 of a hold-out set written after it (``benchmarks/protonation/``), where
Dimorphite-DL with one state per molecule (``precision=0``) gets 40 of 59: it ionises phenols with any
substituent (its generic phenol class, pKa 7.07: paracetamol becomes the phenolate), benzimidazolones, imides
and uracils, and protonates both nitrogens of piperazines and of N-aryl amidines (clozapine at +2).
``molscrub`` (GPL-3; the Forli lab's tool, maintained with Meeko) keeps such phenols neutral.
OpenBabel's ``CorrectForPH`` (GPL-2) is what dockstring runs (``obabel -p 7.4``), so it is the choice for
scores closer to the DOCKSTRING paper's (dockstring also types atoms with OpenBabel, we with Meeko).
Both GPL tools are opt-in: ``pip install "mara-chem[gpl-protonation]"`` and ``protonation = "molscrub"``.
"""

from __future__ import annotations

import importlib.util
from abc import ABC, abstractmethod
from functools import lru_cache
from typing import Any, ClassVar

from rdkit import Chem

from mara_chem.registry import Registered, Registry

PROTONATORS: Registry["Protonator"] = Registry("protonation tool")  # internal: no entry-point group


class ProtonationError(ValueError):
    """The tool returned no usable molecule."""


class Protonator(Registered, ABC):
    """Maps a neutral-or-charged RDKit molecule to its dominant state at ``ph`` (heavy atoms only)."""

    plugin_registry = PROTONATORS
    name: ClassVar[str] = ""
    #: the import that provides the tool, and how to install it when it is missing
    module: ClassVar[str] = ""
    install: ClassVar[str] = 'pip install "mara-chem[docking]"'

    @abstractmethod
    def __call__(self, mol: Chem.Mol, ph: float) -> Chem.Mol:
        """The molecule's dominant protonation state at ``ph``; ``ProtonationError`` when the tool gives none."""


class MolscrubProtonator(Protonator):
    name = "molscrub"
    module = "molscrub"
    install = 'pip install "mara-chem[gpl-protonation]" (molscrub is GPL-3)'

    def __call__(self, mol: Chem.Mol, ph: float) -> Chem.Mol:
        states = _molscrub_conjugator()(Chem.Mol(mol), ph, ph)
        if not states:
            raise ProtonationError("molscrub returned no state")
        return Chem.RemoveHs(states[0])


class PkaRulesProtonator(Protonator):
    """mara-chem's documented rule layer (``pka_rules.py``): estimated pKa per group, RDKit only."""

    name = "pka_rules"
    module = "rdkit"
    install = "pip install rdkit"

    def __call__(self, mol: Chem.Mol, ph: float) -> Chem.Mol:
        from mara_chem.scoring.docking.pka_rules import protonate_rules

        return protonate_rules(mol, ph)


class DimorphiteProtonator(Protonator):
    name = "dimorphite"
    module = "dimorphite_dl"

    def __call__(self, mol: Chem.Mol, ph: float) -> Chem.Mol:
        from dimorphite_dl import protonate_smiles

        _quiet_dimorphite()
        states = protonate_smiles(Chem.MolToSmiles(mol), ph_min=ph, ph_max=ph, precision=0.0, max_variants=1)
        return _parse(states[0] if states else None, "dimorphite")


class OpenBabelProtonator(Protonator):
    name = "openbabel"
    module = "openbabel"
    install = 'pip install "mara-chem[gpl-protonation]" (openbabel-wheel is GPL-2)'

    def __call__(self, mol: Chem.Mol, ph: float) -> Chem.Mol:
        from openbabel import openbabel as ob

        conv = ob.OBConversion()
        conv.SetInAndOutFormats("smi", "smi")
        obmol = ob.OBMol()
        if not conv.ReadString(obmol, Chem.MolToSmiles(mol)):
            raise ProtonationError("openbabel could not read the SMILES")
        obmol.CorrectForPH(ph)
        return _parse(conv.WriteString(obmol).split()[0] if obmol.NumAtoms() else None, "openbabel")


@lru_cache(maxsize=1)
def _molscrub_conjugator() -> Any:
    from molscrub import AcidBaseConjugator

    return AcidBaseConjugator.from_default_data_files()


@lru_cache(maxsize=1)
def _quiet_dimorphite() -> None:
    from loguru import logger

    logger.disable("dimorphite_dl")


def _parse(smiles: str | None, tool: str) -> Chem.Mol:
    mol = Chem.MolFromSmiles(smiles) if smiles else None
    if mol is None:
        raise ProtonationError(f"{tool} returned no valid molecule ({smiles!r})")
    return mol


def list_protonators() -> list[str]:
    return PROTONATORS.names()


def check_available(tool: str) -> None:
    """Raise a one-line error naming the install command when ``tool`` is unknown or not installed."""
    cls = PROTONATORS.get(tool)
    if importlib.util.find_spec(cls.module) is None:
        raise ValueError(f"protonation tool {tool!r} needs the {cls.module!r} package: {cls.install}")


def protonate(mol: Chem.Mol, ph: float, tool: str = "pka_rules") -> Chem.Mol:
    """The molecule's state at ``ph`` from the named tool (instances are cheap; the tools' data is cached)."""
    return PROTONATORS.get(tool)()(mol, ph)
