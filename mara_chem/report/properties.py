"""The properties a medicinal chemist reads beside a hit's scores, whatever the objective asked for.

MW, cLogP (Crippen), TPSA, H-bond donors and acceptors (Lipinski's definitions, as RDKit counts them),
rotatable bonds, Fsp3, the SA score (Ertl & Schuffenhauer, RDKit Contrib: 1 easy .. 10 hard) and the net
charge at pH 7.4 by mara-chem's pKa rules (``scoring.docking.pka_rules``, the state docking uses).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
from rdkit import Chem
from rdkit.Chem import Crippen, Descriptors, Lipinski, rdMolDescriptors

from mara_chem.chem.smiles import to_mol
from mara_chem.scoring.components.sa_score import SAScore
from mara_chem.scoring.docking.pka_rules import charge_state

#: the columns ``molecule_properties`` returns, in the order the report shows them
PROPERTIES = ("MW", "cLogP", "TPSA", "HBD", "HBA", "rot_bonds", "Fsp3", "SA_score", "charge_7.4")


def _charge(mol: Chem.Mol) -> float:
    try:
        return float(Chem.GetFormalCharge(charge_state(mol, 7.4)[0]))
    except ValueError:  # a state the rules cannot write (they refuse rather than guess)
        return math.nan


_SA = SAScore()
#: counts, written as integers
COUNTS = ("HBD", "HBA", "rot_bonds", "charge_7.4")


def properties_of(mol: Chem.Mol) -> dict[str, float]:
    """One molecule's properties (``PROPERTIES``)."""
    return {
        "MW": Descriptors.MolWt(mol), "cLogP": Crippen.MolLogP(mol), "TPSA": rdMolDescriptors.CalcTPSA(mol),
        "HBD": float(Lipinski.NumHDonors(mol)), "HBA": float(Lipinski.NumHAcceptors(mol)),
        "rot_bonds": float(rdMolDescriptors.CalcNumRotatableBonds(mol)),
        "Fsp3": rdMolDescriptors.CalcFractionCSP3(mol), "SA_score": _SA.score_mol(mol),
        "charge_7.4": _charge(mol),
    }


def molecule_properties(smiles: Sequence[str]) -> pd.DataFrame:
    """A frame of ``PROPERTIES`` per SMILES (empty where a SMILES does not parse); counts are integers."""
    rows = []
    for smi in smiles:
        mol = to_mol(str(smi))
        rows.append(properties_of(mol) if mol is not None else dict.fromkeys(PROPERTIES, math.nan))
    df = pd.DataFrame(rows, columns=list(PROPERTIES))
    for col in COUNTS:  # int or None (object): a CSV cell '2', not '2.0', and an SD property left out when missing
        df[col] = pd.Series([None if math.isnan(v) else int(v) for v in df[col]], dtype=object)
    return df
