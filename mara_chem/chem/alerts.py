"""Structural alerts from RDKit's FilterCatalog (PAINS, Brenk, ...): which ones a molecule carries, by name,
and how much each one costs.

One place for the catalogues, used by the ``StructuralAlerts`` scoring component (a penalty) and by the
report (every hit row lists its alerts, whatever the objective was), so both name an alert the same way.

Severity: not every alert means a molecule is unusable. Brenk et al. (2008) list groups to avoid in screening
libraries, and some of them are common in marketed drugs (an isolated alkene, a triple bond, a primary
aniline, a long alkyl chain, a seven- or eight-membered ring, a halogenated ring). Those are the *soft*
alerts (``SOFT_ALERTS``): each one multiplies the score by a factor below 1 (a penalty); every other alert
(PAINS, reactive and toxic groups) is *hard* and multiplies it by the hard factor (0 by default: removed).
``severity`` overrides the factor of any catalogue entry by its name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from rdkit import Chem
from rdkit.Chem.FilterCatalog import FilterCatalog, FilterCatalogParams

#: the catalogues a shipped objective filters with and the report names
DEFAULT_CATALOGS = ("PAINS", "BRENK")

#: Brenk entries found in marketed drugs: a penalty by default, not a removal
SOFT_ALERTS = frozenset({
    "isolated_alkene", "triple_bond", "Aliphatic_long_chain", "aniline",
    "azepane", "azocane", "cycloheptane_1", "cycloheptane_2", "cyclooctane_1", "cyclooctane_2",
    "2-halo_pyridine", "halogenated_ring_1", "halogenated_ring_2",
})
#: the default factor of a soft alert, and of a hard one
SOFT_PENALTY = 0.8
HARD_PENALTY = 0.0

#: how a list of names (alerts, reference files) is written into one CSV/SDF cell: split it on ';'
NAME_SEPARATOR = ";"


def join_names(names: Iterable[str]) -> str:
    """Names in one cell, each once, in order, with no space around the separator (``aniline;triple_bond``)."""
    return NAME_SEPARATOR.join(dict.fromkeys(n.strip() for n in names if n.strip()))


def split_names(cell: str) -> list[str]:
    """The inverse of ``join_names``."""
    return [n.strip() for n in str(cell or "").split(NAME_SEPARATOR) if n.strip()]


def catalog_names() -> list[str]:
    """Every catalogue RDKit ships (``PAINS``, ``PAINS_A``, ``BRENK``, ``NIH``, ``ZINC``, ``CHEMBL_Glaxo``, ...)."""
    return sorted(name for name in FilterCatalogParams.FilterCatalogs.names if name not in ("ALL",))


@lru_cache(maxsize=16)
def _catalog(names: tuple[str, ...]) -> FilterCatalog:
    params = FilterCatalogParams()
    for name in names:
        params.AddCatalog(FilterCatalogParams.FilterCatalogs.names[name])
    return FilterCatalog(params)


@lru_cache(maxsize=16)
def entry_names(catalogs: tuple[str, ...] = DEFAULT_CATALOGS) -> frozenset[str]:
    """The names of every entry of these catalogues (what ``severity`` may name)."""
    catalog = _catalog(tuple(catalogs))
    return frozenset(catalog.GetEntryWithIdx(i).GetDescription() for i in range(catalog.GetNumEntries()))


def alert_names(mol: Chem.Mol, catalogs: Sequence[str] = DEFAULT_CATALOGS) -> list[str]:
    """Names of the alerts that match, each once, in catalogue order (e.g. ``['anil_di_alk_A(478)']``)."""
    return list(dict.fromkeys(entry.GetDescription() for entry in _catalog(tuple(catalogs)).GetMatches(mol)))


def is_soft(name: str, severity: Mapping[str, float] | None = None) -> bool:
    """Whether an alert only lowers the score (its factor above 0) under these overrides."""
    return alert_factor([name], severity) > 0.0


def alert_factor(names: Iterable[str], severity: Mapping[str, float] | None = None,
                 soft_penalty: float = SOFT_PENALTY, hard_penalty: float = HARD_PENALTY) -> float:
    """The score's factor for a molecule carrying these alerts: the product of each alert's factor
    (``severity[name]`` when given, else ``soft_penalty`` for a soft alert, else ``hard_penalty``)."""
    factor = 1.0
    for name in dict.fromkeys(names):
        if severity and name in severity:
            factor *= severity[name]
        else:
            factor *= soft_penalty if name in SOFT_ALERTS else hard_penalty
    return factor
