"""mara-chem's transforms equal REINVENT 4's own functions on a grid of inputs and parameters."""

from __future__ import annotations

import numpy as np
import pytest

from mara_chem.scoring.transforms import build_transform

rv = pytest.importorskip("reinvent.scoring.transforms", reason="REINVENT 4 is not installed in this environment")

GRID = np.concatenate([np.linspace(-50, 50, 201), np.linspace(0, 1000, 201), [-1e6, -300.0, 205.0, 260.0, 1e6]])

CASES = [
    ("sigmoid", rv.Sigmoid, [dict(low=0, high=10, k=0.5), dict(low=-3, high=1.5, k=0.25), dict(low=0.2, high=0.3, k=2)]),
    ("reverse_sigmoid", rv.ReverseSigmoid, [dict(low=-16, high=0, k=0.15), dict(low=2, high=4, k=0.5)]),
    ("double_sigmoid", rv.DoubleSigmoid, [
        dict(low=200, high=500, coef_div=500, coef_si=20, coef_se=20),
        dict(low=250, high=300),  # REINVENT's defaults: coef_div 100, coef_si = coef_se = 150
        dict(low=1, high=4, coef_div=3, coef_si=10, coef_se=1),  # different flanks: coef_si left, coef_se right
        dict(low=-5, high=5, coef_div=0, coef_si=1, coef_se=1),  # hard edges
    ]),
    ("step", rv.Step, [dict(low=2, high=3.5), dict(low=-1, high=-1)]),
    ("left_step", rv.LeftStep, [dict(low=2.5)]),
    ("right_step", rv.RightStep, [dict(high=-7.0)]),
    ("exponential_decay", rv.ExponentialDecay, [dict(k=0.3), dict(k=2.0)]),
]


@pytest.mark.parametrize("kind,reinvent_cls,param_sets", CASES, ids=[c[0] for c in CASES])
def test_transform_equals_reinvent(kind: str, reinvent_cls, param_sets: list[dict]) -> None:
    for params in param_sets:
        ours = build_transform({"type": kind, **params})(GRID)
        theirs_obj = reinvent_cls(_reinvent_params(reinvent_cls, kind, params))
        with np.errstate(over="ignore"):  # REINVENT's exponential_decay overflows in the branch np.where drops
            theirs = np.clip(np.asarray(theirs_obj(GRID), dtype=float), 0.0, 1.0)
        # REINVENT computes sigmoids in float32; compare to that precision
        np.testing.assert_allclose(ours, theirs, atol=2e-6, err_msg=f"{kind} {params}")


def _reinvent_params(cls, kind: str, params: dict):
    import importlib

    module = importlib.import_module(cls.__module__)
    defaults = {"k": 0.5} if kind in ("sigmoid", "reverse_sigmoid") else {}
    return module.Parameters(type=kind, **{**defaults, **params})


def test_double_sigmoid_survives_large_window_edges() -> None:
    """REINVENT 3's form raised OverflowError above ~205 with the default coefficients; the stable form does not."""
    t = build_transform({"type": "double_sigmoid", "low": 250, "high": 400})
    out = t(np.array([100.0, 250.0, 325.0, 400.0, 1e5]))
    np.testing.assert_allclose(out, [0.0, 0.5, 1.0, 0.5, 0.0], atol=1e-12)


@pytest.mark.parametrize("use_counts", [False, True])
@pytest.mark.parametrize("use_features", [False, True])
def test_tanimoto_similarity_equals_reinvent(use_counts: bool, use_features: bool) -> None:
    """With ``n_bits = 0`` (unfolded) the scores are REINVENT's TanimotoSimilarity's to the last digit."""
    import importlib

    from mara_chem.scoring.components.similarity import TanimotoSimilarity

    plugin = importlib.import_module("reinvent_plugins.components.RDKit.comp_similarity")
    ref = "CC(=O)Oc1ccccc1C(=O)O"
    query = ["c1ccccc1C(=O)O", "CCN(CC)CCOC(=O)c1ccc(N)cc1", "CC(=O)Nc1ccc(O)cc1", "C[C@H](N)C(=O)O"]
    for radius in (2, 3):
        theirs = plugin.TanimotoSimilarity(plugin.Parameters(
            smiles=[[ref]], radius=[radius], use_counts=[use_counts], use_features=[use_features]))(query).scores[0]
        ours = TanimotoSimilarity({"smiles": [ref], "radius": radius, "use_counts": use_counts,
                                   "use_features": use_features, "n_bits": 0})(query).values
        np.testing.assert_allclose(ours, theirs, atol=1e-12)
        assert len(set(np.round(ours, 6))) > 1  # the molecules are told apart
