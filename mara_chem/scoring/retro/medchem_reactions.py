"""The ``medchem`` reaction set: the named reactions that make up most of medicinal chemistry's syntheses.

rxn-insight's 527 templates include reactions whose written form a chemist would rarely run on a drug-like
substrate (Friedel-Crafts alkylations, C-methylation at any C-H, Minisci, Michael additions of simple C-H,
Wohl-Ziegler, Schmidt, Nef, diazo chemistry, ketonisation). ``reactions = "medchem"`` keeps only the reaction
types that Brown and Boström counted as the medicinal chemist's toolbox in J. Med. Chem. papers (J. Med. Chem.
2016, 59, 4443; also Roughley and Jordan, J. Med. Chem. 2011, 54, 3451): amide, sulfonamide, urea and ester
formation, Suzuki, Sonogashira and Heck couplings, Buchwald-Hartwig and Ullmann N-arylation, SNAr, N- and
O-alkylation, reductive amination, the common deprotections and reductions, alcohol oxidation, conversion of
alcohols to halides and sulfonates, Wittig olefination, Grignard additions to carbonyls and the standard
heteroaromatic ring syntheses. Aromatic halogenation and nitration are left out: their regioselectivity is what
the template cannot tell. The list was written from those reviews' categories, not from which templates
produced wrong routes on the validation sets (docs/oracles.md, "Retrosynthesis", says what it measures).

Names are rxn-insight's own, as its ``data/smirks.json`` spells them; a name missing from the installed wheel
is an error (``TemplateSet.medchem``), so a renamed template cannot drop out silently.
"""

from __future__ import annotations

