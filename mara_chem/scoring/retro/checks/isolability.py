"""Whether a molecule is an isolable compound at all, asked of every reactant of every step (building block or
intermediate alike): a route that makes a carbamic acid and uses it at once is no route. Refused: carbamic
acids, carbonic half-esters and chloroformic acid, acyl halides with their own O-H, S-H or amine N-H, aldehydes
with their own aliphatic amine N-H, gamma- and delta-amino esters, beta-keto acids
but the two sold as such (acetonedicarboxylic and oxaloacetic acid), acylboronic acids, gem-diols, open-chain
hemiaminals, simple enols, N-H enamines,
trifluoromethanol, bridgehead (anti-Bredt) alkenes, cyclopropenes with a ring CH2, sulfonyl halides with their own
aliphatic amine, and sulfonyl nitro compounds."""

from __future__ import annotations

from rdkit import Chem

from mara_chem.scoring.retro.checks.chem import (ALIPHATIC_AMINE_NH, CYCLISING_NH, closes_own_ring, pattern,
                                                 unmapped_smiles)
from mara_chem.scoring.retro.checks.proposal import Proposal

#: an open-chain carbon carrying OH and a halogen or amine N (a hemiaminal, an alpha-halo alcohol)
_GEMINAL_OH_X = "[CX4;!R]([OX2H1])[Cl,Br,I,$([NX3;!R])]"
#: an open-chain carbonyl hydrate (a gem-diol) without the electron-poor neighbour that makes chloral hydrate
#: isolable (ring hydrates beside electron-poor centres, saxitoxin's, are stable)
_GEM_DIOL = "[CX4;!R;!$(C[CX4](Cl)(Cl)Cl);!$(C[CX3]=O);!$(C(C(F)(F)F))]([OX2H1])[OX2H1]"
#: a carbamic acid or carbonic half-ester: it loses CO2 (carisoprodol's carbamate "alkylated" from carbamic acid,
#: torsemide's sulfonylurea and albendazole's carbamate "coupled" from one), or chloroformic acid, which loses
#: CO2 and HCl (felbamate's chloroformate "etherified" from it)
_CARBAMIC_ACID = "[OX2H1][CX3](=O)[#7,#8,Cl,Br,I]"
#: an acylboron: known only as its trifluoroborate or MIDA ester, never free (meloxicam's acylboronic acid,
#: piroxicam's carbamoyl- and carboxyboronic acids "oxidised" to the acid or the enol)
_ACYL_BORON = "[CX3](=O)[BX3]"
#: an acyl halide and, in the same molecule, an O-H, S-H or amine N-H it acylates (a hydroxy, mercapto or amino
#: acid chloride is no reagent: bicalutamide's, entacapone's, piroxicam's enol, captopril's
#: 3-mercapto-2-methylpropanoyl chloride, made and used S-acetylated); a sulfonamide N-H is left alone
#: (indapamide's 4-chloro-3-sulfamoylbenzoyl chloride is made and used as such)
_ACYL_HALIDE = "[#6][CX3](=O)[Cl,Br,I]"
_ACYLATED_BY_IT = "[$([OX2H1]),$([SX2H1]),$([NX3;H1,H2;+0;!$(N[#6]=[#7,#8,#16]);!$(N[#16,#15]);!$(N[N,O])])]"
#: an aldehyde and, in the same molecule, a primary or secondary aliphatic amine: it condenses with itself (an
#: unprotected amino aldehyde is made and used as its acetal or N-Boc derivative: ethambutol's
#: 2-(1-hydroxybutan-2-ylamino)acetaldehyde)
_ALDEHYDE = "[CX3H1](=O)[#6]"
#: an ester's carbonyl carbon: with an amine N-H of its own four or five bonds away it closes the gamma- or
#: delta-lactam (gabapentin's ethyl ester gives the spiro lactam, methyl 2-aminophenylacetate the oxindole); the
#: free amino acids keep as zwitterions (GABA, gabapentin itself), and a diarylamine's N-H is too hindered and too
#: weak a nucleophile without activation (diclofenac's esters, aceclofenac)
_ESTER_CARBON = "[CX3](=O)O[#6]"
_LACTAMISING_NH = f"[$({CYCLISING_NH});!$(N(a)a)]"
#: a beta-keto acid, as its keto or its enol form: it loses CO2 through a six-membered transition state
#: (piroxicam's and meloxicam's benzothiazine acid from saponifying the ester, teriflunomide's
#: 2-cyano-3-hydroxybutenoic acid); malonic half-esters and aryl or heteroaryl acids (a 4-quinolone's) keep theirs
_BETA_KETO_ACID = ("[OX2H1][CX3](=O)[CX4][CX3;!$(C-[!#6;!#1])]=O", "[OX2H1][CX3](=O)[C;!a]=[C;!a][OX2H1]")
#: beta-keto acids sold and kept as such, so isolable whatever the pattern says: acetonedicarboxylic acid
#: (3-oxoglutaric acid, the Robinson tropinone reagent; made from citric acid and kept cold) and oxaloacetic
#: acid (a keto diacid, stable as a solid). Every other beta-keto acid, a building block or an intermediate the
#: search makes, is still refused; a stereo- or map-free canonical SMILES each
_SOLD_BETA_KETO_ACIDS = frozenset(Chem.MolToSmiles(Chem.MolFromSmiles(s))
                                  for s in ("OC(=O)CC(=O)CC(=O)O", "OC(=O)CC(=O)C(=O)O"))

