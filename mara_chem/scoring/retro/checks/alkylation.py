"""Alkylations and other substitutions at a carbon: **alkylations** need an sp3 carbon losing its leaving group;
**SN2 alkylations** no tertiary carbon (one beside an ester, acid, amide or nitrile, or carrying two aryls,
substitutes and passes), no neopentyl carbon, no trifluoroethyl halide, no electrophile that closes a ring on an
N-H of its own, no carbamate, urea or amide N-H alkylated by a secondary halide (it eliminates), no 2- or
4-hydroxyazine O-alkylated (its pyridone N is);
**alkylations of weak N nucleophiles** (amide, sulfonamide, aryl amine, azole N-H) no more nucleophilic amine or
more acidic X-H in the same molecule; **Mitsunobu** reactions no other O-H, amine N-H or acidic N-H (sulfonamide,
imide, azole) in a partner; **SN2 and Mitsunobu** steps no claimed stereocentre at the carbon they attack (the
template copies the product's configuration), no CF3/CF2 halide as electrophile; no mono-N-methylation of a
primary aliphatic amine (it goes on to the tertiary amine); **diazonium swaps** an aryl amine,
**alcohol-to-alkyl-halide swaps** an sp3 carbon (or a hydroxyazine's); **Friedel-Crafts alkylations** a cation
that forms (not beside an acceptor group, not at an enol ether or ester) on a carbocyclic arene that survives the
acid (no furan or pyrrole, no deactivated or basic ring)."""

from __future__ import annotations

from collections.abc import Iterator

from rdkit import Chem

from mara_chem.scoring.retro.checks.chem import (ACIDIC_CH, ALIPHATIC_AMINE_NH, CYCLISING_NH, DEACTIVATING_GROUP,
                                                 carbonyl, carries, matches_at, pattern, second_primary_amine, sp3)
from mara_chem.scoring.retro.checks.proposal import Proposal, halide_or_sulfonate, kept_carbons

#: alkylations by an alkyl electrophile (name prefixes): the carbon of the new bond must be sp3 and lose a group
ALKYLATIONS = ("alkylation of amines", "n-alkylation", "s-alkylation", "williamson",
               "friedel-crafts alkylation with halide")
#: SN2 alkylations (lowered name prefixes): a nucleophile displaces a halide or sulfonate from an sp3 carbon
#: by backside attack. A Friedel-Crafts alkylation goes through a cation, and a template named SN1 is none.
SN2_ALKYLATIONS = ("alkylation of amines", "n-alkylation", "s-alkylation", "williamson", "thioether nucl sub")
#: an X-H that a Mitsunobu reaction takes besides its alcohol and pronucleophile: another O-H, an aliphatic
#: amine N-H, or an N-H as acidic as a phenol (sulfonamide, imide, azole with a second N, lactam of an azine)
_MITSUNOBU_COMPETITOR = (f"[$([OX2H1]),$({ALIPHATIC_AMINE_NH}),"
                         "$([NX3;!H0]S(=O)=O),$([NX3;!H0](C=O)C=O),$([nH]~[#6]=O),$([nH]:n),$([nH]:c:n)]")
#: a nitrogen that an alkylation reaches only with a strong base or not at all: amide, carbamate, urea,
#: sulfonamide, aryl amine, azole N-H
_WEAK_N_NUCLEOPHILE = "[$([NX3](C=[O,S,N])),$([NX3]S(=O)=O),$([NX3][a]),$([nH])]"
#: what reacts before such a nitrogen: any aliphatic amine (a tertiary one is quaternised), an O-H, a more
#: acidic N-H (sulfonamide, imide, azole with a second N)
_ALKYLATED_FIRST = ("[$([NX3;+0;!$(N[a]);!$(N[#6]=[#7,#8,#16]);!$(N[#16,#15]);!$(N[N,O]);!$(NC#N)]),$([OX2H1]),"
                    "$([NX3;!H0]S(=O)=O),$([NX3;!H0](C=O)C=O),$([nH]:n),$([nH]:c:n)]")
#: a carbamate, urea or amide N-H (an imide's or a sulfonyl amide's is more acidic, and its anion softer)
_ACYL_NH = "[NX3;!H0;!$(N(C=O)[CX3]=O);!$(NS(=O)=O)][CX3](=[OX1])[#6,#7,#8]"


