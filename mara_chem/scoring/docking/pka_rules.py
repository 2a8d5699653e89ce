"""A documented rule layer for the dominant protonation state of drug-like molecules at a given pH.

Why not Dimorphite-DL alone: with one state per molecule it deprotonates groups whose pKa is far above 7.4
(benzimidazolone NH, substituted phenols, imides) and protonates amidine and piperazine nitrogens of the same
molecule twice (clozapine, olanzapine at +2). These rules give each ionisable group an estimated pKa and
ionise it when the pH is on the ionised side, so a chemist can read why a state was chosen:

Acids (deprotonated when pKa < pH): carboxylic acids (4.0), 1H-tetrazoles (4.9), acyl sulfonamides and
sulfonylureas (5.0), sulfonic and phosphonic/phosphoric acids (1-2), 4-hydroxycoumarins and vinylogous acids
(5.0), thiazolidinediones (6.5), sulfonamide NH on an electron-poor heteroaryl ring with two or more ring
heteroatoms (6.0; a pyridyl one stays neutral, 8.4). Left neutral: phenols, imides, hydantoins, barbiturates,
uracils, benzimidazolones, amides, primary and N-alkyl sulfonamides, hydroxamic acids (pKa above 8).

Bases (protonated when pKa > pH): aliphatic amines, from a base value (primary 10.6, secondary 10.8,
tertiary 10.3) lowered by what is near the nitrogen (Perrin-style increments): an aromatic carbon
or C=C two bonds away (benzylic/allylic, -1.2), a carbonyl or sulfonyl two bonds away (-2.7), a nitrile
two bonds away (-5), a C#C two bonds away (-2.5); three bonds away an O, a non-basic N or a S(=O) (-1.35
each path), an acyl or sulfonyl N (-1.5 / -1.7 each path: sildenafil's N-methylpiperazine, 6.5, stays neutral),
a basic N (-0.7), F (-1.7 each), Cl (-1.0), a carbonyl (-1.0), an aromatic ring (-0.8 each path, a beta-aryl
group), a C=C (-0.5); four bonds away, per path through sp3 carbons (a piperidine's 4-substituent has two),
an O, an aromatic ring or a carbonyl (-0.4), a non-basic N (-0.6), a basic N (-0.3): haloperidol 8.3,
risperidone 8.7, domperidone 8.5 (literature 8.3, 8.2-8.8, 7.9), where the base value alone gave 10.3. Amidines (12) and guanidines
(13) are protonated unless a nitrogen carries an acyl, sulfonyl, cyano or nitro group (guanidines: an acyl
group lowers to 8) or, for amidines, an aryl ring; a guanidine on a thiazole/heteroaryl C next to a ring N
is 7.0. 4-Aminopyridines and 4-aminoquinolines (9.2 / 8.1) are protonated on the ring nitrogen; other
aromatic nitrogens (pyridine, imidazole, benzimidazole, anilines) are left neutral. Bases are protonated
strongest first; each charge lowers every other base by 6 (two bonds apart), 4.5 (three), 2 (four) or 1
(five or six), which gives piperazines and biguanides one charge.

Quaternary nitrogens and other fixed charges are kept. The molecule is first neutralised (RDKit's
Uncharger), so the result does not depend on the input's charges.
Validated on 59 drugs and a hold-out set of 27 against literature pKa values (``benchmarks/protonation/``;
docs/oracles.md, "Protonation").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rdkit import Chem
from rdkit.Chem.MolStandardize import rdMolStandardize


#: bump when a rule changes (it is part of the docking cache key)
RULES_VERSION = 2  # 2: beta-aryl and homoallylic groups, gamma substituents per ring path, acyl/sulfonyl N


@dataclass(frozen=True)
class Site:
    """An ionisable atom with its estimated pKa and the rule that gave it."""

    atom: int
    pka: float
    kind: str  # "acid" or "base"
    rule: str


ACIDS: list[tuple[str, float, str]] = [
    ("[CX3](=O)[OX2H1]", 4.0, "carboxylic acid"),
    ("[nH1]1nnnc1", 4.9, "tetrazole"),
    ("[nH1]1nncn1", 4.9, "tetrazole"),
    ("[NX3H1](C(=O))S(=O)(=O)", 5.0, "acyl sulfonamide / sulfonylurea"),
    ("[SX4](=O)(=O)[OX2H1]", 1.0, "sulfonic acid"),
    ("[PX4](=O)[OX2H1]", 2.0, "phosphonic/phosphoric acid"),
    ("[OX2H1]c1c(*)c(=O)oc2ccccc12", 5.0, "4-hydroxycoumarin"),
    ("[OX2H1]C=CC(=O)", 5.0, "vinylogous acid"),
    ("O=C1[NX3H1]C(=O)SC1", 6.5, "thiazolidinedione"),
]
_HETEROARYL_SULFONAMIDE = "[NX3H1]([a])S(=O)(=O)"

_AMINE = ("[NX3;H2,H1,H0;+0;!$(N[a]);!$(N[#6]=[#7,#8,#16]);!$(N[#16,#15]);!$(N[#7,#8]);"
          "!$(N[#6]#[#7]);!$(N[#6]=[#6]);!$(NC(=[#6]))]")
_AMIDINE = "[CX3;!$(C(N)(N)=N)](=[NX2;+0])[NX3;+0]"
_GUANIDINE = "[CX3](=[NX2;+0])([NX3;+0])[NX3;+0]"
_AMINOPYRIDINE = "[nX2;r6;+0]1:[c,n]:c:c(-[NX3;+0;!$(N[#6]=[#7,#8,#16]);!$(N[#16])]):c:[c,n]:1"


@lru_cache(maxsize=None)
def _pattern(smarts: str) -> Chem.Mol:
    pattern = Chem.MolFromSmarts(smarts)
    if pattern is None:
        raise ValueError(f"bad SMARTS in the protonation rules: {smarts}")
    return pattern


def _withdrawing_n(atom: Chem.Atom, skip: int) -> bool:
    """Does this nitrogen carry an acyl, sulfonyl, cyano or nitro group (other than via ``skip``)?"""
    for nb in atom.GetNeighbors():
        if nb.GetIdx() == skip:
            continue
        if nb.GetSymbol() in ("S", "P") and any(b.GetBondType() == Chem.BondType.DOUBLE for b in nb.GetBonds()):
            return True
        if nb.GetSymbol() == "N" and nb.GetFormalCharge() == 1:  # nitro
            return True
        for bond in nb.GetBonds():
            other = bond.GetOtherAtom(nb)
            if other.GetIdx() == atom.GetIdx():
                continue
            if nb.GetSymbol() == "C" and bond.GetBondType() == Chem.BondType.DOUBLE and other.GetSymbol() in ("O", "S"):
                return True
            if nb.GetSymbol() == "C" and bond.GetBondType() == Chem.BondType.TRIPLE:
                return True
    return False


def _acyl_only(atom: Chem.Atom, skip: int) -> bool:
    """Acyl (C=O) but no sulfonyl/cyano/nitro on this nitrogen."""
    for nb in atom.GetNeighbors():
        if nb.GetIdx() == skip or nb.GetSymbol() != "C":
            continue
        if any(b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(nb).GetSymbol() == "O" for b in nb.GetBonds()):
            return True
    return False


def _sp3_carbon(atom: Chem.Atom) -> bool:
    return atom.GetSymbol() == "C" and not atom.GetIsAromatic() and atom.GetHybridization() == Chem.HybridizationType.SP3


def _sp3_paths(mol: Chem.Mol, n: int, distances, upto: int) -> dict[int, int]:  # noqa: ANN001
    """Shortest paths from ``n`` to each atom within ``upto`` bonds whose inner atoms are all sp3 carbons: a
    piperidine's 4-substituent is reached by two (one round each side of the ring), a chain's by one."""
    paths = {n: 1}
    for d in range(1, upto + 1):
        for atom in mol.GetAtoms():
            j = atom.GetIdx()
            if distances[n][j] != d:
                continue
            paths[j] = sum(paths.get(k.GetIdx(), 0) for k in atom.GetNeighbors()
                           if distances[n][k.GetIdx()] == d - 1 and (k.GetIdx() == n or _sp3_carbon(k)))
    return paths


def _carbonyl(atom: Chem.Atom, element: str = "O") -> bool:
    return atom.GetSymbol() == "C" and any(
        b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(atom).GetSymbol() == element for b in atom.GetBonds())


def _n_substituent(atom: Chem.Atom) -> str | None:
    """'sulfonyl' or 'acyl' when a (non-basic) nitrogen carries one, else None."""
    for nb in atom.GetNeighbors():
        if nb.GetSymbol() == "S" and sum(1 for b in nb.GetBonds() if b.GetBondType() == Chem.BondType.DOUBLE) >= 2:
            return "sulfonyl"
    return "acyl" if any(_carbonyl(nb) for nb in atom.GetNeighbors()) else None


def _amine_pka(mol: Chem.Mol, n: int, distances) -> float:  # noqa: ANN001  (the distance matrix)
    atom = mol.GetAtomWithIdx(n)
    heavy = atom.GetDegree()
    pka = {1: 10.6, 2: 10.8}.get(heavy, 10.3)
    if atom.IsInRingSize(3):
        pka -= 2.5  # aziridine
    basic = {i for (i,) in mol.GetSubstructMatches(_pattern(_AMINE))}
    sp3_paths = _sp3_paths(mol, n, distances, 4)
    for other in mol.GetAtoms():
        j = other.GetIdx()
        d = distances[n][j]
        sym = other.GetSymbol()
        if d == 2:
            if other.GetIsAromatic():
                pka -= 1.2
            elif sym == "C" and any(b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(other).GetSymbol() in ("O", "S")
                                    for b in other.GetBonds()):
                pka -= 2.7
            elif sym == "S" and any(b.GetBondType() == Chem.BondType.DOUBLE for b in other.GetBonds()):
                pka -= 2.7
            elif sym == "C" and any(b.GetBondType() == Chem.BondType.TRIPLE for b in other.GetBonds()):
                triple = [b.GetOtherAtom(other).GetSymbol() for b in other.GetBonds() if b.GetBondType() == Chem.BondType.TRIPLE]
                pka -= 5.0 if "N" in triple else 2.5
            elif sym == "C" and any(b.GetBondType() == Chem.BondType.DOUBLE for b in other.GetBonds()):
                pka -= 1.2
        elif d == 3:
            # paths through an sp3 carbon only: through a carbonyl or ring the d == 2 increment already counts it
            paths = sum(1 for nb in other.GetNeighbors() if distances[n][nb.GetIdx()] == 2
                        and nb.GetSymbol() == "C" and not nb.GetIsAromatic()
                        and nb.GetHybridization() == Chem.HybridizationType.SP3)
            if sym == "O" or (sym == "S" and other.GetDegree() > 2):
                pka -= 1.35 * paths
            elif sym == "N":
                withdrawn = _n_substituent(other)
                step = {"sulfonyl": 1.7, "acyl": 1.5}.get(withdrawn, 0.7 if j in basic else 1.35)  # type: ignore[arg-type]
                pka -= step * paths
            elif sym == "F" and paths:
                pka -= 1.7
            elif sym == "Cl" and paths:
                pka -= 1.0
            elif other.GetIsAromatic():
                pka -= 0.8 * paths  # a beta-aryl group (phenethylamine 9.8 against ethylamine 10.7)
            elif sym == "C" and _carbonyl(other):
                pka -= 1.0
            elif sym == "C" and _carbonyl(other, "C"):
                pka -= 0.5 * paths  # a homoallylic C=C (amitriptyline)
        elif d == 4:
            # gamma substituents, per path through sp3 carbons: a piperidine's 4-substituent counts twice
            # (4-hydroxypiperidine 9.9 against piperidine 11.1), which brings drug N-alkyl piperidines to ~8
            paths = sp3_paths.get(j, 0)
            if not paths:
                continue
            if sym == "O":
                pka -= 0.4 * paths
            elif sym == "N":
                pka -= (0.3 if j in basic else 0.6) * paths
            elif other.GetIsAromatic():
                pka -= 0.4 * paths
            elif sym == "C" and _carbonyl(other):
                pka -= 0.4 * paths
    return pka


def ionisable_sites(mol: Chem.Mol) -> list[Site]:
    """Every acid and base the rules know in a neutral molecule, with its estimated pKa."""
    sites: list[Site] = []
    taken: set[int] = set()
    for smarts, pka, rule in ACIDS:
        for match in mol.GetSubstructMatches(_pattern(smarts)):
            atom = next(i for i in match if mol.GetAtomWithIdx(i).GetTotalNumHs() > 0
                        and mol.GetAtomWithIdx(i).GetSymbol() in ("O", "N"))
            if atom not in taken:
                taken.add(atom)
                sites.append(Site(atom, pka, "acid", rule))
    for match in mol.GetSubstructMatches(_pattern(_HETEROARYL_SULFONAMIDE)):
        n, aryl = match[0], match[1]
        if n in taken:
            continue
        ring = next((r for r in mol.GetRingInfo().AtomRings() if aryl in r), ())
        hetero = sum(1 for i in ring if mol.GetAtomWithIdx(i).GetSymbol() != "C")
        sites.append(Site(n, 6.0 if hetero >= 2 else 8.4, "acid",
                          "sulfonamide NH on a heteroaryl ring" if hetero >= 2 else "sulfonamide NH on a pyridyl-like ring"))
        taken.add(n)
    distances = Chem.GetDistanceMatrix(mol)
    for (n,) in mol.GetSubstructMatches(_pattern(_AMINE)):
        sites.append(Site(n, _amine_pka(mol, n, distances), "base", "aliphatic amine"))
    guanidine_carbons: list[int] = []
    for match in mol.GetSubstructMatches(_pattern(_GUANIDINE)):
        c, imine = match[0], match[1]
        nitrogens = [mol.GetAtomWithIdx(i) for i in match[1:]]
        if any(imine == s.atom for s in sites) or any(distances[c][g] <= 2 for g in guanidine_carbons):
            continue  # a biguanide is one base (metformin: pKa 12.4, then 2.8)
        guanidine_carbons.append(c)
        if any(_withdrawing_n(a, c) and not _acyl_only(a, c) for a in nitrogens):
            continue
        pka, rule = 13.0, "guanidine"
        if any(_acyl_only(a, c) for a in nitrogens):
            pka, rule = 8.0, "acylguanidine"
        for a in nitrogens:
            for nb in a.GetNeighbors():
                if nb.GetIdx() != c and nb.GetIsAromatic() and any(x.GetSymbol() == "N" and x.GetIsAromatic()
                                                                   for x in nb.GetNeighbors()):
                    pka, rule = 7.0, "guanidine on a heteroaryl C next to a ring N"
        sites.append(Site(imine, pka, "base", rule))
    for match in mol.GetSubstructMatches(_pattern(_AMIDINE)):
        c, imine, amino = match
        atoms = [mol.GetAtomWithIdx(imine), mol.GetAtomWithIdx(amino)]
        if any(_withdrawing_n(a, c) for a in atoms):
            continue
        if any(nb.GetIsAromatic() for a in atoms for nb in a.GetNeighbors() if nb.GetIdx() != c):
            continue  # N-aryl amidines (clozapine's, pKa 3.7) are weak bases
        sites.append(Site(imine, 12.0, "base", "amidine"))
    for match in mol.GetSubstructMatches(_pattern(_AMINOPYRIDINE)):
        ring_n = match[0]
        fused = mol.GetRingInfo().NumAtomRings(ring_n) and any(
            mol.GetRingInfo().NumAtomRings(i) > 1 for i in match[1:6])
        sites.append(Site(ring_n, 8.1 if fused else 9.2, "base", "4-aminoquinoline" if fused else "4-aminopyridine"))
    return sites


def charge_state(mol: Chem.Mol, ph: float = 7.4) -> tuple[Chem.Mol, list[tuple[Site, bool]]]:
    """The dominant state at ``ph`` and, for each site, whether it was ionised (for reports and tests)."""
    neutral = rdMolStandardize.Uncharger().uncharge(Chem.Mol(mol))
    sites = ionisable_sites(neutral)
    distances = Chem.GetDistanceMatrix(neutral)
    rw = Chem.RWMol(neutral)
    decided: list[tuple[Site, bool]] = []
    charged: list[int] = []
    for site in sorted((s for s in sites if s.kind == "acid"), key=lambda s: s.pka):
        ionise = site.pka < ph
        if ionise:
            atom = rw.GetAtomWithIdx(site.atom)
            hydrogens = atom.GetTotalNumHs()  # before SetNoImplicit, which drops the implicit ones
            atom.SetNoImplicit(True)
            atom.SetNumExplicitHs(max(0, hydrogens - 1))
            atom.SetFormalCharge(-1)
        decided.append((site, ionise))
    for site in sorted((s for s in sites if s.kind == "base"), key=lambda s: -s.pka):
        shift = sum(_proximity(distances[site.atom][c]) for c in charged)
        ionise = site.pka - shift > ph
        if ionise:
            atom = rw.GetAtomWithIdx(site.atom)
            hydrogens = atom.GetTotalNumHs()
            atom.SetNoImplicit(True)
            atom.SetNumExplicitHs(hydrogens + 1)
            atom.SetFormalCharge(1)
            charged.append(site.atom)
        decided.append((site, ionise))
    out = rw.GetMol()
    Chem.SanitizeMol(out)
    if any(a.GetNumRadicalElectrons() for a in out.GetAtoms()):
        raise ValueError(f"protonation rules left a radical in {Chem.MolToSmiles(out)}")  # a rule bug, never silent
    return out, decided


def _proximity(bonds: float) -> float:
    return {1: 9.0, 2: 6.0, 3: 4.5, 4: 2.0, 5: 1.0, 6: 1.0}.get(int(bonds), 0.0)


def protonate_rules(mol: Chem.Mol, ph: float = 7.4) -> Chem.Mol:
    """The dominant state at ``ph`` (heavy atoms; hydrogens implicit)."""
    return charge_state(mol, ph)[0]