#: a simple enol, which is its carbonyl compound (vinyl alcohol is acetaldehyde: menthol's Diels-Alder "with"
#: it); an enol conjugated to a carbonyl, nitrile or nitro group (a vinylogous acid, a 1,3-dicarbonyl's enol)
#: or written aromatic is left to the other rules
_SIMPLE_ENOL = ("[OX2H1][CX3;!a;!$(C=[O,N,S]);!$(C=CC=[O,N,S]);!$(C=CC#N);!$(C=C[N+](=O)[O-]);"
                "!$(C(=C)C=[O,N,S])]=[CX3;!a]")

#: an enamine with an N-H, unless its N is acylated or it is a vinylogous amide: it is its imine tautomer
#: (tocainide's 2-aminoacrylamide 'hydrogenated' to the alaninamide)
_NH_ENAMINE = ("[NX3;H1,H2;+0;!$(N[CX3]=[O,S]);!$(NS(=O)=O);!$(N[a])][CX3;!a;!$(C=CC=[O,N,S]);!$(C=CC#N);"
               "!$(C=C[N+](=O)[O-]);!$(C=[O,N,S])]=[CX3;!a]")

#: a cyclopropene with a ring CH2: it dimerises and polymerises at room temperature (prasugrel's cyclopropenyl
#: ketone "hydrogenated" to the cyclopropyl); 3,3-disubstituted cyclopropenes keep
_CH2_CYCLOPROPENE = "[CH2;r3]1[#6;r3]=[#6;r3]1"
#: a sulfonyl halide and, in the same molecule, an aliphatic amine: it sulfonylates or quaternises itself, or
#: forms a sulfene (naratriptan's tetrahydropyridinyl indole ethanesulfonyl chloride "hydrogenated")
_SULFONYL_HALIDE = "[#6]S(=O)(=O)[F,Cl,Br,I]"
_ANY_ALIPHATIC_AMINE = "[NX3;+0;!$(N[a]);!$(N[#6]=[#7,#8,#16]);!$(N[#16,#15]);!$(N[N,O])]"
#: a sulfonyl nitro group (R-SO2-NO2): no known building block (metolazone's sulfonamide "from" one by a
#: nitro reduction)
_SULFONYL_NITRO = "S(=O)(=O)[N+](=O)[O-]"


def _anti_bredt(mol: Chem.Mol) -> bool:
    """A non-aromatic double bond at a bridgehead of a small bicycle (Bredt's rule: bicyclo[x.y.z] with
    x + y + z < 7) or of a cage, where the atom is a bridgehead of three small rings at once (adamantene): the
    p orbitals cannot overlap (vildagliptin's adamantadienes "hydrogenated" to 3-amino-1-adamantanol).
    Bicyclo[3.3.1]non-1-ene, a fused ring's double bond (an octalin's) and one beside a bridgehead pass."""
    rings = [set(r) for r in Chem.GetSymmSSSR(mol)]
    for bond in mol.GetBonds():
        if bond.GetBondType() != Chem.BondType.DOUBLE or bond.GetIsAromatic():
            continue
        for atom in (bond.GetBeginAtom(), bond.GetEndAtom()):
            if sum(1 for b in atom.GetBonds() if b.IsInRing()) < 3:
                continue  # not a bridgehead (alpha-pinene's ring alkene, camphene's exocyclic one)
            mine = [r for r in rings if atom.GetIdx() in r and len(r) <= 8]
            bridged = [(x, y) for k, x in enumerate(mine) for y in mine[k + 1:] if len(x & y) >= 3]
            if any(len(x | y) - 2 < 7 for x, y in bridged):
                return True
            small = [r for r in mine if len(r) <= 7]
            if sum(1 for k, x in enumerate(small) for y in small[k + 1:] if len(x & y) >= 3) >= 3:
                return True
    return False