#: the template names of the ``medchem`` set, by reaction type
MEDCHEM_REACTIONS: dict[str, tuple[str, ...]] = {
    "amide formation": (
        "Acyl chloride with ammonia to amide", "Acyl chloride with primary amine to amide (Schotten-Baumann)",
        "Acyl chloride with secondary amine to amide", "Acylation of Nitrogen Nucleophiles by Carboxylic Acids",
        "Acylation of Nitrogen Nucleophiles by Acyl/Thioacyl/Carbamoyl Halides and Analogs_N",
        "Acylation of primary amines", "Acylation of secondary amines",
        "Acylation of secondary amines with anhydrides", "Carboxylic acid with primary amine to amide",
        "Ester with ammonia to amide", "Ester with primary amine to amide", "Ester with secondary amine to amide",
        "Aminolysis of esters", "Carboxylic acid to amide conversion", "Nitrile to amide",
        "{Schotten-Baumann_amide}",
    ),
    "sulfonamide formation": (
        "Sulfonamide synthesis (Schotten-Baumann) primary amine",
        "Sulfonamide synthesis (Schotten-Baumann) secondary amine", "{sulfon_amide}",
    ),
    "urea and carbamate formation": (
        "Urea synthesis via isocyanate and primary amine", "Urea synthesis via isocyanate and secondary amine",
        "{urea}",
    ),
    "ester formation": (
        "Esterification of Carboxylic Acids", "Schotten-Baumann to ester", "Acetic anhydride and alcohol to ester",
    ),
    "Suzuki coupling": (
        "Suzuki coupling with boronic acids", "Suzuki coupling with boronic acids OTf",
        "Suzuki coupling with boronic esters", "Suzuki coupling with boronic esters OTf", "{Suzuki}",
    ),
    "Sonogashira and Heck coupling": (
        "Sonogashira alkyne_aryl halide", "Sonogashira alkyne_aryl OTf", "Sonogashira acetylene_aryl halide",
        "Sonogashira acetylene_aryl OTf", "{Heck_terminal_vinyl}", "Heck terminal vinyl",
    ),
    "N-arylation": (
        "Buchwald-Hartwig/Ullmann-Goldberg/N-arylation primary amine",
        "Buchwald-Hartwig/Ullmann-Goldberg/N-arylation secondary amine",
        "N-arylation (Buchwald-Hartwig/Ullmann-Goldberg)", "{Buchwald-Hartwig}", "{N-arylation_heterocycles}",
        "Ullmann-Goldberg Substitution amine",
    ),
    "SNAr": (
        "{heteroaromatic_nuc_sub}", "{nucl_sub_aromatic_ortho_nitro}", "{nucl_sub_aromatic_para_nitro}",
    ),
    "N-alkylation and reductive amination": (
        "N-alkylation of primary amines with alkyl halides", "N-alkylation of secondary amines with alkyl halides",
        "Ring opening of epoxide with amine", "Reductive amination with aldehyde", "Reductive amination with ketone",
        "{reductive amination}", "Eschweiler-Clarke Primary Amine Methylation",
        "Eschweiler-Clarke Secondary Amine Methylation", "Reductive methylation of primary amine with formaldehyde",
    ),
    "O- and S-alkylation": (
        "Williamson Ether Synthesis", "{Williamson ether}", "Mitsunobu aryl ether", "{Mitsunobu_phenole}",
        "S-alkylation of thiols",
    ),
    "deprotection": (
        "Boc amine deprotection", "Ester saponification (methyl deprotection)",
        "Ester saponification (alkyl deprotection)", "COOH ethyl deprotection",
        "Hydrolysis or Hydrogenolysis of Carboxylic Esters or Thioesters", "Carboxyl benzyl deprotection",
        "Hydroxyl benzyl deprotection", "Alcohol deprotection from silyl ethers",
        "Cleavage of methoxy ethers to alcohols", "Phthalimide deprotection",
    ),
    "reduction": (
        "Reduction of nitro groups to amines", "Reduction of aldehydes and ketones to alcohols",
        "Reduction of ester to primary alcohol", "Reduction of carboxylic acid to primary alcohol",
        "Reduction of nitrile to amine", "Reduction of primary amides to amines",
        "Reduction of secondary amides to amines", "Reduction of tertiary amides to amines",
        "Hydrogenation (double to single)", "Azide to amine reduction (Staudinger)",
    ),
    "oxidation": (
        "Oxidation or Dehydrogenation of Alcohols to Aldehydes and Ketones",
        "Oxidation of aldehydes to carboxylic acids",
    ),
    "alcohols to halides and sulfonates": (
        "Alcohol to chloride_SOCl2", "Alkyl bromides from alcohols", "PBr3 and alcohol to alkyl bromide",
        "Alcohol to triflate conversion", "Formation of Sulfonic Esters", "Alcohol to chloride_POCl3",
    ),
    "carbonyl additions and olefination": (
        "Grignard from aldehyde to alcohol", "Grignard from ketone to alcohol", "{Grignard_alcohol}",
        "Wittig with Phosphonium", "Wittig reaction with triphenylphosphorane", "{Wittig}",
    ),
    "heteroaromatic ring synthesis": (
        "Benzimidazole formation from aldehyde", "Benzimidazole formation from ester/carboxylic acid",
        "Benzoxazole formation from ester/carboxylic acid", "Benzothiazole formation from aldehyde",
        "{benzimidazole_derivatives_aldehyde}", "{benzimidazole_derivatives_carboxylic-acid/ester}",
        "{oxadiazole}", "Azide-nitrile click cycloaddition to tetrazole", "{Huisgen_Cu-catalyzed_1,4-subst}",
        "{pyrazole}", "Pyrazole formation", "{thiazole}", "{imidazole}", "{indole}", "{Fischer indole}",
        "{Paal-Knorr pyrrole}", "Paal-Knorr pyrrole synthesis", "{Niementowski_quinazoline}",
        "{1,2,4-triazole_carboxylic-acid/ester}", "{Pictet-Spengler}",
    ),
}


def medchem_names() -> frozenset[str]:
    """Every template name of the set."""
    return frozenset(name for names in MEDCHEM_REACTIONS.values() for name in names)
