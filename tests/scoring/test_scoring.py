import math

import numpy as np
import pytest
from pydantic import ValidationError
from rdkit import Chem

from mara_chem.scoring.aggregation import arithmetic_mean, geometric_mean
from mara_chem.scoring.component import ComponentParams, Failure, ScoringComponent, build_component, list_components
from mara_chem.scoring.scorer import Scorer
from mara_chem.scoring.spec import ScoringSpec
from mara_chem.scoring.transforms import build_transform, list_transforms


def test_transform_names_pinned():
    assert list_transforms() == ["double_sigmoid", "exponential_decay", "left_step", "reverse_sigmoid", "right_step", "sigmoid", "step",
                                 "value_mapping"]


def test_sigmoid_midpoint_and_direction():
    sig = build_transform({"type": "sigmoid", "low": 0, "high": 10, "k": 0.5})
    rev = build_transform({"type": "reverse_sigmoid", "low": -16, "high": 0, "k": 0.15})
    x = np.array([0.0, 5.0, 10.0])
    assert sig(x)[1] == pytest.approx(0.5)
    assert sig(x)[0] < 0.5 < sig(x)[2]
    # published docking transform: -8 kcal/mol is the midpoint, better (more negative) scores are higher
    y = rev(np.array([-12.0, -8.0, -4.0]))
    assert y[1] == pytest.approx(0.5) and y[0] > 0.5 > y[2]
    # hand value: 1 / (1 + 10^(10*0.15*(-12+8)/16)) = 1 / (1 + 10^-0.375)
    assert y[0] == pytest.approx(1 / (1 + 10 ** -0.375))


def test_double_sigmoid_is_window():
    t = build_transform({"type": "double_sigmoid", "low": 200, "high": 500, "coef_div": 500, "coef_si": 20, "coef_se": 20})
    y = t(np.array([100.0, 350.0, 700.0]))
    assert y[1] > 0.9 and y[0] < 0.2 and y[2] < 0.2


def test_steps_and_mapping_keep_nan():
    step = build_transform({"type": "step", "low": 0, "high": 3})
    assert step(np.array([0, 3, 4, np.nan])).tolist()[:3] == [1.0, 1.0, 0.0]
    assert math.isnan(step(np.array([np.nan]))[0])
    assert build_transform({"type": "left_step", "low": 2})(np.array([1.0, 3.0])).tolist() == [1.0, 0.0]
    assert build_transform({"type": "right_step", "high": 2})(np.array([1.0, 3.0])).tolist() == [0.0, 1.0]
    vm = build_transform({"type": "value_mapping", "mapping": {"1": 1.0, "0": 0.2}})
    out = vm(np.array([1.0, 0.0, 2.0]))
    assert out[:2].tolist() == [1.0, 0.2] and math.isnan(out[2])


def test_transform_unknown_key_and_type():
    with pytest.raises(ValidationError, match="extra"):
        build_transform({"type": "sigmoid", "low": 0, "high": 1, "kk": 2})
    with pytest.raises(ValueError, match="valid"):
        build_transform({"type": "tanh"})


def test_aggregation_renormalises_over_present():
    values = np.array([[0.5, 0.8, np.nan], [0.0, 1.0, 1.0], [np.nan, np.nan, np.nan]])
    w = np.array([1.0, 3.0, 2.0])
    ar = arithmetic_mean(values, w)
    assert ar[0] == pytest.approx((0.5 * 1 + 0.8 * 3) / 4)
    assert math.isnan(ar[2])
    ge = geometric_mean(values, w)
    assert ge[0] == pytest.approx(0.5 ** 0.25 * 0.8 ** 0.75)
    assert ge[1] == 0.0 and math.isnan(ge[2])


def test_components_registry_and_values():
    names = list_components()
    for name in ("qed", "sascore", "hbonddonors", "molecularweight", "tpsa", "slogp", "numrotbond", "numrings",
                 "tanimotosimilarity", "qsar", "customalerts", "groupcount"):
        assert name in names
    qed = build_component("QED")
    res = qed(["CC(=O)Nc1ccc(O)cc1", "not-smiles"])
    assert res.values[0] == pytest.approx(0.595, abs=0.01)
    assert math.isnan(res.values[1]) and "invalid SMILES" in res.reasons[1]
    hbd = build_component("NumHBD")(["CC(=O)Nc1ccc(O)cc1"])
    assert hbd.values[0] == 2
    sa = build_component("SAScore")(["CCO", "CC12CC3(C)OC(C)(C1)C3C2"])
    assert 1 <= sa.values[0] < sa.values[1] <= 10
    sim = build_component("TanimotoSimilarity", {"smiles": ["CC(=O)Nc1ccc(O)cc1"]})(["CC(=O)Nc1ccc(O)cc1", "CCCC"])
    assert sim.values[0] == pytest.approx(1.0) and sim.values[1] < 0.2


