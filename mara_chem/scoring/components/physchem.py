"""RDKit descriptors as components (REINVENT 4 names; case-insensitive, a few common aliases)."""

from __future__ import annotations

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


_DESCRIPTORS: dict[str, tuple[Callable[[Chem.Mol], Any], tuple[str, ...]]] = {
    "Qed": (QED.qed, ("QED",)),
    "MolecularWeight": (Descriptors.MolWt, ("MW",)),
    "TPSA": (rdMolDescriptors.CalcTPSA, ()),
    "SlogP": (Crippen.MolLogP, ("logP",)),
    "HBondDonors": (Lipinski.NumHDonors, ("NumHBD", "HBD")),
    "HBondAcceptors": (Lipinski.NumHAcceptors, ("NumHBA", "HBA")),
    "NumRotBond": (rdMolDescriptors.CalcNumRotatableBonds, ("RotatableBonds",)),
    "NumRings": (rdMolDescriptors.CalcNumRings, ()),
    "NumAromaticRings": (rdMolDescriptors.CalcNumAromaticRings, ()),
    "NumAliphaticRings": (rdMolDescriptors.CalcNumAliphaticRings, ()),
    "NumHeavyAtoms": (lambda m: m.GetNumHeavyAtoms(), ()),
    "NumHeteroAtoms": (rdMolDescriptors.CalcNumHeteroatoms, ()),
    "Csp3": (rdMolDescriptors.CalcFractionCSP3, ()),
    "NumAtomStereoCenters": (lambda m: len(Chem.FindMolChiralCenters(m, includeUnassigned=True)), ()),
}

for _name, (_fn, _aliases) in _DESCRIPTORS.items():
    type(_name, (DescriptorComponent,), {
        "name": _name, "aliases": _aliases, "descriptor": staticmethod(_fn),
        "__doc__": f"RDKit descriptor {_name}.", "__module__": __name__,
    })
