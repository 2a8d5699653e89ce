"""`mara-chem export-reinvent` writes what REINVENT 4.8 accepts; `mara-chem prior convert` both ways."""

import tomllib

import pytest
import torch

from mara_chem.cli import main as cli_main
from mara_chem.models.prior_file import load_prior
from mara_chem.reinvent.export import export_run_file
from tests.paths import REPO


def test_exported_demo_is_valid_for_reinvent_and_lists_what_was_dropped(reinvent_rl, tmp_path, monkeypatch):
    from reinvent.runmodes.RL.validation import RLConfig
    from reinvent.scoring import Scorer
    from reinvent.utils import extract_sections
    from reinvent.validation import ReinventConfig

    monkeypatch.chdir(REPO)  # the demo's paths are relative to the repository
    out = tmp_path / "demo.reinvent.toml"
    changes = export_run_file("configs/demo.toml", out)
    data = tomllib.loads(out.read_text())
    ReinventConfig(**data)
    config = RLConfig(**extract_sections(data))  # REINVENT's own validation, extra keys forbidden
    assert config.learning_strategy.type == "dap" and config.stage[0].chkpt_file
    text = "\n".join(changes)
    for key in ("device = 'auto'", "parameters.hit_threshold", "learning_strategy.tau", "stage[1].max_oracle_calls",
                "is a mara-chem prior", "MaraTanimotoSimilarity"):
        assert key in text
    scorer = Scorer(data["stage"][0]["scoring"])  # every component resolves in REINVENT (plugins included)
    assert {c.component_type for c in scorer.components.scorers} == {"maratanimotosimilarity", "qed", "molecularweight"}


def test_keep_strategy_exports_a_file_for_mara_chem_reinvent(reinvent_rl, tmp_path, monkeypatch):
    from reinvent.utils import extract_sections

    from pydantic import ValidationError

    from mara_chem.reinvent import install
    from mara_chem.reinvent.learning import MaraRLConfig, MaraSectionLearningStrategy

    install()
    monkeypatch.chdir(REPO)
    out = tmp_path / "demo.toml"
    export_run_file("configs/demo.toml", out, keep_strategy=True)
    data = tomllib.loads(out.read_text())
    assert MaraSectionLearningStrategy(**data["learning_strategy"]).mara_params.tau == 0.7
    # the demo's prior stays mara-chem's (the export lists it): REINVENT's validation names it and the conversion
    with pytest.raises(ValidationError, match=r"is a mara-chem prior.*mara-chem prior convert"):
        MaraRLConfig(**extract_sections(data))


def test_prior_convert_both_ways_keeps_log_likelihoods(tmp_path, moses_sample, capsys):
    bundled = REPO / "priors" / "moses-gru-2x256.prior"
    assert cli_main(["prior", "convert", str(bundled), "--out", str(tmp_path / "r.prior")]) == 0
    assert "reinvent format" in capsys.readouterr().out
    assert torch.load(tmp_path / "r.prior", weights_only=True)["model_type"] == "Reinvent"
    assert cli_main(["prior", "convert", str(tmp_path / "r.prior"), "--out", str(tmp_path / "m.prior")]) == 0
    with torch.no_grad():
        original = load_prior(bundled).log_likelihood(moses_sample[:100])
        back = load_prior(tmp_path / "m.prior").log_likelihood(moses_sample[:100])
    assert float((original - back).abs().max()) <= 1e-4
    assert cli_main(["prior", "convert", str(tmp_path / "missing.prior"), "--out", str(tmp_path / "x")]) == 2


def test_a_genetic_table_is_named_as_dropped(reinvent_rl, tmp_path, monkeypatch):
    from reinvent.runmodes.RL.validation import RLConfig
    from reinvent.utils import extract_sections

    monkeypatch.chdir(REPO)
    out = tmp_path / "genetic.reinvent.toml"
    changes = export_run_file("configs/genetic_demo.toml", out)
    data = tomllib.loads(out.read_text())
    RLConfig(**extract_sections(data))
    assert "genetic" not in data and any(line.startswith("dropped [genetic]") for line in changes)
