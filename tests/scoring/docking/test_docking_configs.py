"""The docking run files load, build their docking component (no workers started), and the SYNTH DAP
and MARA variants differ only in the learning strategy and their output paths."""

from __future__ import annotations

import tomllib

import pytest

from tests.paths import REPO

pytest.importorskip("dockstring")

from mara_chem.rl.config import load_run_config  # noqa: E402
from mara_chem.scoring.components.docking import VinaDocking  # noqa: E402

CONFIGS = ["synth_clpp_dap.toml", "synth_clpp_mara.toml", "all_amide_clpp_dap.toml", "all_amide_clpp_mara.toml",
           "synth_sa_clpp_dap.toml", "synth_sa_clpp_mara.toml", "drd2_docking.toml", "docking_smoke.toml"]
CLPP_RECEPTOR = REPO.parent / "shared" / "data" / "receptors" / "clpp_7uvu" / "7uvu-2-monomers-pdbfixer.pdbqt"


def _docking_params(config_name: str) -> dict:
    config = load_run_config(REPO / "configs" / config_name)
    for entry in config.stage[0].scoring.component:
        if "vina_docking" in entry:
            return dict(entry["vina_docking"].endpoint[0].params)
    raise AssertionError(f"{config_name} has no vina_docking component")


@pytest.mark.parametrize("name", CONFIGS)
def test_docking_config_loads(name):
    config = load_run_config(REPO / "configs" / name)
    assert config.parameters.batch_size in (32, 64)
    assert config.stage[0].scoring.type == "geometric_mean"
    params = _docking_params(name)
    if "receptor" in params:
        # users pass their own receptor; the default points at ../shared, relative to the repo root
        assert params["receptor"].startswith("../shared/") and not (REPO / "data" / "receptors").exists()


@pytest.mark.parametrize("name", CONFIGS)
def test_docking_component_builds_from_config(name, monkeypatch):
    params = _docking_params(name)
    if "receptor" in params and not CLPP_RECEPTOR.is_file():
        pytest.skip(f"ClpP receptor {CLPP_RECEPTOR} absent (shared/ must sit beside the repo)")
    monkeypatch.chdir(REPO)  # run-file paths are relative to the repo root
    params.pop("cache_path", None)  # building must not create run folders in the repo
    component = VinaDocking(params)
    assert component._executor is None
    component.close()


def test_synth_variants_differ_only_in_strategy_and_paths():
    dap = tomllib.loads((REPO / "configs" / "synth_clpp_dap.toml").read_text())
    mara = tomllib.loads((REPO / "configs" / "synth_clpp_mara.toml").read_text())
    assert dap["learning_strategy"] == {"type": "dap", "sigma": 128, "rate": 1e-4}
    assert mara["learning_strategy"] == {"type": "mara", "sigma": 128, "rate": 1e-4, "tau": 0.8}
    for section in ("diversity_filter", "inception"):
        assert dap[section] == mara[section]
    assert dap["diversity_filter"] == {"type": "IdenticalMurckoScaffold", "bucket_size": 10, "minscore": 0.4}
    assert dap["inception"] == {"memory_size": 100, "sample_size": 10}
    assert dap["parameters"]["batch_size"] == 64 and dap["stage"][0]["max_oracle_calls"] == 10000
    text_dap = (REPO / "configs" / "synth_clpp_dap.toml").read_text().replace("synth_clpp_dap", "RUN")
    text_mara = (REPO / "configs" / "synth_clpp_mara.toml").read_text().replace("synth_clpp_mara", "RUN")
    assert tomllib.loads(text_dap)["stage"] == tomllib.loads(text_mara)["stage"]
    assert {k: v for k, v in dap["parameters"].items() if k != "summary_csv_prefix"} == {
        k: v for k, v in mara["parameters"].items() if k != "summary_csv_prefix"
    }
