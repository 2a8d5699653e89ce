"""What a chemist would refuse in a proposed reaction or building block, checked before the search may use it.

Generic templates with wildcards fire where their named reaction cannot happen. Each proposal carries
rdchiral's atom maps (``proposal.Proposal``), so it is checked at the bond it forms, not for a group somewhere in
a molecule (the reaction centre). ``reaction_problem`` walks the rules table (``rules.RULES``); each family of
checks is a module of its own, and its docstring says what it refuses:

- ``template_fit``: the template's own reactant side read back, at least half of the product's atoms supplied,
  no carbon gained by a reduction, oxidation or deprotection, rings closed only by ring-forming templates, side
  reactions (protodeboronation) taken for no step;
- ``acylation``: amide couplings, esterifications, Friedel-Crafts acylations (donor and acylated ring), one of two
  acyl halides;
- ``alkylation``: alkylations and SN2 steps (hindered carbons, weak N nucleophiles, Mitsunobu, stereocentres
  at the carbon attacked, diazonium and alcohol-to-halide swaps), Friedel-Crafts alkylations (the cation, the
  arene);
- ``couplings``: Suzuki, Stille, Hiyama, Negishi, Kumada, Heck, Sonogashira, Buchwald-Hartwig, Ullmann,
  Chan-Lam and Goldberg couplings at the bond they form; ``boron``: boronic acids that protodeboronate;
- ``tolerance``: per-class tolerance tables (O-alkylation, haloform oxidation, Chan-Lam O-arylation, amide
  reduction, ester saponification, amide hydrolysis, Minisci alkylation, nitrile reduction);
- ``radicals``: Minisci sites; ``carbonyls``: reductive aminations, aldehyde and ketone templates, Michael
  acceptors; ``organometals``: organometal reagents and ortho metalations; ``interconversions``: C-H
  halogenation reagents, nitrile templates, aromatic and non-aromatic nitrations;
- ``isolability``: every reactant, building block or intermediate, an isolable compound;
  ``building_blocks``: what a purchasable building block must be, and what more a Bloom-only one must be;
- ``chem`` and ``proposal``: the helpers they share.

The rules were written against the validation sets in ``benchmarks/retro_validation/``
(``replay_steps.py`` there asks every recorded step of them again); routes they do not foresee (regio- and
chemoselectivity beyond these cases) still need a chemist's reading.
"""

from mara_chem.scoring.retro.checks.building_blocks import bloom_only_problem, building_block_problem
from mara_chem.scoring.retro.checks.isolability import isolable_problem
from mara_chem.scoring.retro.checks.proposal import Proposal
from mara_chem.scoring.retro.checks.rules import reaction_problem

__all__ = ["Proposal", "bloom_only_problem", "building_block_problem", "isolable_problem", "reaction_problem"]
