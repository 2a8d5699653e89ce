"""RDKit descriptors as components (REINVENT 4 names; case-insensitive, a few common aliases)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from rdkit import Chem
from rdkit.Chem import Crippen, Descriptors, Lipinski, QED, rdMolDescriptors

from mara_chem.scoring.component import ScoringComponent


class DescriptorComponent(ScoringComponent):
    """A component whose raw value is one RDKit descriptor of the molecule."""

    descriptor: Callable[[Chem.Mol], float]

    def score_mol(self, mol: Chem.Mol) -> float:
        return float(type(self).descriptor(mol))


_UNIT = (0.0, 1.0)
_COUNT = (0.0, math.inf)
_DESCRIPTORS: dict[str, tuple[Callable[[Chem.Mol], Any], tuple[str, ...], tuple[float, float]]] = {
    "Qed": (QED.qed, ("QED",), _UNIT),
    "MolecularWeight": (Descriptors.MolWt, ("MW",), _COUNT),
    "TPSA": (rdMolDescriptors.CalcTPSA, (), _COUNT),
    "SlogP": (Crippen.MolLogP, ("logP",), (-math.inf, math.inf)),
    "HBondDonors": (Lipinski.NumHDonors, ("NumHBD", "HBD"), _COUNT),
    "HBondAcceptors": (Lipinski.NumHAcceptors, ("NumHBA", "HBA"), _COUNT),
    "NumRotBond": (rdMolDescriptors.CalcNumRotatableBonds, ("RotatableBonds",), _COUNT),
    "NumRings": (rdMolDescriptors.CalcNumRings, (), _COUNT),
    "NumAromaticRings": (rdMolDescriptors.CalcNumAromaticRings, (), _COUNT),
    "NumAliphaticRings": (rdMolDescriptors.CalcNumAliphaticRings, (), _COUNT),
    "NumHeavyAtoms": (lambda m: m.GetNumHeavyAtoms(), (), _COUNT),
    "NumHeteroAtoms": (rdMolDescriptors.CalcNumHeteroatoms, (), _COUNT),
    "Csp3": (rdMolDescriptors.CalcFractionCSP3, (), _UNIT),
    "NumAtomStereoCenters": (lambda m: len(Chem.FindMolChiralCenters(m, includeUnassigned=True)), (), _COUNT),
}

for _name, (_fn, _aliases, _range) in _DESCRIPTORS.items():
    type(_name, (DescriptorComponent,), {
        "name": _name, "aliases": _aliases, "descriptor": staticmethod(_fn), "raw_range": _range,
        "__doc__": f"RDKit descriptor {_name}.", "__module__": __name__,
    })
