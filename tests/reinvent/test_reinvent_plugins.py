"""mara-chem components as REINVENT 4 scoring plugins, scored by REINVENT's own scoring run mode."""

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from mara_chem.scoring.component import build_component
from tests.paths import REPO

QSAR_MODEL = "brenk_alert_logreg"  # the bundled example model, by name
REFERENCES = ["CC(=O)Nc1ccc(O)cc1", "CN1CCN(c2ccccc2)CC1"]

SCORING_RUN = """
run_type = "scoring"

[parameters]
smiles_file = "{smiles}"
output_csv = "{out}"

[scoring]
type = "arithmetic_mean"

[[scoring.component]]
[scoring.component.MaraQsar]
[[scoring.component.MaraQsar.endpoint]]
name = "alerts"
params.model_file = "{model}"

[[scoring.component]]
[scoring.component.mara_tanimoto_similarity]
[[scoring.component.mara_tanimoto_similarity.endpoint]]
name = "near refs"
params.smiles = {refs}
params.aggregate = "max"
[[scoring.component.mara_tanimoto_similarity.endpoint]]
name = "near refs r3"
params.smiles = {refs}
params.radius = 3
"""


def run_reinvent_file(run_file: Path) -> None:
    from reinvent import Reinvent
    from reinvent.utils import parse_command_line
    import sys

    saved, sys.argv = sys.argv, ["reinvent", str(run_file), "--log-level", "warning"]
    try:
        Reinvent.main(parse_command_line())
    finally:
        sys.argv = saved


def test_reinvent_scoring_run_with_mara_components(reinvent_rl, tmp_path, moses_sample):
    smiles = moses_sample[:30]
    (tmp_path / "in.smi").write_text("\n".join(smiles) + "\n")
    out = tmp_path / "scores.csv"
    run_file = tmp_path / "score.toml"
    run_file.write_text(SCORING_RUN.format(smiles=tmp_path / "in.smi", out=out, model=QSAR_MODEL,
                                           refs=str(REFERENCES).replace("'", '"')))
    run_reinvent_file(run_file)
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["SMILES"] for r in rows] == smiles  # MOSES SMILES are already canonical
    qsar = build_component("qsar", {"model_file": str(QSAR_MODEL)})(smiles).values
    near = build_component("TanimotoSimilarity", {"smiles": REFERENCES})(smiles).values
    near3 = build_component("TanimotoSimilarity", {"smiles": REFERENCES, "radius": 3})(smiles).values
    assert np.allclose([float(r["alerts (raw)"]) for r in rows], qsar, atol=1e-4)  # REINVENT writes 4 decimals
    assert np.allclose([float(r["near refs (raw)"]) for r in rows], near, atol=1e-4)
    assert np.allclose([float(r["near refs r3 (raw)"]) for r in rows], near3, atol=1e-4)
    assert not np.allclose(near, near3)  # the two endpoints really got their own parameters


def test_plugin_gives_nan_for_failures_and_names_bad_keys(reinvent_rl):
    from reinvent_plugins.components.comp_mara_qsar import MaraQsar, Parameters

    component = MaraQsar(Parameters(model_file=[str(QSAR_MODEL)]))
    result = component(["CCO", "not a smiles"])
    assert math.isfinite(result.scores[0][0]) and math.isnan(result.scores[0][1])
    with pytest.raises(ValueError, match="radius"):
        MaraQsar(Parameters(model_file=[str(QSAR_MODEL)], radius=["two"]))
    with pytest.raises(TypeError, match="n_bit"):
        Parameters(model_file=[str(QSAR_MODEL)], n_bit=[1024])


def test_guacamol_plugin_scores_as_the_component(reinvent_rl):
    """The PMO objectives inside REINVENT give mara-chem's (and so guacamol's own) scores."""
    pytest.importorskip("guacamol", reason="guacamol is installed by scripts/setup_venv.sh test")
    from reinvent_plugins.components.comp_mara_guacamol import MaraGuacamol, Parameters

    smiles = ["Cc1ccc(-c2cc(C(F)(F)F)nn2-c2ccc(S(N)(=O)=O)cc2)cc1", "CCO", "not a smiles"]
    scores = MaraGuacamol(Parameters(objective=["celecoxib_rediscovery"]))(smiles).scores[0]
    ours = build_component("Guacamol", {"objective": "celecoxib_rediscovery"})(smiles).values
    assert scores[0] == pytest.approx(1.0) and 0.0 < scores[1] < 0.5
    assert np.allclose(scores[:2], ours[:2]) and math.isnan(scores[2]) and math.isnan(ours[2])


def test_plugin_names_do_not_collide_with_reinvents(reinvent_rl):
    import logging

    from reinvent.scoring.importer import get_registry

    logging.disable(logging.ERROR)
    try:
        registry = get_registry()
    finally:
        logging.disable(logging.NOTSET)
    ours = {k: v for k, v in registry.items() if v[0].__module__.startswith("reinvent_plugins.components.comp_mara_")}
    assert set(ours) == {"maraqsar", "maravinadocking", "maratanimotosimilarity", "maraguacamol",
                         "mararetrosynthesis"}
    assert registry["tanimotosimilarity"][0].__module__.startswith("reinvent_plugins.components.RDKit")


@pytest.mark.slow
def test_reinvent_scoring_run_with_mara_docking(reinvent_rl, tmp_path):
    """Docking inside REINVENT: DRD2 from dockstring, two ligands, exhaustiveness 1 (about a minute)."""
    smiles = ["CC(=O)Nc1ccc(O)cc1", "CN1CCN(c2ccccc2)CC1"]
    (tmp_path / "in.smi").write_text("\n".join(smiles) + "\n")
    out = tmp_path / "scores.csv"
    (tmp_path / "dock.toml").write_text(f"""
run_type = "scoring"
[parameters]
smiles_file = "{tmp_path / 'in.smi'}"
output_csv = "{out}"
[scoring]
type = "geometric_mean"
[[scoring.component]]
[scoring.component.MaraVinaDocking]
[[scoring.component.MaraVinaDocking.endpoint]]
name = "drd2"
params.target = "DRD2"
params.exhaustiveness = 1
params.n_workers = 1
transform.type = "reverse_sigmoid"
transform.low = -12
transform.high = -4
transform.k = 0.5
""")
    run_reinvent_file(tmp_path / "dock.toml")
    with open(out, newline="") as handle:
        raw = [float(r["drd2 (raw)"]) for r in csv.DictReader(handle)]
    assert all(-12 < v < -3 for v in raw)
