"""Functional-group tolerance, one table per reaction class (``TOLERANCE``): which groups a class does not tolerate
beside the one it reacts at. **O-alkylations** (Williamson, O-methylation) no primary or secondary aliphatic amine
and no more acidic X-H beside their O-H (a free acid, a tetrazole, an imide, a pyrimidinone N-H; a phenol or
sulfonamide beside an aliphatic alcohol) and no electrophile that closes a lactone on itself; **O-methylations** also
no tertiary amine (quaternised); **ketone-to-acid oxidations** (haloform) no boronic acid or ester on the substrate;
**Chan-Lam O-arylations** no free carboxylic acid in either partner; **amide reductions** no second amide, no imide
or N-acyl carbamate (the hydride cleaves it), aldehyde, ketone or free acid on the substrate; **ester
saponifications**, **nitrile and amide hydrolyses** and haloform oxidations no N-acyl azole on the substrate
(hydroxide cleaves it too), and amide hydrolyses no ester, imide or second primary or secondary amide; **Minisci
alkylations** no alkene in either partner (the radical adds to it); **nitrile reductions** no oxime, hydrazone,
imine, aldehyde, ketone, azide or second nitrile on the substrate (the reductant takes it first or too)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rdkit import Chem

from mara_chem.scoring.retro.checks.chem import ALIPHATIC_AMINE_NH, CARBOXYLIC_OH, carbonyl, carries, matches_at, sp3
from mara_chem.scoring.retro.checks.proposal import Proposal, loses_metal


@dataclass(frozen=True)
class Site:
    """Where a tolerance table reads one step: ``substrate`` is the reacting atom whose molecule must tolerate
    the conditions (a nucleophile's O-H, the carbonyl carbon a ketone oxidation cleaves), ``partner`` the atom
    it bonds to (None for a one-reactant step), ``kind`` what the substrate atom is (see ``Intolerance``)."""

    substrate: tuple[int, int]
    partner: tuple[int, int] | None
    kind: str


#: where an ``Intolerance`` looks: the substrate's molecule, the partner's molecule, either of the two (other
#: than the reacting atoms themselves), or the partner atom itself (a group it carries at that atom)
WHERES = ("substrate", "partner", "either", "partner atom")


@dataclass(frozen=True)
class Intolerance:
    """A group a reaction class does not tolerate: ``smarts`` (its first atom is the group's reacting atom, or
    with ``where="partner atom"`` the atom the substrate bonds to), why in a few words, the substrate kinds it
    outcompetes or is destroyed beside (``alcohol``: an O-H on an sp3 carbon, ``phenol``: on an aryl or vinyl
    carbon or a heteroatom, ``acid``: on a carbonyl or sulfonyl, ``amine``: an N-H, ``ketone``: a carbonyl
    carbon that loses a carbon, ``amide``: an amide carbonyl carbon a hydride reduces or water hydrolyses,
    ``ester``: an ester oxygen that loses its alkyl, ``nitrile``: a nitrile carbon hydrated or hydrolysed,
    ``heteroarene``: the ring carbon a radical attacks), and where it is looked for (``WHERES``)."""

    smarts: str
    reason: str
    against: frozenset[str]
    where: str = "substrate"

    def __post_init__(self) -> None:
        if self.where not in WHERES:
            raise ValueError(f"where must be one of {WHERES}: {self.where}")


@dataclass(frozen=True)
class Tolerance:
    """One reaction class's table: ``what`` the class is called in a refusal, ``roles`` the words for its
    substrate and partner, ``sites`` where a step of the class reacts, ``groups`` what it does not tolerate."""

    what: str
    roles: tuple[str, str]
    sites: Callable[[Proposal], Iterator[Site]]
    groups: tuple[Intolerance, ...]


_ANY_O_NUCLEOPHILE = frozenset({"alcohol", "phenol", "acid"})
_ALCOHOL_OR_PHENOL = frozenset({"alcohol", "phenol"})
#: what a base-mediated O-alkylation (Williamson ether synthesis, O-methylation with MeI or dimethyl sulfate)
#: does not tolerate: an X-H more acidic than the intended O-H is deprotonated first and takes the
#: electrophile (naproxen's, indomethacin's and febuxostat's acid is esterified, pioglitazone's
#: thiazolidinedione and sildenafil's pyrimidinone N-H are alkylated), and an electrophile with its own free
#: acid four or five bonds away closes a lactone (gemfibrozil's 5-chloro acid). The twin of the Mitsunobu rule,
#: ordered by acidity; a group less acidic than the nucleophile (an alcohol beside a phenol) is tolerated.
O_ALKYLATION_TOLERANCE: tuple[Intolerance, ...] = (
    Intolerance(CARBOXYLIC_OH, "a free carboxylic acid (pKa 4-5: its carboxylate is alkylated to the ester)",
                _ALCOHOL_OR_PHENOL),
    Intolerance("[$([nH]1nnnc1),$([nH]1nncn1)]", "a tetrazole N-H (pKa 5: alkylated first)", _ALCOHOL_OR_PHENOL),
    Intolerance("[#7X3;H1]([#6]=[O,S])[#6]=O",
                "an imide N-H (thiazolidinedione, hydantoin, glutarimide; pKa 6-10: alkylated first)",
                _ALCOHOL_OR_PHENOL),
    Intolerance("[nH][#6]=O", "a pyrimidinone or pyridone N-H (pKa 8-11: N-alkylated as readily as a phenol)",
                _ALCOHOL_OR_PHENOL),
    Intolerance(ALIPHATIC_AMINE_NH, "a primary or secondary aliphatic amine (more nucleophilic than the O-H: "
                "alkylated first)", _ALCOHOL_OR_PHENOL),
    Intolerance("[OX2H1]c", "a phenol (pKa 10: deprotonated before an aliphatic alcohol, pKa 16)",
                frozenset({"alcohol"})),
    Intolerance("[#7X3;!H0]S(=O)=O", "a sulfonamide N-H (pKa 10: deprotonated before an aliphatic alcohol)",
                frozenset({"alcohol"})),
    Intolerance("[CX4;$([CX4]~[#6]~[#6][CX3](=O)[OX2H1]),$([CX4]~[#6]~[#6]~[#6][CX3](=O)[OX2H1])]",
                "a free acid four or five bonds from the carbon it attacks (it closes a gamma- or delta-lactone)",
                _ANY_O_NUCLEOPHILE, where="partner atom"),
)
#: what a methylation of an O-H with dimethyl sulfate or methyl iodide does not tolerate beside it, on top of the
#: O-alkylations' table: a tertiary aliphatic amine, which these reagents quaternise as fast as the phenolate
#: reacts (trimethobenzamide's and venlafaxine's dimethylamino groups)
O_METHYLATION_TOLERANCE: tuple[Intolerance, ...] = (
    Intolerance("[NX3;H0;+0;!$(N[a]);!$(N[#6]=[#7,#8,#16]);!$(N[#16,#15]);!$(N[N,O]);!$(NC#N)]",
                "a tertiary aliphatic amine (quaternised by the methylating agent)", _ALCOHOL_OR_PHENOL),
)
#: what a hydrolysis or a reaction in aqueous base (an ester saponification, a nitrile hydrated by basic hydrogen
#: peroxide or hydrolysed to its acid, an amide hydrolysed to its acid, a haloform oxidation) does not tolerate on
#: its substrate: an N-acyl azole (an N-aroyl indole, an N-acyl pyrrole, imidazole or pyrazole, an N-Boc indole):
#: the azole anion is a good leaving group, so hydroxide or hydroperoxide cleaves that amide as fast as the ester,
#: nitrile or ketone reacts, and long before an ordinary amide hydrolyses (indomethacin's
#: N-(4-chlorobenzoyl)indole, which is why its published route uses a tert-butyl ester and removes it with acid).
#: A carbonyl RDKit writes aromatic (a xanthine's, a benzimidazolone's) belongs to the ring system and is no such
#: amide.
_N_ACYL_AZOLE = Intolerance("[CX3](=O)[nX3;r5]",
                             "an N-acyl azole (an N-acyl indole, pyrrole or imidazole: hydroxide cleaves it too)",
                             frozenset({"ester", "nitrile", "ketone", "amide"}))
BASIC_HYDROLYSIS_TOLERANCE: tuple[Intolerance, ...] = (_N_ACYL_AZOLE,)

#: what the hydrolysis of an amide to its acid (6 M acid or hydroxide at reflux: an amide is the most stable acyl
#: derivative) does not tolerate on its substrate, besides the N-acyl azole: an ester, saponified or hydrolysed
#: long before, or a carbamate, hydrolysed with it (meprobamate's twin carbamates); an imide, ring-opened before;
#: a second open-chain primary or secondary amide (an anilide, an acetamide), hydrolysed under the same conditions
#: with no selectivity between the two. A free aryl amine is
#: tolerated: acid or base hydrolysis leaves it (an acetanilide is hydrolysed to its aniline so); a tertiary amide
#: or a lactam elsewhere is left alone, slower to hydrolyse than the primary or secondary amide reacting.
AMIDE_HYDROLYSIS_TOLERANCE: tuple[Intolerance, ...] = (
    _N_ACYL_AZOLE,
    Intolerance("[CX3](=O)[OX2][#6]", "an ester or carbamate (hydrolysed before an amide, or with it)",
                frozenset({"amide"})),
    Intolerance("[CX3](=O)[NX3][CX3]=O", "an imide (ring-opened or cleaved before an amide)", frozenset({"amide"})),
    Intolerance("[CX3;!R](=O)([#6])[NX3;H1,H2]",
                "a second primary or secondary amide (hydrolysed under the same conditions)", frozenset({"amide"})),
)

#: what the oxidation of a ketone to its acid (the haloform reaction: NaOCl or NaOBr, or permanganate) does not
#: tolerate on its substrate: a boronic acid or ester, which the oxidant turns into a phenol or alcohol before
#: the methyl ketone is cleaved (indomethacin's, febuxostat's and teriflunomide's rerouted boronic ketones), and
#: the N-acyl azole the aqueous base cleaves (``BASIC_HYDROLYSIS_TOLERANCE``)
KETONE_OXIDATION_TOLERANCE: tuple[Intolerance, ...] = (
    Intolerance("B[#6]", "a boronic acid or ester (the oxidant turns C-B into C-OH first)", frozenset({"ketone"})),
    _N_ACYL_AZOLE,
)

#: what a Chan-Lam O-arylation (an aryl boronic acid, copper(II), air) does not tolerate in either partner: a
#: free carboxylic acid, a better O-nucleophile at copper than an alcohol or phenol, is arylated to the aryl
#: ester (indomethacin's and febuxostat's boronic acids "etherified" beside their acid). N-arylations are left
#: alone: an amine binds the copper before a carboxylate does, and amino acids are N-arylated so.
CHAN_LAM_TOLERANCE: tuple[Intolerance, ...] = (
    Intolerance(CARBOXYLIC_OH, "a free carboxylic acid (a better O-nucleophile at copper: the aryl ester forms)",
                _ALCOHOL_OR_PHENOL, where="either"),
)


#: what the hydride reduction of an amide to its amine (LiAlH4, borane) does not tolerate on its substrate: a
#: second acyl group on the amide's nitrogen, or an imide or N-acyl carbamate elsewhere, whose activated C-N bond
#: the hydride cleaves instead (the way LiBH4 frees an Evans auxiliary: rivastigmine's N-acetyl carbamate
#: "reduced" to the N-ethyl carbamate), an aldehyde, ketone or free acid, which both hydrides reduce before an
#: amide, and a second amide or lactam (milnacipran's primary amide "reduced" beside its diethylamide). A
#: carbamate or ester elsewhere is left alone: borane reduces an amide beside a Boc group or an ester.
AMIDE_REDUCTION_TOLERANCE: tuple[Intolerance, ...] = (
    Intolerance("[NX3]([CX3]=O)[CX3]=O",
                "an imide or N-acyl carbamate or urea (the hydride cleaves its activated C-N bond instead)",
                frozenset({"amide"})),
    Intolerance("[CX3;$([CX3H1][#6]),$([CX3]([#6])[#6])]=O", "an aldehyde or ketone (reduced before the amide)",
                frozenset({"amide"})),
    Intolerance(CARBOXYLIC_OH, "a free carboxylic acid (borane and LiAlH4 reduce it before the amide)",
                frozenset({"amide"})),
    Intolerance("[CX3;$(C([#6])(=O)[NX3])]=O",
                "a second amide or lactam (LiAlH4 reduces both; borane a tertiary amide first)", frozenset({"amide"})),
)

#: what a Minisci alkylation (a nucleophilic alkyl radical from an acid or halide) does not tolerate in either
#: partner: an alkene, which the radical adds to (a Giese addition) and which, as a vinyl arene, polymerises
#: under the radical conditions (pioglitazone's 2-cyano-5-vinylpyridine)
MINISCI_TOLERANCE: tuple[Intolerance, ...] = (
    Intolerance("[CX3]=[CX3]", "an alkene (the alkyl radical adds to it; a vinyl arene polymerises)",
                frozenset({"heteroarene"}), where="either"),
)


#: what the reduction of a nitrile to its primary amine (LiAlH4, borane, H2 over Raney nickel or palladium,
#: NaBH4/CoCl2) does not tolerate on its substrate: an oxime, oxime ether or amidoxime, or a hydrazone, whose C=N
#: these reductants reduce and whose N-O or N-N bond they cleave as readily as the nitrile is reduced
#: (fluvoxamine's O-cyanomethyl oxime ether); an imine, an aldehyde or a ketone, reduced first (and the new amine
#: condenses with the carbonyl); an azide, reduced first; a second nitrile, reduced with it. Left alone: an ester,
#: amide or carbamate elsewhere (hydrogenation over Raney nickel and NaBH4/CoCl2 leave them), a nitro group
#: (borane reduces the nitrile beside it), an aryl halide, an ether, an alcohol or a sulfonamide (sotalol's).
NITRILE_REDUCTION_TOLERANCE: tuple[Intolerance, ...] = (
    Intolerance("[CX3]=[NX2]-[OX2]", "an oxime or oxime ether (its C=N is reduced and its N-O bond cleaved too)",
                frozenset({"nitrile"})),
    Intolerance("[CX3]=[NX2]-[NX3]", "a hydrazone (its C=N is reduced and its N-N bond cleaved too)",
                frozenset({"nitrile"})),
    Intolerance("[CX3;!$(C-[#7,#8,#16])]=[NX2;!$(N-[#7,#8])]", "an imine (reduced first)",
                frozenset({"nitrile"})),
    Intolerance("[CX3;$([CX3H1][#6]),$([CX3]([#6])[#6])]=O",
                "an aldehyde or ketone (reduced first; the amine condenses with it)", frozenset({"nitrile"})),
    Intolerance("[NX2]=[NX2+]=[NX1-]", "an azide (reduced first)", frozenset({"nitrile"})),
    Intolerance("[CX2]#[NX1]", "a second nitrile (reduced with it: no selectivity)", frozenset({"nitrile"})),
)


def _o_nucleophile_kind(atom: Chem.Atom) -> str:
    """``acid``, ``alcohol`` or ``phenol`` (see ``Intolerance``) for an O-H oxygen."""
    heavy = [nb for nb in atom.GetNeighbors() if nb.GetAtomicNum() > 1]
    if any(nb.GetSymbol() in ("C", "S", "P") and any(
            b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(nb).GetSymbol() == "O" for b in nb.GetBonds())
           for nb in heavy):
        return "acid"
    if heavy and all(sp3(nb) for nb in heavy):
        return "alcohol"
    return "phenol"


def _o_alkylation_sites(proposal: Proposal) -> Iterator[Site]:
    """Each new O-C bond from an O-H to a carbon that loses a leaving group: the O-H is the substrate."""
    for a, b in proposal.formed_bonds:
        for o, c in ((a, b), (b, a)):
            oxygen, carbon = proposal.atom(o), proposal.atom(c)
            if oxygen.GetSymbol() == "O" and oxygen.GetTotalNumHs() and carbon.GetSymbol() == "C" \
                    and proposal.leaving(c):
                yield Site(o, c, _o_nucleophile_kind(oxygen))


def _ketone_cleavage_sites(proposal: Proposal) -> Iterator[Site]:
    """Each carbonyl carbon at the centre that loses a carbon neighbour (a methyl ketone cleaved to its acid)."""
    for end in sorted(proposal.centre):
        atom = proposal.atom(end)
        if carbonyl(atom) and any(nb.GetSymbol() == "C" for nb in proposal.leaving(end)):
            yield Site(end, None, "ketone")


def _chan_lam_sites(proposal: Proposal) -> Iterator[Site]:
    """Each new bond from an O-H or N-H to an aryl carbon that loses its boron: the X-H is the substrate."""
    for a, b in proposal.formed_bonds:
        for x, c in ((a, b), (b, a)):
            atom = proposal.atom(x)
            if atom.GetSymbol() not in ("O", "N") or not atom.GetTotalNumHs() or not loses_metal(proposal, c, ("B",)):
                continue
            yield Site(x, c, _o_nucleophile_kind(atom) if atom.GetSymbol() == "O" else "amine")


def _amide_reduction_sites(proposal: Proposal) -> Iterator[Site]:
    """Each amide carbonyl carbon at the centre that loses its oxygen (C(=O)N reduced to CH2N)."""
    for end in sorted(proposal.centre):
        atom = proposal.atom(end)
        if carbonyl(atom) and any(nb.GetSymbol() == "N" for nb in atom.GetNeighbors()) \
                and any(nb.GetSymbol() == "O" for nb in proposal.leaving(end)):
            yield Site(end, None, "amide")


def _saponification_sites(proposal: Proposal) -> Iterator[Site]:
    """Each ester oxygen at the centre that loses its alkyl carbon (the ester O of a C(=O)O-R hydrolysed)."""
    for end in sorted(proposal.centre):
        atom = proposal.atom(end)
        if atom.GetSymbol() == "O" and any(nb.GetSymbol() == "C" for nb in proposal.leaving(end)) \
                and any(carbonyl(nb) for nb in atom.GetNeighbors()):
            yield Site(end, None, "ester")


def _amide_hydrolysis_sites(proposal: Proposal) -> Iterator[Site]:
    """Each amide carbonyl carbon at the centre that loses its nitrogen (C(=O)N hydrolysed to C(=O)OH)."""
    for end in sorted(proposal.centre):
        if carbonyl(proposal.atom(end)) and any(nb.GetSymbol() == "N" for nb in proposal.leaving(end)):
            yield Site(end, None, "amide")


def _nitrile_sites(proposal: Proposal) -> Iterator[Site]:
    """Each nitrile carbon at the centre (hydrated to the amide or hydrolysed to the acid)."""
    for end in sorted(proposal.centre):
        atom = proposal.atom(end)
        if atom.GetSymbol() == "C" and any(b.GetBondType() == Chem.BondType.TRIPLE
                                           and b.GetOtherAtom(atom).GetSymbol() == "N" for b in atom.GetBonds()):
            yield Site(end, None, "nitrile")


def _minisci_sites(proposal: Proposal) -> Iterator[Site]:
    """Each new bond from an aromatic ring carbon to the radical's carbon: the ring carbon is the substrate."""
    for a, b in proposal.formed_bonds:
        for c, r in ((a, b), (b, a)):
            if proposal.atom(c).GetSymbol() == "C" and proposal.atom(c).GetIsAromatic() and c[0] != r[0]:
                yield Site(c, r, "heteroarene")


#: reaction classes (lowered template-name prefixes) -> their tolerance table; a class with a table is one row
#: here, walked by ``tolerance_problem``
TOLERANCE: dict[tuple[str, ...], Tolerance] = {
    ("williamson", "o-methylation", "methylation of oh with dms"):
        Tolerance("an O-alkylation", ("nucleophile", "electrophile"), _o_alkylation_sites, O_ALKYLATION_TOLERANCE),
    ("o-methylation", "methylation of oh with dms"):
        Tolerance("an O-methylation", ("nucleophile", "electrophile"), _o_alkylation_sites, O_METHYLATION_TOLERANCE),
    ("oxidation of ketone to carboxylic acid",):
        Tolerance("a ketone oxidation to the acid (haloform)", ("substrate", "substrate"), _ketone_cleavage_sites,
                  KETONE_OXIDATION_TOLERANCE),
    ("chan-lam", "chan lam"):
        Tolerance("a Chan-Lam coupling", ("nucleophile", "aryl boron partner"), _chan_lam_sites, CHAN_LAM_TOLERANCE),
    ("reduction of primary amides", "reduction of secondary amides", "reduction of tertiary amides"):
        Tolerance("an amide reduction to the amine", ("substrate", "substrate"), _amide_reduction_sites,
                  AMIDE_REDUCTION_TOLERANCE),
    ("ester saponification",):
        Tolerance("an ester saponification", ("substrate", "substrate"), _saponification_sites,
                  BASIC_HYDROLYSIS_TOLERANCE),
    ("nitrile and hydrogen peroxide to amide", "oxidation of nitrile to carboxylic acid"):
        Tolerance("a nitrile hydration or hydrolysis", ("substrate", "substrate"), _nitrile_sites,
                  BASIC_HYDROLYSIS_TOLERANCE),
    ("oxidation of amide to carboxylic acid",):
        Tolerance("an amide hydrolysis to the acid", ("substrate", "substrate"), _amide_hydrolysis_sites,
                  AMIDE_HYDROLYSIS_TOLERANCE),
    ("minisci",):
        Tolerance("a Minisci alkylation", ("heteroarene", "radical precursor"), _minisci_sites, MINISCI_TOLERANCE),
    ("reduction of nitrile to amine",):
        Tolerance("a nitrile reduction to the amine", ("substrate", "substrate"), _nitrile_sites,
                  NITRILE_REDUCTION_TOLERANCE),
}


def tolerance_problem(table: Tolerance) -> Callable[[Proposal], str | None]:
    """The check of one ``TOLERANCE`` row: at each of the step's sites, the molecules its groups are looked for
    in (``Intolerance.where``) carry none that outcompetes the substrate's kind or is destroyed beside it."""

    def check(proposal: Proposal) -> str | None:
        substrate_role, partner_role = table.roles
        for site in table.sites(proposal):
            s, p = site.substrate, site.partner
            for group in table.groups:
                if site.kind not in group.against:
                    continue
                if group.where == "partner atom":
                    if p is not None and matches_at(proposal.reactants[p[0]], group.smarts, p[1]):
                        return f"{table.what} whose {partner_role} carries {group.reason}"
                    continue
                if group.where in ("substrate", "either") and carries(proposal.reactants[s[0]], group.smarts, s[1]):
                    return f"{table.what} whose {substrate_role} carries {group.reason}"
                if group.where in ("partner", "either") and p is not None and p[0] != s[0] \
                        and carries(proposal.reactants[p[0]], group.smarts, p[1]):
                    return f"{table.what} whose {partner_role} carries {group.reason}"
        return None

    return check