def alkylation_problem(proposal: Proposal) -> str | None:
    """An alkylation at its new bond: an sp3 carbon that loses its leaving group (an acyl carbon is acylated)."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            atom = proposal.atom(c)
            if atom.GetSymbol() == "C" and atom.GetHybridization() == Chem.HybridizationType.SP3 \
                    and proposal.leaving(c):
                return None
    return "alkylation without an sp3 carbon that loses a leaving group at the new bond"


def mitsunobu_problem(proposal: Proposal) -> str | None:
    """A Mitsunobu reaction takes the most acidic X-H and any other alcohol: the reacting alcohol and
    pronucleophile must be the partners' only O-H, amine N-H and acidic N-H (naproxen's phenol beside its
    acid is esterified, paroxetine's piperidine N-H and carvedilol's amino alcohol react instead)."""
    reacting = set(proposal.centre)
    for end in proposal.centre:
        reacting.update((end[0], nb.GetIdx()) for nb in proposal.leaving(end))
    competitor = pattern(_MITSUNOBU_COMPETITOR)
    for i, mol in enumerate(proposal.reactants):
        for (atom,) in mol.GetSubstructMatches(competitor):
            if (i, atom) not in reacting:
                return ("a Mitsunobu reaction beside another O-H, amine N-H or acidic N-H in a partner "
                        "(that one reacts too: protect it)")
    return None


def mitsunobu_stereocentre_problem(proposal: Proposal) -> str | None:
    """A Mitsunobu step whose carbinol carbon is a stereocentre the product claims: the template copies that
    configuration onto the alcohol, and the reaction inverts it (reboxetine's and crizotinib's aryl ethers
    written from alcohols of their own configuration). Some Mitsunobu templates map the ether oxygen to the
    alcohol and cut the phenol's C-O bond instead, so the carbinol is found beside the new bond's oxygen or
    nitrogen in the product, not only at the reaction centre."""
    for a, b in proposal.formed_bonds:
        for end in (a, b):
            made = proposal.product_atom(proposal.atom(end))
            if made.GetSymbol() not in ("O", "N", "S"):
                continue
            for carbon in made.GetNeighbors():
                if sp3(carbon) and carbon.GetChiralTag() != Chem.ChiralType.CHI_UNSPECIFIED:
                    return ("a Mitsunobu step claiming a defined stereocentre at its carbinol carbon (the template "
                            "copies the configuration; the reaction inverts it)")
    return None


def weak_n_alkylation_problem(proposal: Proposal) -> str | None:
    """An alkylation or methylation at an amide, sulfonamide, aryl amine or azole N-H: its molecule must not
    carry a more nucleophilic amine or a more acidic X-H elsewhere, which takes the electrophile first
    (rivastigmine's dimethylamine is quaternised, probenecid's acid is esterified, tofacitinib's pyrrole N-H
    and losartan's tetrazole are alkylated)."""
    for a, b in proposal.formed_bonds:
        for n in (a, b):
            atom = proposal.atom(n)
            if atom.GetSymbol() != "N" or not atom.GetTotalNumHs():
                continue
            mol = proposal.reactants[n[0]]
            if not matches_at(mol, _WEAK_N_NUCLEOPHILE, n[1]):
                continue
            if carries(mol, _ALKYLATED_FIRST, n[1]):
                return ("an alkylation at an amide, sulfonamide, aryl amine or azole N-H beside a more "
                        "nucleophilic amine or more acidic X-H in its molecule (that one reacts first)")
    return None


def _sn2_ends(proposal: Proposal) -> Iterator[tuple[tuple[int, int], tuple[int, int]]]:
    """Each new bond between two reactants from a nucleophile to an sp3 carbon that loses a halide or sulfonate
    there: (nucleophile end, carbon end). A ring the step closes on one molecule is left out."""
    for a, b in proposal.formed_bonds:
        for n, c in ((a, b), (b, a)):
            if n[0] != c[0] and sp3(proposal.atom(c)) and halide_or_sulfonate(proposal, c):
                yield n, c


#: a carbonyl carbon of an ester, acid or amide (not a ketone's or aldehyde's)
_ACID_DERIVATIVE_CARBON = "[CX3](=O)[O,N]"


def hindered_sn2_problem(proposal: Proposal) -> str | None:
    """An SN2 step at a carbon a nucleophile cannot reach from the back: a tertiary carbon (tert-butyl chloride
    "etherifying" a carbamic acid for sulfamethoxazole, thalidomide, lenalidomide), or a CH2 beside a quaternary
    carbon (neopentyl), or a CH2 beside a CF3 group with a halide leaving (the fluorines slow SN2 some 10^4-fold:
    lansoprazole's trifluoroethyl ether is made from trifluoroethanol, or with the triflate, which passes). Left
    alone: a tertiary carbon beside an ester, acid, amide or nitrile (phenoxides displace 2-bromoisobutyrates: the
    fibrates' ethers are made so; a tertiary alpha-halo ketone is not, an amine adds to its carbonyl: ketamine's
    2-chloro-2-arylcyclohexanone), and one carrying two or three aryl groups, which ionises to its stabilised
    cation and substitutes by SN1 (trityl chloride N-tritylates imidazole for clotrimazole and protects
    alcohols)."""
    for _, c in _sn2_ends(proposal):
        carbons = kept_carbons(proposal, c)
        if len(carbons) >= 3:
            activated = any(matches_at(proposal.reactants[c[0]], _ACID_DERIVATIVE_CARBON, nb.GetIdx())
                            or any(b.GetBondType() == Chem.BondType.TRIPLE for b in nb.GetBonds()) for nb in carbons)
            if activated or sum(nb.GetIsAromatic() for nb in carbons) >= 2:
                continue
            return ("an SN2 alkylation at a tertiary carbon (no backside attack: the base eliminates to the alkene; "
                    "a tertiary ether or amine is made through the cation)")
        if any(nb.GetSymbol() in ("Cl", "Br", "I") for nb in proposal.leaving(c)) \
                and any(matches_at(proposal.reactants[c[0]], "[CX4](F)(F)F", nb.GetIdx()) for nb in carbons):
            return ("an SN2 alkylation with a 2,2,2-trifluoroethyl halide (the CF3 group slows SN2 some 10^4-fold: "
                    "trifluoroethyl ethers and amines are made from the triflate or trifluoroethanol)")
        if len(carbons) == 1 and sp3(carbons[0]) \
                and sum(nb.GetSymbol() == "C" for nb in carbons[0].GetNeighbors()) == 4:
            return ("an SN2 alkylation at a neopentyl carbon (the quaternary carbon beside it blocks backside attack: "
                    "some 10^5 times slower than at an ethyl carbon)")
    return None


def acyl_n_secondary_problem(proposal: Proposal) -> str | None:
    """An N-alkylation of a carbamate, urea or amide N-H by a secondary alkyl halide or sulfonate: that N-H
    (pKa 17-25) needs a strong base, and a secondary electrophile then eliminates (carisoprodol's carbamate
    "isopropylated" with 2-chloropropane; glibenclamide's urea with a cyclohexyl mesylate). A primary
    electrophile, and an amine nitrogen, are left to the other rules."""
    for n, c in _sn2_ends(proposal):
        if proposal.atom(n).GetSymbol() == "N" and len(kept_carbons(proposal, c)) == 2 \
                and matches_at(proposal.reactants[n[0]], _ACYL_NH, n[1]):
            return ("an N-alkylation of a carbamate, urea or amide N-H by a secondary alkyl halide or sulfonate "
                    "(a weak nucleophile under a strong base: the electrophile eliminates)")
    return None


#: templates that replace an O-H by a halide (lowered name prefixes)
ALCOHOL_TO_HALIDE = ("alcohol to chloride", "alkyl chlorides from alcohols", "alkyl bromides from alcohols",
                     "alkyl iodides from alcohols", "pbr3 and alcohol", "appel reaction")
#: a ring carbon whose O-H is an azinone's (a 2- or 4-pyridone, a pyrimidinone): beside a ring N, or para to
#: one in a six-membered ring
_AZINONE_CARBON = "[c;$(c(O)n),$(c1(O)ccncc1)]"


def reactant_carbon_problem(proposal: Proposal, lowered: str) -> str | None:
    """Substitutions that exist on one kind of carbon only: a diazonium replacement (Sandmeyer, Balz-Schiemann)
    of an aryl amine, an alcohol-to-alkyl-halide swap (SOCl2, PBr3, HX, Appel) at an sp3 carbon (a phenol is no
    alcohol: etoricoxib's 5-chloropyridine "from" a 3-hydroxypyridine) or at the carbon of a 2- or 4-hydroxyazine,
    a pyridone tautomer that POCl3, PCl5 or SOCl2-DMF chlorinates, an SN2
    alkylation at a carbon without two fluorines and no H (CF3Cl alkylates nothing); and no SN2 or Mitsunobu
    step at a stereocentre it claims (tamsulosin's (R)-amine was written from the (R)-chloride)."""
    for c in sorted(proposal.centre):
        atom = proposal.atom(c)
        if atom.GetSymbol() != "C" or not proposal.leaving(c):
            continue
        lost = {nb.GetSymbol() for nb in proposal.leaving(c)}
        if lowered.startswith("primary amine to") and "N" in lost and not atom.GetIsAromatic():
            return "an aliphatic primary amine replaced by a halogen (diazonium chemistry needs an aryl amine)"
        if lowered.startswith(ALCOHOL_TO_HALIDE) and "O" in lost and not sp3(atom) \
                and not (any(reagent in lowered for reagent in ("pocl3", "pcl5", "socl2"))
                         and matches_at(proposal.reactants[c[0]], _AZINONE_CARBON, c[1])):
            return "an alcohol-to-alkyl-halide swap at an aryl or vinyl carbon (a phenol is no alcohol)"
        fluorines = sum(nb.GetSymbol() == "F" for nb in atom.GetNeighbors())
        if lowered.startswith(ALKYLATIONS) and fluorines >= 2 and atom.GetTotalNumHs() == 0:
            return "an SN2 alkylation at a perfluorinated carbon (CF3 and CF2 halides do not alkylate)"
        made = proposal.product_atom(atom)
        if (lowered.startswith(ALKYLATIONS) or "mitsunobu" in lowered) and sp3(atom) \
                and made.GetChiralTag() != Chem.ChiralType.CHI_UNSPECIFIED:
            return ("a substitution claiming a defined stereocentre at the carbon it attacks (the template copies "
                    "the product's configuration: SN2 and Mitsunobu invert it, SN1 scrambles it)")
    return None


def primary_amine_methylation_problem(proposal: Proposal) -> str | None:
    """A primary aliphatic amine given one methyl (by a methyl halide, sulfonate or sulfate, or by formaldehyde
    and a reductant): the N-methylamine it makes is the better nucleophile, or the faster-condensing amine, so
    the product is a mixture of the secondary and tertiary amines and the quaternary salt (rivastigmine's
    rerouted primary amine methylated twice with methyl mesylate). A mono-N-methylamine is made through its
    formamide or carbamate, reduced. Left alone: a secondary amine methylated to the tertiary one (imipramine's,
    venlafaxine's), a primary amine methylated twice in one step (Eschweiler-Clarke), and methanol by borrowing
    hydrogen, which some catalysts stop at the mono-methyl amine (ephedrine's recorded route, and sertraline's,
    read as valid with the over-methylation reservation)."""
    for a, b in proposal.formed_bonds:
        for n, c in ((a, b), (b, a)):
            nitrogen = proposal.atom(n)
            if n[0] == c[0] or nitrogen.GetSymbol() != "N" or nitrogen.GetTotalNumHs() != 2 \
                    or not matches_at(proposal.reactants[n[0]], ALIPHATIC_AMINE_NH, n[1]):
                continue
            if any(nb.GetSymbol() == "O" and nb.GetTotalNumHs() for nb in proposal.leaving(c)):
                continue  # methanol, by borrowing hydrogen
            methyl = proposal.product_atom(proposal.atom(c))
            if methyl.GetSymbol() == "C" and methyl.GetDegree() == 1 and methyl.GetTotalNumHs() == 3 \
                    and proposal.product_atom(nitrogen).GetTotalNumHs() == 1:
                return ("a mono-N-methylation of a primary aliphatic amine (the N-methylamine is methylated again: "
                        "a mixture of secondary, tertiary amine and quaternary salt)")
    return None


#: what takes methyl iodide before such a carbanion forms, or quenches it: an aliphatic amine N-H, an alcohol or
#: phenol O-H, an imide, sulfonamide or azole N-H (more acidic than the C-H: ethosuximide's succinimide), a tertiary
#: aliphatic amine (quaternised: methadone's dimethylamine)
_C_METHYLATION_COMPETITOR = (f"[$({ALIPHATIC_AMINE_NH}),$([OX2H1][CX4]),$([OX2H1]c),$([NX3;H1]([CX3]=O)[CX3]=O),"
                             "$([NX3;!H0]S(=O)=O),$([nH]),"
                             "$([NX3;H0;+0;!$(N[a]);!$(N[#6]=[#7,#8,#16]);!$(N[#16,#15]);!$(N[N,O]);!$(NC#N)])]")
#: a carbon whose cation a Friedel-Crafts alkylation cannot form (an alkyl halide's, or an alkene's that the
#: arene bonds to): beside a carbonyl, nitrile, nitro, sulfonyl or CF3 group
_CATION_DESTABILISED = "[C;$(C[CX3]=O),$(CC#N),$(C[N+](=O)[O-]),$(CS(=O)=O),$(CC(F)(F)F)]"


def c_methylation_problem(proposal: Proposal) -> str | None:
    """A methylating agent (methyl iodide, dimethyl sulfate or carbonate) methylates a C-H only as a carbanion:
    an enolate or its like, alpha to a carbonyl, imine, nitrile, nitro or sulfonyl group, not at a bridgehead
    (no enolate there) and in a molecule without an amine N-H, alcohol or phenol O-H, which is methylated or
    quenches the base first (a free acid's dianion is fine). rxn-insight's "Methylation with MeI", "with DMS" and "C-methylation" templates write any CH3, CH2, CH or
    aryl C-H as the nucleophile: menthol, coniine or an N-ethyl group "from" their demethyl analogues."""
    for a, b in proposal.formed_bonds:
        for nucleophile, methyl in ((a, b), (b, a)):
            if proposal.atom(nucleophile).GetSymbol() != "C" or proposal.leaving(nucleophile) \
                    or proposal.atom(methyl).GetSymbol() != "C" or not proposal.leaving(methyl):
                continue  # not a C-H taking a methyl from its leaving group (a cross-coupling's carbon leaves too)
            atom = proposal.atom(nucleophile)
            mol = proposal.reactants[nucleophile[0]]
            if atom.GetIsAromatic():
                return "a C-methylation of an aryl C-H by a methylating agent (no arene is methylated that way)"
            if not matches_at(mol, ACIDIC_CH, nucleophile[1]):
                return ("a C-methylation at a C-H that no base removes (it needs an enolate: "
                        "alpha to a carbonyl, nitrile, nitro or sulfonyl group)")
            if mol.GetRingInfo().NumAtomRings(nucleophile[1]) > 1 and _bridgehead(mol, nucleophile[1]):
                return "an enolate methylation at a bridgehead carbon (no enolate forms there)"
            if carries(mol, _C_METHYLATION_COMPETITOR, besides=-1):
                return ("an enolate methylation beside an amine, an alcohol or phenol O-H or an acidic N-H "
                        "(methylated or quaternised first, or it quenches the base)")
    return None


def _bridgehead(mol: Chem.Mol, atom: int) -> bool:
    """The atom is shared by two rings that share more than one bond (a bridged bicycle, as in camphor)."""
    rings = [set(r) for r in mol.GetRingInfo().AtomRings() if atom in r]
    return any(len(x & y) > 2 for i, x in enumerate(rings) for y in rings[i + 1:])


#: an arene ring a Friedel-Crafts alkylation does not reach: one with a ring nitrogen (azoles and azines bind
#: the Lewis acid), or carrying a sulfonyl, carbonyl, nitrile, nitro or CF3 group (deactivated)
_FC_UNREACHABLE_RING_ATOM = ("[c;$(c1aaaa1),$(c1aaaaa1);$(c~[n,o,s]),$(c~a~[n,o,s]),$(c~a~a~[n,o,s]),"
                             + ",".join(f"$(c{':a' * k}-{DEACTIVATING_GROUP})" for k in range(4)) + "]")
#: an alkyl halide carbon that ionises: secondary or tertiary, benzylic, allylic, or beside O, S or N
_FC_IONISABLE = "[CX4;$([CX4;H0,H1](C)C),$(C[a]),$(CC=C),$(C[O,S,N])]"


def friedel_crafts_arene_problem(proposal: Proposal) -> str | None:
    """A Friedel-Crafts alkylation reaches a carbocyclic, undeactivated arene through a cation that forms: not a
    heteroarene ring (imidazole, pyrazole, pyridine: losartan's, sildenafil's) or a ring carrying a sulfonyl,
    carbonyl, nitrile, nitro or CF3 group (glibenclamide's benzenesulfonylurea), and not from a primary alkyl
    halide, whose cation does not form (it rearranges or does not react: sitagliptin's, pioglitazone's)."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            mol = proposal.reactants[c[0]]
            atom = proposal.atom(c)
            if atom.GetIsAromatic() and matches_at(mol, _FC_UNREACHABLE_RING_ATOM, c[1]):
                return ("a Friedel-Crafts alkylation of a heteroarene or a deactivated arene (it binds the Lewis "
                        "acid or does not react)")
            if not atom.GetIsAromatic() and halide_or_sulfonate(proposal, c) and not matches_at(mol, _FC_IONISABLE,
                                                                                               c[1]):
                return "a Friedel-Crafts alkylation with a primary alkyl halide (its cation does not form)"
    return None


def cyclopropyl_sn2_problem(proposal: Proposal) -> str | None:
    """No SN2 at a cyclopropyl carbon (nevirapine's N-cyclopropyl 'from' cyclopropyl mesylate): the ring forbids
    the backside approach; N-cyclopropyl groups are made from cyclopropylamine."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            if halide_or_sulfonate(proposal, c) and proposal.reactants[c[0]].GetRingInfo().IsAtomInRingOfSize(c[1], 3):
                return "an SN2 substitution at a cyclopropyl carbon (no backside approach)"
    return None


def friedel_crafts_cation_problem(proposal: Proposal) -> str | None:
    """A Friedel-Crafts alkylation goes through a cation at the carbon that bonds to the arene (from the alkyl
    halide, or the protonated alkene), which a carbonyl, nitrile, nitro, sulfonyl or CF3 group beside it does not
    let form (felbinac's CH2COOH 'from' bromoacetic acid, primidone's quaternary carbon 'from' an alkylidene
    malonamide)."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            if proposal.atom(c).GetIsAromatic():
                continue
            if matches_at(proposal.reactants[c[0]], _CATION_DESTABILISED, c[1]):
                return ("a Friedel-Crafts alkylation at a carbon beside a carbonyl, nitrile, nitro, sulfonyl or "
                        "CF3 group (its cation does not form)")
    return None


#: an alkene carbon of an enol, enol ether or enol ester (enol lactone, enol carbamate), or the other carbon of its
#: C=C: the carbon of the alkene a Friedel-Crafts alkylation would bond to the arene
_ENOL_ALKENE_CARBON = "[CX3;$([CX3](-[OX2])=[CX3]),$([CX3]=[CX3]-[OX2])]"


def friedel_crafts_enol_problem(proposal: Proposal) -> str | None:
    """An enol ether or enol ester is no Friedel-Crafts alkylating agent: the acid hydrolyses it to the carbonyl
    compound or polymerises it (vinyl ethers are the classic monomers of cationic polymerisation), and the
    alpha-aryl ether or ester it would give is a benzylic one that ionises again (salvinorin A's 3-furyl 'from'
    furan and its enol lactone, felbamate's 2-phenylpropanediol 'from' an enol carbamate)."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            if not proposal.atom(c).GetIsAromatic() \
                    and matches_at(proposal.reactants[c[0]], _ENOL_ALKENE_CARBON, c[1]):
                return ("a Friedel-Crafts alkylation at an enol ether or enol ester alkene (the acid hydrolyses or "
                        "polymerises it: no alkylating cation)")
    return None


#: a carbon of a furan or pyrrole ring (N-H or N-substituted), not fused to another ring
_FC_ACID_SENSITIVE_RING_ATOM = ("[c;R1;$([c;R1]1[o,nX3;R1][c;R1][c;R1][c;R1]1),"
                                "$([c;R1]1[c;R1][o,nX3;R1][c;R1][c;R1]1)]")


def friedel_crafts_acid_sensitive_problem(proposal: Proposal) -> str | None:
    """A furan or pyrrole is not alkylated under Friedel-Crafts conditions: the Lewis or protic acid protonates
    the ring, which polymerises (furan resins, pyrrole red), and what alkylates is polyalkylated. They are
    acylated under mild Lewis acids, and alkylated through their metalated or Michael-type chemistry; fused
    rings (indole, benzofuran) are left to ``friedel_crafts_arene_problem``."""
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            if proposal.atom(c).GetIsAromatic() \
                    and matches_at(proposal.reactants[c[0]], _FC_ACID_SENSITIVE_RING_ATOM, c[1]):
                return ("a Friedel-Crafts alkylation of a furan or pyrrole (acid-sensitive: the ring polymerises "
                        "under the Lewis acid)")
    return None


def dehydrative_ether_problem(proposal: Proposal) -> str | None:
    """An ether from two alcohols by acid: the partners must carry no other O-H or amine N-H, which react
    or are protonated in their place (metoprolol's methyl ether 'from' its amino diol and methanol)."""
    reacting = set(proposal.centre)
    for end in proposal.centre:
        reacting.update((end[0], nb.GetIdx()) for nb in proposal.leaving(end))
    competitor = pattern(f"[$([OX2H1]),$({ALIPHATIC_AMINE_NH})]")
    for i, mol in enumerate(proposal.reactants):
        if any((i, atom) not in reacting for (atom,) in mol.GetSubstructMatches(competitor)):
            return "an ether from two alcohols beside another O-H or amine N-H in a partner (it reacts too)"
    return None


def diazo_n_alkylation_problem(proposal: Proposal) -> str | None:
    """A diazo compound alkylates an amide at its oxygen if at all (the template's name), never at the amide
    N-H, which is what "O-alkylation of amides with diazo compounds" writes."""
    for a, b in proposal.formed_bonds:
        if "N" in (proposal.atom(a).GetSymbol(), proposal.atom(b).GetSymbol()):
            return "an amide N-alkylation by a diazo compound (a diazo compound does not alkylate an amide N-H)"
    return None


#: a carbon from which an amine displaces an alkoxy group: a vinylogous ester or imidate carbon (an
#: ethoxymethylene malonate, a 3-ethoxy enone), or an aryl carbon ortho or para to a ring N or to a nitro,
#: cyano, carbonyl or sulfonyl group (an SNAr)
_ALKOXY_DISPLACEABLE = ("[$([C;!a]=C[C,S]=O),$([C;!a]=CC#N),$([C;!a]=[N,O]),$(c:n),$(c:c:c:n),"
                        "$(c:c[$([N+](=O)[O-]),$(C#N),$(C=O),$(S(=O)=O)]),"
                        "$(c:c:c:c[$([N+](=O)[O-]),$(C#N),$(C=O),$(S(=O)=O)])]")


def alkoxy_displacement_problem(proposal: Proposal) -> str | None:
    """An amine displaces an alkoxy group only from an activated carbon (``_ALKOXY_DISPLACEABLE``), and an
    amide N-H displaces none (tocainide's anilide 'from' 2,6-dimethylanisole and alaninamide)."""
    for a, b in proposal.formed_bonds:
        for n, c in ((a, b), (b, a)):
            if proposal.atom(n).GetSymbol() != "N" or proposal.atom(c).GetSymbol() != "C" \
                    or not any(nb.GetSymbol() == "O" for nb in proposal.leaving(c)):
                continue
            if matches_at(proposal.reactants[n[0]], "[NX3]-[$([CX3]=[O,S]),$(S(=O)=O)]", n[1]):
                return "an alkoxy group displaced by an amide or sulfonamide N-H (no nucleophile for it)"
            if not matches_at(proposal.reactants[c[0]], _ALKOXY_DISPLACEABLE, c[1]):
                return ("an alkoxy group displaced by an amine from an unactivated carbon (it needs a vinylogous "
                        "ester, an imidate or an SNAr-activated arene)")
    return None


#: the O-H of a 2- or 4-hydroxyazine (first atom): the molecule is its pyridone tautomer
_HYDROXYAZINE_OH = ("[OX2H1][c;r6]:[n;r6]", "[OX2H1][c;r6]1:[c;r6]:[c;r6]:[n;r6]:[c;r6]:[c;r6]1")


def pyridone_o_alkylation_problem(proposal: Proposal) -> str | None:
    """An SN2 O-alkylation of a 2- or 4-hydroxypyridine (or pyrimidine, quinoline): the compound is its pyridone,
    and an alkyl halide under base takes the ring N (rabeprazole's 4-pyridinol "etherified" with
    3-methoxypropyl chloride; the published route displaces a 4-chloro- or 4-nitropyridine N-oxide with the
    alcohol). A silver salt or a Mitsunobu reaction is another template."""
    for n, _ in _sn2_ends(proposal):
        if any(matches_at(proposal.reactants[n[0]], smarts, n[1]) for smarts in _HYDROXYAZINE_OH):
            return "an SN2 O-alkylation of a 2- or 4-hydroxyazine (its pyridone N is alkylated instead)"
    return None


def diamine_alkylation_problem(proposal: Proposal) -> str | None:
    """An SN2 N-alkylation of an amine that carries a second, different primary aliphatic amine: the
    electrophile takes either (lisinopril's lysyl-proline alkylated at its alpha-NH2 with the epsilon-NH2 free:
    the published route protects it). A symmetric diamine, used in excess, passes."""
    for n, c in _sn2_ends(proposal):
        if proposal.atom(n).GetSymbol() == "N" and second_primary_amine(proposal.reactants[n[0]], n[1]):
            return ("an N-alkylation of an amine that carries a second, different primary amine (the electrophile "
                    "takes either: protect one)")
    return None


def distant_amine_electrophile_problem(proposal: Proposal) -> str | None:
    """An SN2 electrophile must not carry a free aliphatic amine four or more bonds from the carbon that loses
    its leaving group: the amine of one molecule alkylates the next (fluvoxamine's aminoethyl oxime ether with
    a chlorobutyl chain; crizotinib's 4-chloropiperidine with its ring N-H free, three bonds across the ring
    from its leaving group). A 2- or 3-haloalkylamine reacts through its aziridinium or azetidinium ion, or an
    epoxide beside it, at the same carbons (mexiletine's 2-chloropropylamine, timolol's chlorohydrin), and is
    left to the other rules. An aryl amine N-H four or five bonds away closes a pyrrolidine or piperidine on
    its own chain (chloroquine's 4-chloro-1-methylbutyl aminoquinoline gives the N-aryl-2-methylpyrrolidine)."""
    amine, any_amine = pattern(ALIPHATIC_AMINE_NH), pattern(CYCLISING_NH)
    for a, b in proposal.formed_bonds:
        for c in (a, b):
            if proposal.atom(c).GetSymbol() != "C" or not halide_or_sulfonate(proposal, c):
                continue
            mol = proposal.reactants[c[0]]
            distances = Chem.GetDistanceMatrix(mol)
            ring_of = [set(r) for r in mol.GetRingInfo().AtomRings()]
            if any(distances[c[1]][n] >= 4 or (distances[c[1]][n] == 3 and any({c[1], n} <= r for r in ring_of))
                   for (n,) in mol.GetSubstructMatches(amine)):
                return ("an alkylation whose electrophile carries a free amine far from its leaving group or "
                        "across its ring (one molecule alkylates the next)")
            if any(distances[c[1]][n] in (4, 5) for (n,) in mol.GetSubstructMatches(any_amine)):
                return ("an alkylation whose electrophile carries an amine N-H four or five bonds from its leaving "
                        "group (it closes a pyrrolidine or piperidine on itself)")
    return None
