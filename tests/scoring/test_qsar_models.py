"""qsar model files: JSON linear models load without running code; pickles only with ``trusted = true``."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from pydantic import ValidationError

from mara_chem.scoring.component import COMPONENTS
from mara_chem.scoring.components.qsar import fingerprint_matrix
from mara_chem.scoring.qsar_models import save_linear_model
from mara_chem.scoring.spec import ScoringSpec
from tests.paths import BUNDLED_PRIOR


class WritesMarker:
    """Unpickling this object calls ``open(marker, "w")``: what a hostile model file could do."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _qsar(params: dict):
    return COMPONENTS.get("qsar")(params)


def test_pickle_is_refused_without_trusted_and_never_unpickled(tmp_path):
    marker = tmp_path / "pwned"
    model = tmp_path / "model.pkl"
    model.write_bytes(pickle.dumps(WritesMarker(str(marker))))
    pickle.loads(model.read_bytes()).close()  # the file really does run code when unpickled ...
    assert marker.exists()
    marker.unlink()
    with pytest.raises(ValidationError, match=r"runs any code the file contains; set `params.trusted = true`"):
        _qsar({"model_file": str(model)})
    # ... and a run file naming it is refused at validation, before anything is loaded
    with pytest.raises(ValidationError, match="model.pkl is not a mara-chem JSON model"):
        ScoringSpec(component=[{"qsar": {"endpoint": [{"name": "m", "params": {"model_file": str(model)}}]}}])
    assert not marker.exists()


def test_trusted_pickle_is_loaded(tmp_path):
    marker = tmp_path / "ran"
    model = tmp_path / "model.pkl"
    model.write_bytes(pickle.dumps(WritesMarker(str(marker))))
    comp = _qsar({"model_file": str(model), "trusted": True})
    assert not marker.exists()  # building the component loads nothing
    comp.model.close()
    assert marker.exists()  # with trusted = true the file is unpickled, as the user asked


def test_json_logistic_model_equals_sklearn(tmp_path, moses_sample):
    from rdkit.Chem import Descriptors

    from mara_chem.chem.smiles import to_mol
    from sklearn.linear_model import LinearRegression, LogisticRegression

    smiles = moses_sample[:200]
    x, _ = fingerprint_matrix(smiles, radius=2, n_bits=1024)
    y = np.array([Descriptors.MolWt(to_mol(s)) for s in smiles])
    logistic = LogisticRegression(max_iter=500).fit(x, np.where(y > 320, "heavy", "light"))
    path = save_linear_model(logistic, tmp_path / "logistic.json", radius=2, n_bits=1024)
    comp = _qsar({"model_file": str(path), "n_bits": 1024, "positive_class": "light"})
    assert np.allclose(comp(smiles[:30]).values, logistic.predict_proba(x[:30])[:, 1], atol=1e-12)
    linear = LinearRegression().fit(x, y)
    path = save_linear_model(linear, tmp_path / "linear.json", radius=2, n_bits=1024)
    comp = _qsar({"model_file": str(path), "n_bits": 1024})
    assert np.allclose(comp(smiles[:30]).values, linear.predict(x[:30]), atol=1e-9)


def test_json_model_checks_fingerprint_settings_and_shape(tmp_path):
    from sklearn.linear_model import LogisticRegression

    x = np.eye(64, dtype=np.uint8)
    model = LogisticRegression().fit(x, np.arange(64) % 2)
    path = save_linear_model(model, tmp_path / "m.json", radius=2, n_bits=64)
    with pytest.raises(ValidationError, match="trained on Morgan radius 2, 64 bits; params say radius 2, 2048 bits"):
        _qsar({"model_file": str(path)})
    data = json.loads(path.read_text())
    data["coef"] = data["coef"][:10]
    path.write_text(json.dumps(data))
    with pytest.raises(ValidationError, match="10 coefficients for 64 fingerprint bits"):
        _qsar({"model_file": str(path), "n_bits": 64})


def test_bundled_model_by_name_needs_no_trust():
    comp = _qsar({"model_file": "brenk_alert_logreg"})
    assert comp.params.trusted is False and comp.params.linear_model().metadata["test_roc_auc"] > 0.9


@pytest.mark.parametrize("positive_class", [None, 1])
def test_validate_never_unpickles_a_trusted_model(tmp_path, capsys, positive_class):
    """`mara-chem validate` checks a trusted pickle's file and never loads it (the run does, when it starts)."""
    from mara_chem.cli import main

    marker = tmp_path / "ran"
    model = tmp_path / "model.pkl"
    model.write_bytes(pickle.dumps(WritesMarker(str(marker))))
    prior = BUNDLED_PRIOR
    extra = "" if positive_class is None else f"\nparams.positive_class = {positive_class}"
    run_file = tmp_path / "run.toml"
    run_file.write_text(f"""
run_type = "staged_learning"
[parameters]
prior_file = "{prior}"
agent_file = "{prior}"
summary_csv_prefix = "{tmp_path}/run/summary"
[[stage]]
max_steps = 1
[stage.scoring]
type = "geometric_mean"
[[stage.scoring.component]]
[stage.scoring.component.qsar]
[[stage.scoring.component.qsar.endpoint]]
name = "model"
params.model_file = "{model}"
params.trusted = true{extra}
""")
    assert main(["validate", str(run_file)]) == 0, capsys.readouterr().err
    assert not marker.exists()
