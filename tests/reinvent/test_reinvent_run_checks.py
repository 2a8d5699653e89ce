"""REINVENT's own staged-learning entry point with mara-chem installed (what `reinvent` runs with the hook on):
run files REINVENT would fail on after loading its models, or with a traceback naming no file, are refused
first, naming the file or component and the fix."""

from pathlib import Path

import pytest
import torch
from pydantic import ValidationError

from mara_chem.models.prior_file import load_prior
from mara_chem.models.reinvent_prior import save_reinvent_prior
from tests.reinvent.reinvent_toml import ASPIRIN_SIMILARITY, MARA_GUACAMOL_STAGE, qed_stage
from tests.paths import REPO

BUNDLED = REPO / "priors" / "moses-gru-2x256.prior"

def config(prior: Path, out: Path, strategy: str = 'type = "dap"', stage: str | None = None) -> dict:
    import tomllib

    text = (f'run_type = "staged_learning"\n[parameters]\nprior_file = "{prior}"\nagent_file = "{prior}"\n'
            f'summary_csv_prefix = "{out}/summary"\nbatch_size = 8\n[learning_strategy]\n{strategy}\n')
    text += stage.format(out=out) if stage else qed_stage(max_steps=2, max_score=1.0, min_steps=10,
                                                          chkpt=f"{out}/stage1.chkpt")
    return tomllib.loads(text)


@pytest.fixture()
def reinvent_entry(reinvent_rl, monkeypatch):
    """REINVENT's ``run_staged_learning`` with mara-chem installed, whose model loading fails the test."""
    from reinvent.runmodes.RL import run_staged_learning

    from mara_chem.reinvent import install

    install()

    def no_model_loading(*args, **kwargs):
        raise AssertionError("REINVENT loaded a model before the run file was refused")

    monkeypatch.setattr(run_staged_learning, "create_adapter", no_model_loading)

    def run(input_config: dict) -> None:
        from reinvent.utils import extract_sections

        run_staged_learning.run_staged_learning(extract_sections(input_config), torch.device("cpu"), None, None)

    return run


def test_a_mara_chem_prior_in_reinvents_own_run_names_the_file_and_the_conversion(reinvent_entry, tmp_path):
    with pytest.raises(ValidationError, match="RLConfig") as refused:
        reinvent_entry(config(BUNDLED, tmp_path))
    message = str(refused.value)
    assert f"prior_file: {BUNDLED} is a mara-chem prior" in message
    assert "mara-chem prior convert" in message and "--to reinvent" in message
    assert "MaraRLConfig" not in message  # REINVENT's model name, as REINVENT alone would say


def test_maraguacamol_without_guacamol_is_named_with_its_install_line_before_any_model_loads(
        reinvent_entry, tmp_path, monkeypatch):
    prior = save_reinvent_prior(load_prior(BUNDLED), tmp_path / "bundled.prior")
    for module in ("guacamol", "guacamol.standard_benchmarks"):
        monkeypatch.setitem(__import__("sys").modules, module, None)  # as where guacamol is not installed
    with pytest.raises(ValidationError) as refused:
        reinvent_entry(config(prior, tmp_path, stage=MARA_GUACAMOL_STAGE))
    message = str(refused.value)
    assert "[[stage]] 1 scoring: MaraGuacamol endpoint 1: the Guacamol component needs the guacamol package" in message
    assert "pip install scipy joblib && pip install --no-deps guacamol==0.5.5" in message
    assert "extra" not in message


def test_a_misspelt_plugin_parameter_is_named_before_any_model_loads(reinvent_entry, tmp_path):
    prior = save_reinvent_prior(load_prior(BUNDLED), tmp_path / "bundled.prior")
    stage = MARA_GUACAMOL_STAGE.replace("params.objective", "params.objectiv")
    with pytest.raises(ValidationError, match=r"MaraGuacamol endpoint 1: .*objectiv"):
        reinvent_entry(config(prior, tmp_path, stage=stage))


MARA_COMPONENTS_STAGE = """
[[stage]]
max_steps = 2
chkpt_file = "{out}/stage1.chkpt"
[stage.scoring]
type = "geometric_mean"
""" + ASPIRIN_SIMILARITY + """[[stage.scoring.component]]
[stage.scoring.component.MaraQsar]
[[stage.scoring.component.MaraQsar.endpoint]]
name = "no Brenk alert"
params.model_file = "brenk_alert_logreg"
transform = {{ type = "reverse_sigmoid", low = 0.2, high = 0.8, k = 0.5 }}
"""


def test_mara_component_names_of_a_reinvent_file_are_mara_chems_components_in_mara_chem(tmp_path, capsys):
    """The same file runs in both: `mara-chem validate` takes REINVENT's plugin names (MaraQsar, ...) as the
    mara-chem components they adapt."""
    from mara_chem.cli import main
    from mara_chem.rl.config import load_run_config
    from mara_chem.scoring.scorer import Scorer

    text = (f'run_type = "staged_learning"\n[parameters]\nprior_file = "{BUNDLED}"\nagent_file = "{BUNDLED}"\n'
            f'summary_csv_prefix = "{tmp_path}/summary"\nbatch_size = 8\n' + MARA_COMPONENTS_STAGE.format(out=tmp_path))
    run_file = tmp_path / "run.toml"
    run_file.write_text(text)
    assert main(["validate", str(run_file)]) == 0, capsys.readouterr().err
    names = [e.component.name for e in Scorer(load_run_config(run_file).stage[0].scoring).endpoints]
    assert names == ["TanimotoSimilarity", "qsar"]


def test_the_same_mara_components_build_in_reinvent(reinvent_entry, tmp_path, monkeypatch):
    """REINVENT's side of the same stage: its validation builds both plugins (and then, with no model to
    load here, stops at the first model file)."""
    from mara_chem.reinvent.components import check_plugin_components

    prior = save_reinvent_prior(load_prior(BUNDLED), tmp_path / "bundled.prior")
    stage = config(prior, tmp_path, stage=MARA_COMPONENTS_STAGE)["stage"][0]
    assert check_plugin_components(stage["scoring"]) == []
    with pytest.raises(AssertionError, match="loaded a model"):  # validation passed: REINVENT went on to load
        reinvent_entry(config(prior, tmp_path, stage=MARA_COMPONENTS_STAGE))


def test_the_hook_is_silent_where_mara_chem_is_gone(tmp_path):
    """Uninstalling mara-chem with the hook still on: Python starts without a word (the .pth line looks the
    package up first). The child runs isolated (-I -S), so no site-packages and no checkout provide mara_chem."""
    import subprocess
    import sys

    from mara_chem.reinvent import hook

    hook.enable(tmp_path)
    child = [sys.executable, "-I", "-S", "-c",
             f"import site; site.addsitedir({str(tmp_path)!r}); import importlib.util as u; "
             "print(u.find_spec('mara_chem') is None)"]
    done = subprocess.run(child, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "True"
    assert done.stderr == ""