def test_component_exception_becomes_nan_with_reason():
    class Broken(ScoringComponent):
        name = "_broken_for_test"

        def score_mol(self, mol):
            raise RuntimeError("boom")

    res = Broken()(["CCO"])
    assert math.isnan(res.values[0]) and "boom" in res.reasons[0]


def test_failure_objects_are_kept():
    class Half(ScoringComponent):
        name = "_half_for_test"

        def score_batch(self, smiles):
            return [1.0 if i % 2 == 0 else Failure("timeout") for i, _ in enumerate(smiles)]

    res = Half()(["C", "CC", "CCC"])
    assert res.values[0] == 1.0 and math.isnan(res.values[1]) and res.reasons[1] == "_half_for_test: timeout"


def test_component_params_forbid_unknown_keys():
    with pytest.raises(ValidationError, match="smarts"):
        build_component("GroupCount", {"smartz": ["c"]})
    with pytest.raises(ValidationError, match="invalid SMARTS"):
        build_component("GroupCount", {"smarts": ["[[["]})


def _spec(**extra):
    base = {"type": "geometric_mean", "component": [
        {"QED": {"endpoint": [{"name": "qed", "weight": 1}]}},
        {"NumHBD": {"endpoint": [{"name": "hbd", "weight": 1, "transform": {"type": "step", "low": 0, "high": 3}}]}},
        {"CustomAlerts": {"endpoint": [{"name": "alerts", "params": {"smarts": ["[N+](=O)[O-]"]}}]}},
    ]}
    base.update(extra)
    return ScoringSpec(**base)


def test_scorer_geometric_mean_with_penalty():
    scorer = Scorer(_spec())
    res = scorer(["CC(=O)Nc1ccc(O)cc1", "O=[N+]([O-])c1ccccc1", "OCC(O)C(O)C(O)C(O)CO", "xx"])
    assert res.total[0] == pytest.approx(math.sqrt(res.scores["qed"][0] * 1.0))
    assert res.total[1] == 0.0  # alert multiplies by 0
    assert res.total[2] == 0.0  # 6 donors: step gives 0, geometric mean gives 0
    assert math.isnan(res.total[3]) and "invalid" in res.reasons[3]


def test_spec_errors_name_the_place():
    with pytest.raises(ValidationError, match=r"component\[0\]: unknown component 'QEDD'"):
        ScoringSpec(component=[{"QEDD": {"endpoint": [{"name": "q"}]}}])
    with pytest.raises(ValidationError, match=r"endpoint\[0\].transform"):
        ScoringSpec(component=[{"QED": {"endpoint": [{"name": "q", "transform": {"type": "sigmoid"}}]}}])
    with pytest.raises(ValidationError, match="used twice"):
        ScoringSpec(component=[{"QED": {"endpoint": [{"name": "q"}, {"name": "q"}]}}])


