"""Synthetic accessibility (Ertl & Schuffenhauer 2009) from RDKit's Contrib/SA_Score: 1 easy .. 10 hard."""

from __future__ import annotations

import importlib.util
import os
from functools import lru_cache
from types import ModuleType

from rdkit import Chem, RDConfig

from mara_chem.scoring.component import ScoringComponent


@lru_cache(maxsize=1)
def _sascorer() -> ModuleType:
    path = os.path.join(RDConfig.RDContribDir, "SA_Score", "sascorer.py")
    if not os.path.exists(path):
        raise ImportError(f"RDKit Contrib SA_Score not found at {path}")
    spec = importlib.util.spec_from_file_location("sascorer", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


class SAScore(ScoringComponent):
    name = "SAScore"
    aliases = ("SA", "sa_score")
    raw_range = (1.0, 10.0)

    def score_mol(self, mol: Chem.Mol) -> float:
        return float(_sascorer().calculateScore(mol))
