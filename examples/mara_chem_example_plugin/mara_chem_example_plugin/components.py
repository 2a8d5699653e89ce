"""A scoring component: the fraction of heavy atoms that are not carbon (raw value in [0, 1])."""

from mara_chem.scoring import ScoringComponent


class HeteroatomFraction(ScoringComponent):
    name = "example_heteroatom_fraction"

    def score_mol(self, mol) -> float:
        heavy = mol.GetNumHeavyAtoms()
        hetero = sum(atom.GetAtomicNum() not in (1, 6) for atom in mol.GetAtoms())
        return hetero / heavy  # a molecule without heavy atoms raises ZeroDivisionError: NaN with a reason
