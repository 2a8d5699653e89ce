"""The GuacaMol goal-directed objectives that the PMO benchmark uses and that run offline, scored by the
``guacamol`` package itself (Brown et al. 2019; Gao et al. 2022, PMO), not re-implemented here.

Install: ``pip install scipy joblib`` and ``pip install --no-deps guacamol==0.5.5`` (no extra can say
``--no-deps``; with its dependencies it pins FCD==1.1, which pulls TensorFlow). That release imports two things
goal-directed scoring never uses and that fail today: ``from scipy import histogram`` (removed from SciPy) and
``import fcd`` (Fréchet ChemNet Distance, a TensorFlow model). :func:`objective` imports it with both bridged
for the duration of the import only: ``scipy.histogram`` is ``numpy.histogram`` and ``fcd`` a stub module
that raises if anything ever calls it; neither stays behind in ``scipy`` or ``sys.modules``.

Raw value = the objective's own ``score`` in [0, 1]; guacamol's -1 for a molecule it cannot score becomes a
failure (NaN with a reason). PMO's DRD2/GSK3β/JNK3 oracles need downloaded models and are not offered.
Note when comparing with published PMO figures: PMO's REINVENT uses a ZINC 250k prior, mara-chem's bundled
prior is trained on MOSES.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from functools import cached_property
from typing import Any, Literal

from mara_chem.chem.smiles import to_mol
from mara_chem.scoring.component import ComponentParams, Failure, ScoringComponent

CELECOXIB = "CC1=CC=C(C=C1)C1=CC(=NN1C1=CC=C(C=C1)S(N)(=O)=O)C(F)(F)F"
TROGLITAZONE = "Cc1c(C)c2OC(C)(COc3ccc(CC4SC(=O)NC4=O)cc3)CCc2c(C)c1O"
THIOTHIXENE = "CN(C)S(=O)(=O)c1ccc2Sc3ccccc3C(=CCCN4CCN(C)CC4)c2c1"
ALBUTEROL = "CC(C)(C)NCC(O)c1ccc(O)c(CO)c1"
MESTRANOL = "COc1ccc2[C@H]3CC[C@@]4(C)[C@@H](CC[C@@]4(O)C#C)[C@@H]3CCc2c1"

ObjectiveName = Literal[
    "celecoxib_rediscovery", "troglitazone_rediscovery", "thiothixene_rediscovery", "albuterol_similarity",
    "mestranol_similarity", "isomers_c7h8n2o2", "isomers_c9h10n2o2pf2cl", "median1", "median2",
    "osimertinib_mpo", "fexofenadine_mpo", "ranolazine_mpo", "perindopril_mpo", "amlodipine_mpo",
    "sitagliptin_mpo", "zaleplon_mpo", "valsartan_smarts", "deco_hop", "scaffold_hop", "qed",
]


def _benchmarks() -> dict[str, Callable[[Any], Any]]:
    """PMO oracle name → the guacamol ``standard_benchmarks`` factory (as PMO/TDC define them)."""
    return {
        "celecoxib_rediscovery": lambda sb: sb.similarity(CELECOXIB, "Celecoxib", "ECFP4", 1.0, rediscovery=True),
        "troglitazone_rediscovery": lambda sb: sb.similarity(TROGLITAZONE, "Troglitazone", "ECFP4", 1.0,
                                                             rediscovery=True),
        "thiothixene_rediscovery": lambda sb: sb.similarity(THIOTHIXENE, "Thiothixene", "ECFP4", 1.0,
                                                            rediscovery=True),
        "albuterol_similarity": lambda sb: sb.similarity(ALBUTEROL, "Albuterol", "FCFP4", 0.75),
        "mestranol_similarity": lambda sb: sb.similarity(MESTRANOL, "Mestranol", "AP", 0.75),
        "isomers_c7h8n2o2": lambda sb: sb.isomers_c7h8n2o2(),
        "isomers_c9h10n2o2pf2cl": lambda sb: sb.isomers_c9h10n2o2pf2cl(),
        "median1": lambda sb: sb.median_camphor_menthol(),
        "median2": lambda sb: sb.median_tadalafil_sildenafil(),
        "osimertinib_mpo": lambda sb: sb.hard_osimertinib(),
        "fexofenadine_mpo": lambda sb: sb.hard_fexofenadine(),
        "ranolazine_mpo": lambda sb: sb.ranolazine_mpo(),
        "perindopril_mpo": lambda sb: sb.perindopril_rings(),
        "amlodipine_mpo": lambda sb: sb.amlodipine_rings(),
        "sitagliptin_mpo": lambda sb: sb.sitagliptin_replacement(),
        "zaleplon_mpo": lambda sb: sb.zaleplon_with_other_formula(),
        "valsartan_smarts": lambda sb: sb.valsartan_smarts(),
        "deco_hop": lambda sb: sb.decoration_hop(),
        "scaffold_hop": lambda sb: sb.scaffold_hop(),
        "qed": lambda sb: sb.qed_benchmark(),
    }


def _fcd_stub() -> types.ModuleType:
    stub = types.ModuleType("fcd")

    def unavailable(name: str) -> Any:
        raise ImportError(f"fcd.{name}: the Fréchet ChemNet Distance is not installed (only goal-directed "
                          "scoring of guacamol is supported)")

    stub.__getattr__ = unavailable  # type: ignore[method-assign]
    return stub


#: what the Guacamol component needs installed (guacamol without its TensorFlow-pulling dependencies)
INSTALL = "pip install scipy joblib && pip install --no-deps guacamol==0.5.5"


def standard_benchmarks() -> types.ModuleType:
    """``guacamol.standard_benchmarks``, imported with the two shims described in the module docstring."""
    if sys.modules.get("guacamol.standard_benchmarks") is not None:
        return sys.modules["guacamol.standard_benchmarks"]
    import numpy
    try:
        import scipy
    except ImportError as exc:
        raise ImportError(f"the Guacamol component needs scipy and the guacamol package: {INSTALL} ({exc})") from None

    added_histogram = not hasattr(scipy, "histogram")
    added_fcd = "fcd" not in sys.modules
    if added_histogram:
        scipy.histogram = numpy.histogram
    if added_fcd:
        sys.modules["fcd"] = _fcd_stub()
    try:
        import guacamol.standard_benchmarks as sb
    except ImportError as exc:
        raise ImportError(f"the Guacamol component needs the guacamol package: {INSTALL} ({exc})") from None
    finally:
        if added_histogram:
            del scipy.histogram
        if added_fcd:
            sys.modules.pop("fcd", None)
    return sb


def objective(name: str) -> Any:
    """The guacamol ``ScoringFunction`` of a PMO objective name."""
    return _benchmarks()[name](standard_benchmarks()).objective


class GuacamolParams(ComponentParams):
    objective: ObjectiveName


class Guacamol(ScoringComponent):
    """One PMO/GuacaMol objective (``params.objective``), scored by guacamol; raw value in [0, 1]."""

    name = "Guacamol"
    aliases = ("PMO", "MaraGuacamol")  # MaraGuacamol: its REINVENT plugin name (reinvent_plugins/)
    Params = GuacamolParams
    example_params = {"objective": "celecoxib_rediscovery"}

    def __init__(self, params: GuacamolParams | dict | None = None) -> None:
        super().__init__(params)
        self.function  # noqa: B018  (built now: a missing guacamol is named when the scorer is built, before any scoring)

    @cached_property
    def function(self) -> Any:
        return objective(self.params.objective)

    def score_batch(self, smiles: list[str]) -> list[float | Failure]:
        parsed = [to_mol(s) for s in smiles]
        valid = [s for s, mol in zip(smiles, parsed) if mol is not None and mol.GetNumAtoms()]
        scores = iter(self.function.score_list(valid) if valid else [])
        out: list[float | Failure] = []
        for mol in parsed:
            if mol is None or not mol.GetNumAtoms():
                out.append(Failure("invalid or empty SMILES"))
            else:
                value = float(next(scores))
                out.append(Failure("guacamol could not score the molecule") if value < 0 else value)
        return out
