"""A preflight of the objective itself: it must tell molecules apart.

Every key of an objective can be valid on its own and the whole still score every molecule the same (a
saturated sigmoid, a window no molecule reaches, a weight that swamps the rest): the run would then pay its
whole budget for no signal. Before any oracle call, the stage's scorer scores a small, deliberately varied set
of reference molecules; identical totals for all of them are refused. Objectives with an
expensive component (one that is ``required_by_default``: docking, retrosynthesis) are not scored here: the
check would cost what it protects.
"""

from __future__ import annotations

import numpy as np

from mara_chem.scoring.scorer import Scorer

#: small to large, polar to greasy, flat to 3D, acid to base: no sensible objective scores them all the same
REFERENCE_SMILES = (
    "CCO",                                            # ethanol
    "c1ccccc1",                                       # benzene
    "CC(=O)Oc1ccccc1C(=O)O",                          # aspirin
    "Cn1cnc2c1c(=O)n(C)c(=O)n2C",                     # caffeine
    "CC(C)Cc1ccc(cc1)C(C)C(=O)O",                     # ibuprofen
    "CN1CCC[C@H]1c1cccnc1",                           # nicotine
    "C=CC(=O)Nc1cc(Nc2nccc(-c3cn(C)c4ccccc34)n2)c(OC)cc1N(C)CCN(C)C",  # osimertinib
    "C[C@]12CC[C@H]3[C@@H](CC=C4C[C@@H](O)CC[C@]34C)[C@@H]1CC[C@@H]2O",  # androstenediol
    "OC[C@H]1OC(O)[C@H](O)[C@@H](O)[C@@H]1O",         # glucose
    "CCCCCCCCCCCCCCCC(=O)O",                          # palmitic acid
)


#: totals that differ by less than this are the same score (a sigmoid far from every value gives ~1e-100)
MIN_SPREAD = 1e-6


def constant_objective(scorer: Scorer) -> str | None:
    """Why the objective cannot guide a run (every reference molecule scores the same), or None."""
    if any(e.component.required_by_default or not e.component.scores_in_checks for e in scorer.endpoints):
        return None
    totals = scorer(list(REFERENCE_SMILES)).total
    finite = totals[np.isfinite(totals)]
    if len(finite) == 0:
        return (f"the objective scores none of {len(REFERENCE_SMILES)} reference molecules (every total failed); "
                "check the components' parameters")
    if len(finite) == len(totals) and float(finite.max() - finite.min()) < MIN_SPREAD:
        return (f"the objective gives all {len(REFERENCE_SMILES)} reference molecules the same total score "
                f"{float(finite.mean()):.3g} (within {MIN_SPREAD:g}): it cannot tell molecules apart; check the "
                "weights and transforms "
                "(a sigmoid far from the values, a window no molecule reaches)")
    return None