def isolable_problem(mol: Chem.Mol) -> str | None:
    """Why ``mol`` is no isolable compound (it falls apart, loses CO2 or reacts with itself), or None.

    Asked of every reactant of every step (``reaction_problem``), so an intermediate a route makes and uses
    at once is held to it as much as a building block: a route through a carbamic acid is no route."""
    if mol.HasSubstructMatch(pattern(_GEM_DIOL)):
        return "a gem-diol (a carbonyl's hydrate, not a shelf compound)"
    if mol.HasSubstructMatch(pattern(_GEMINAL_OH_X)):
        return "an open-chain hemiaminal or alpha-halo alcohol (it falls apart to its carbonyl)"
    if mol.HasSubstructMatch(pattern(_CARBAMIC_ACID)):
        return "a carbamic acid, carbonic half-ester or chloroformic acid (it loses CO2)"
    if mol.HasSubstructMatch(pattern(_ACYL_HALIDE)) and mol.HasSubstructMatch(pattern(_ACYLATED_BY_IT)):
        return "an acyl halide beside an O-H, S-H or amine N-H of its own (it acylates itself)"
    if mol.HasSubstructMatch(pattern(_ALDEHYDE)) and mol.HasSubstructMatch(pattern(ALIPHATIC_AMINE_NH)):
        return "an aldehyde beside a free aliphatic amine of its own (it condenses with itself)"
    esters = [m[0] for m in mol.GetSubstructMatches(pattern(_ESTER_CARBON))]
    if esters:
        amines = [m[0] for m in mol.GetSubstructMatches(pattern(_LACTAMISING_NH))]
        if amines and any(closes_own_ring(mol, ester, amines) for ester in esters):
            return "a gamma- or delta-amino ester (it closes its own lactam)"
    if any(mol.HasSubstructMatch(pattern(smarts)) for smarts in _BETA_KETO_ACID) \
            and unmapped_smiles(mol) not in _SOLD_BETA_KETO_ACIDS:
        return "a beta-keto acid (it decarboxylates)"
    if mol.HasSubstructMatch(pattern("[OX2H1]C(F)(F)F")):
        return "trifluoromethanol (it loses HF to carbonyl fluoride)"
    if mol.HasSubstructMatch(pattern(_SIMPLE_ENOL)):
        return "a simple enol (it is its carbonyl tautomer)"
    if mol.HasSubstructMatch(pattern(_NH_ENAMINE)):
        return "an enamine with an N-H (it is its imine tautomer)"
    if mol.HasSubstructMatch(pattern(_SULFONYL_HALIDE)) and mol.HasSubstructMatch(pattern(_ANY_ALIPHATIC_AMINE)):
        return "a sulfonyl halide beside an aliphatic amine of its own (it sulfonylates or quaternises itself)"
    if mol.HasSubstructMatch(pattern(_SULFONYL_NITRO)):
        return "a sulfonyl nitro compound (R-SO2-NO2: no such building block)"
    if mol.HasSubstructMatch(pattern(_CH2_CYCLOPROPENE)):
        return "a cyclopropene with a ring CH2 (it dimerises and polymerises)"
    if _anti_bredt(mol):
        return "a double bond at a bridgehead of a small bicycle or cage (Bredt's rule)"
    if mol.HasSubstructMatch(pattern(_ACYL_BORON)):
        return "an acylboronic acid or ester (not isolable: it is made and kept as a trifluoroborate or MIDA ester)"
    return None


def unisolable_reactant_problem(proposal: Proposal) -> str | None:
    """A reactant that is no isolable compound, whether a building block or an intermediate another step
    makes: the step cannot take it (and the step that would make it makes nothing a chemist can use)."""
    for mol in proposal.reactants:
        problem = isolable_problem(mol)
        if problem:
            return f"a reactant that is no isolable compound: {problem}"
    return None
