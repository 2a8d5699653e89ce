"""``Proposal``: one backward application with rdchiral's atom maps, and what the checks read off it (the bonds
it forms, its reaction centre, each atom's leaving groups)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from rdkit import Chem


@dataclass(frozen=True)
class Proposal:
    """One backward application with atom maps: each product atom carries a map number, and a reactant atom
    the number of the product atom it becomes; reactant atoms with a number the product lacks (or none) are
    the leaving groups. rdchiral writes proposals this way (``rdchiralRun(..., return_mapped=True)``)."""

    product: Chem.Mol
    reactants: tuple[Chem.Mol, ...]

    @classmethod
    def from_smiles(cls, product: str, reactants: str) -> "Proposal":
        """From mapped SMILES (``[CH3:1][NH:2]...``); an unmapped product is numbered index + 1."""
        mol = Chem.MolFromSmiles(product)
        if mol is None:
            raise ValueError(f"not a SMILES: {product}")
        mapped = [a.GetAtomMapNum() for a in mol.GetAtoms()]
        if not any(mapped):
            for atom in mol.GetAtoms():
                atom.SetAtomMapNum(atom.GetIdx() + 1)
        elif not all(mapped) or len(set(mapped)) != len(mapped):
            raise ValueError(f"every product atom needs its own map number: {product}")
        parts = [Chem.MolFromSmiles(piece) for piece in reactants.split(".")]
        if any(p is None for p in parts):
            raise ValueError(f"not a SMILES: {reactants}")
        return cls(mol, tuple(parts))

    @cached_property
    def _where(self) -> dict[int, tuple[int, int]]:
        """Product map number -> (reactant, atom index) of the reactant atom it comes from."""
        made = {a.GetAtomMapNum() for a in self.product.GetAtoms()}
        return {a.GetAtomMapNum(): (i, a.GetIdx()) for i, m in enumerate(self.reactants) for a in m.GetAtoms()
                if a.GetAtomMapNum() in made}

    def in_product(self, reactant: int, atom: Chem.Atom) -> bool:
        return self._where.get(atom.GetAtomMapNum()) == (reactant, atom.GetIdx())

    @cached_property
    def formed_bonds(self) -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
        """The product's bonds that no reactant has: pairs of (reactant, atom index) ends."""
        formed = []
        for bond in self.product.GetBonds():
            a = self._where.get(bond.GetBeginAtom().GetAtomMapNum())
            b = self._where.get(bond.GetEndAtom().GetAtomMapNum())
            if a is None or b is None:
                continue  # an atom the reactants do not supply (a reagent the template leaves out)
            if a[0] != b[0] or self.reactants[a[0]].GetBondBetweenAtoms(a[1], b[1]) is None:
                formed.append((a, b))
        return tuple(formed)

    @cached_property
    def centre(self) -> frozenset[tuple[int, int]]:
        """Reactant atoms whose bonds change: ends of the formed bonds, atoms that lose a leaving group or
        change a bond order."""
        atoms = {end for bond in self.formed_bonds for end in bond}
        for i, mol in enumerate(self.reactants):
            for bond in mol.GetBonds():
                ends = [bond.GetBeginAtom(), bond.GetEndAtom()]
                kept = [self.in_product(i, a) for a in ends]
                if kept[0] != kept[1]:
                    atoms.update((i, a.GetIdx()) for a, k in zip(ends, kept) if k)
                elif all(kept):
                    p = self.product.GetBondBetweenAtoms(*(self._product_index(a) for a in ends))
                    if p is None or p.GetBondType() != bond.GetBondType():
                        atoms.update((i, a.GetIdx()) for a in ends)
        return frozenset(atoms)

    @cached_property
    def _product_atoms(self) -> dict[int, int]:
        return {a.GetAtomMapNum(): a.GetIdx() for a in self.product.GetAtoms()}

    def _product_index(self, atom: Chem.Atom) -> int:
        return self._product_atoms[atom.GetAtomMapNum()]

    def product_atom(self, atom: Chem.Atom) -> Chem.Atom:
        """The product atom a reactant atom becomes."""
        return self.product.GetAtomWithIdx(self._product_index(atom))

    def supplied_atoms(self) -> int:
        """How many of the product's atoms some reactant supplies (a template's unmapped atoms come from none)."""
        return sum(1 for a in self.product.GetAtoms() if a.GetAtomMapNum() in self._where)

    def atom(self, end: tuple[int, int]) -> Chem.Atom:
        return self.reactants[end[0]].GetAtomWithIdx(end[1])

    def leaving(self, end: tuple[int, int]) -> list[Chem.Atom]:
        """The neighbours of a reactant atom that do not reach the product (its leaving groups)."""
        return [nb for nb in self.atom(end).GetNeighbors() if not self.in_product(end[0], nb)]


def halide_or_sulfonate(proposal: Proposal, end: tuple[int, int]) -> bool:
    """The atom leaves with a halide (Cl, Br, I) or a triflate/sulfonate."""
    for nb in proposal.leaving(end):
        if nb.GetSymbol() in ("Cl", "Br", "I"):
            return True
        if nb.GetSymbol() == "O" and any(x.GetSymbol() == "S" and x.GetIdx() != end[1] for x in nb.GetNeighbors()):
            return True
    return False


def loses_metal(proposal: Proposal, end: tuple[int, int], metals: tuple[str, ...]) -> bool:
    """The atom leaves with one of ``metals`` (the organometal of a coupling)."""
    return any(nb.GetSymbol() in metals for nb in proposal.leaving(end))


def kept_carbons(proposal: Proposal, end: tuple[int, int]) -> list[Chem.Atom]:
    """The carbon neighbours of a reactant atom that stay with it in the product."""
    return [nb for nb in proposal.atom(end).GetNeighbors() if nb.GetSymbol() == "C" and proposal.in_product(end[0], nb)]
