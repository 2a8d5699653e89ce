"""Known compounds: molecules of a project's series or a reference file, matched by structure.

A generative run tuned on a series re-finds the series; a chemist must see which hits are already known,
and an objective that asks for molecules "near, not on, the series" must be able to exclude them. Both use
this one matcher. Molecules are compared by their canonical SMILES without stereochemistry, so a hit
written with or without stereo centres matches the series compound it is (a stereoisomer of a known
compound counts as known: the same constitution is what a chemist would call the same series member).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rdkit import Chem

from mara_chem.chem.smiles import to_mol
from mara_chem.chem.smiles_file import read_smiles_file


def constitution_key(smiles: str) -> str | None:
    """Canonical SMILES without stereochemistry (None when the SMILES does not parse)."""
    mol = to_mol(smiles)
    return Chem.MolToSmiles(mol, isomericSmiles=False) if mol is not None else None


@dataclass
class KnownCompounds:
    """Structure key -> the names of the sources (files) that hold the molecule."""

    sources: dict[str, list[str]] = field(default_factory=dict)
    labels: list[str] = field(default_factory=list)

    def add(self, smiles: Iterable[str], label: str) -> None:
        self.labels.append(label)
        for smi in smiles:
            key = constitution_key(smi)
            if key is not None and label not in self.sources.setdefault(key, []):
                self.sources[key].append(label)

    def add_file(self, path: str | Path, label: str | None = None) -> None:
        """A .smi/.csv/.txt (optionally .gz) file, first column SMILES (a 'SMILES' header is skipped)."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"reference file {path} does not exist")
        self.add(read_smiles_file(path), label or path.name)

    def where(self, smiles: str) -> list[str]:
        """The sources that hold this molecule (empty: not known)."""
        key = constitution_key(smiles)
        return list(self.sources.get(key, [])) if key is not None else []

    def __contains__(self, smiles: str) -> bool:
        return bool(self.where(smiles))

    def __len__(self) -> int:
        return len(self.sources)
