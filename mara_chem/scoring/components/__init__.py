"""Importing this package registers every built-in component by name (see ``list_components``)."""

from mara_chem.scoring.components import guacamol, known, physchem, qsar, sa_score, similarity, substructure  # noqa: F401

try:  # docking needs the optional vina/meeko stack only when used; the module itself imports lazily
    from mara_chem.scoring.components import docking, pose_filter  # noqa: F401
except ImportError:  # pragma: no cover - module not present in a partial install
    pass
from mara_chem.scoring.components import retrosynthesis  # noqa: F401,E402  (syntheseus is imported by its workers)