def test_scoring_file_include(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('type = "arithmetic_mean"\n[[component]]\n[component.QED]\n[[component.QED.endpoint]]\nname = "qed"\n')
    spec = ScoringSpec(filename=str(f))
    assert spec.type == "arithmetic_mean" and list(spec.component[0]) == ["QED"]
    with pytest.raises(ValidationError, match="not found"):
        ScoringSpec(filename=str(tmp_path / "missing.toml"))


def test_qsar_component_with_trained_model(tmp_path, moses_sample):
    import joblib
    from sklearn.linear_model import LogisticRegression

    from mara_chem.scoring.components.qsar import fingerprint_matrix
    from rdkit.Chem import Crippen
    from mara_chem.chem.smiles import to_mol

    smiles = moses_sample[:200]
    x, _ = fingerprint_matrix(smiles)
    y = [Crippen.MolLogP(to_mol(s)) > 3 for s in smiles]
    model = LogisticRegression(max_iter=500).fit(x, y)
    path = tmp_path / "m.joblib"
    joblib.dump(model, path)
    comp = build_component("qsar", {"model_file": str(path), "trusted": True})
    res = comp(smiles[:20] + ["bad"])
    expected = model.predict_proba(x[:20])[:, 1]
    assert np.allclose(res.values[:20], expected) and math.isnan(res.values[20])
    with pytest.raises(ValidationError, match="does not exist"):
        build_component("qsar", {"model_file": str(tmp_path / "none.joblib")})


def test_component_params_base_forbids_extra():
    assert ComponentParams.model_config["extra"] == "forbid"


def test_shipped_qsar_example_model_separates_alerts():
    """The bundled example model (scripts/train_qsar_example.py, a JSON linear model) flags Brenk alerts."""
    comp = build_component("qsar", {"model_file": "brenk_alert_logreg"})
    flagged = ["O=[N+]([O-])c1ccc(C=CC(=O)c2ccccc2)cc1", "ClCC(=O)Nc1ccccc1"]  # nitro + Michael acceptor; alkyl halide
    clean = ["CC(=O)Nc1ccc(O)cc1", "CN1CCN(c2ccccc2)CC1"]
    res = comp(flagged + clean)
    assert min(res.values[:2]) > max(res.values[2:])


def test_required_endpoint_failure_makes_total_nan():
    """Renormalising is right for cheap extras, wrong for the oracle that matters: required endpoints veto."""
    spec = ScoringSpec(component=[
        {"QED": {"endpoint": [{"name": "qed"}]}},
        {"TanimotoSimilarity": {"endpoint": [{"name": "sim", "params": {"smiles": ["CCO"]}, "required": True}]}},
        {"SAScore": {"endpoint": [{"name": "sa", "transform": {"type": "reverse_sigmoid", "low": 2, "high": 6, "k": 0.5}}]}},
    ])
    scorer = Scorer(spec)
    sim_values = {"CCO": float("nan")}
    scorer.endpoints[1].component.score_batch = lambda smiles: [Failure("docking failed") if s in sim_values else 0.5 for s in smiles]
    res = scorer(["CCO", "CCN"])
    assert math.isnan(res.total[0]) and "docking failed" in res.reasons[0]
    assert np.isfinite(res.total[1])
    optional = Scorer(ScoringSpec(component=[{"QED": {"endpoint": [{"name": "qed"}]}},
                                             {"TanimotoSimilarity": {"endpoint": [{"name": "sim", "params": {"smiles": ["CCO"]}}]}}]))
    optional.endpoints[1].component.score_batch = lambda smiles: [Failure("x") for _ in smiles]
    assert np.isfinite(optional(["CCO"]).total[0])  # not required: renormalised over QED


def test_structural_alerts_filter_pains_and_brenk_by_name():
    """RDKit's PAINS and Brenk catalogues: a dialkyl aniline (PAINS anil_di_alk) and a Michael acceptor
    (Brenk) are filtered, ibuprofen is not (paracetamol is: Brenk's 'hydroquinone' covers p-aminophenols);
    ``penalty`` sets the factor; a wrong catalogue is named."""
    from mara_chem.chem.alerts import alert_names

    aniline, enone, ibuprofen = "CCN(CC)c1ccc(C=Cc2ccccc2)cc1", "C=CC(=O)c1ccccc1", "CC(C)Cc1ccc(C(C)C(=O)O)cc1"
    assert "anil_di_alk_B(251)" in alert_names(Chem.MolFromSmiles(aniline))
    assert any("Michael" in n for n in alert_names(Chem.MolFromSmiles(enone)))
    assert alert_names(Chem.MolFromSmiles(ibuprofen)) == []
    assert alert_names(Chem.MolFromSmiles("CC(=O)Nc1ccc(O)cc1")) == ["hydroquinone"]
    spec = ScoringSpec(type="geometric_mean", component=[
        {"QED": {"endpoint": [{"name": "qed", "weight": 1}]}},
        {"StructuralAlerts": {"endpoint": [{"name": "alerts"}]}}])
    res = Scorer(spec)([aniline, enone, ibuprofen])
    assert list(res.total[:2]) == [0.0, 0.0] and res.total[2] == pytest.approx(res.scores["qed"][2])
    half = build_component("StructuralAlerts", {"catalogs": ["PAINS"], "penalty": 0.5})
    assert list(half([aniline, enone]).values) == [0.5, 1.0]  # the enone is a Brenk alert only
    with pytest.raises(ValidationError, match="unknown catalogue"):
        build_component("StructuralAlerts", {"catalogs": ["PAINZ"]})
