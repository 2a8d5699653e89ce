"""Structural alerts from RDKit's FilterCatalog (PAINS, Brenk, ...): which ones a molecule carries, by name.

One place for the catalogues, used by the ``StructuralAlerts`` scoring component (a penalty) and by the
report (every hit row lists its alerts, whatever the objective was), so both name an alert the same way.
"""

from __future__ import annotations

from functools import lru_cache

from rdkit import Chem
from rdkit.Chem.FilterCatalog import FilterCatalog, FilterCatalogParams

#: the catalogues a shipped objective filters with and the report names
DEFAULT_CATALOGS = ("PAINS", "BRENK")


def catalog_names() -> list[str]:
    """Every catalogue RDKit ships (``PAINS``, ``PAINS_A``, ``BRENK``, ``NIH``, ``ZINC``, ``CHEMBL_Glaxo``, ...)."""
    return sorted(name for name in FilterCatalogParams.FilterCatalogs.names if name not in ("ALL",))


@lru_cache(maxsize=16)
def _catalog(names: tuple[str, ...]) -> FilterCatalog:
    params = FilterCatalogParams()
    for name in names:
        params.AddCatalog(FilterCatalogParams.FilterCatalogs.names[name])
    return FilterCatalog(params)


def alert_names(mol: Chem.Mol, catalogs: tuple[str, ...] = DEFAULT_CATALOGS) -> list[str]:
    """Names of the alerts that match, each once, in catalogue order (e.g. ``['anil_di_alk_A(478)']``)."""
    return list(dict.fromkeys(entry.GetDescription() for entry in _catalog(tuple(catalogs)).GetMatches(mol)))
