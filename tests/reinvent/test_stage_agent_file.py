"""A stage's `chkpt_file` is REINVENT's model file, as REINVENT writes it there: REINVENT loads it (hash ID
valid) and mara-chem reads it back exactly (weights, the masked `^`, the model's metadata and the stage's
record). Without `chkpt_file` the agent stays a mara-chem prior in the run folder."""

from __future__ import annotations


import torch

from mara_chem.models.prior_file import load_prior, read_metadata
from mara_chem.models.reinvent_prior import is_reinvent_payload, load_model_file, save_reinvent_prior
from mara_chem.models.tokenizer import START
from mara_chem.rl.agent_file import write_stage_agent
from mara_chem.rl.config import RunConfig
from tests.paths import BUNDLED_PRIOR

BUNDLED = BUNDLED_PRIOR
SMILES = ["CCO", "c1ccccc1C(=O)O", "CC(C)Cc1ccc(cc1)C(C)C(=O)O", "CN1CCCC1c1cccnc1"]
RECORD = {"stage": 1, "stop_reason": "max_steps", "strategy": {"type": "mara", "tau": 0.6}}


def run_config(tmp_path: Path, chkpt_file: str | None) -> RunConfig:
    stage = {"max_steps": 1, "scoring": {"type": "geometric_mean",
                                         "component": [{"QED": {"endpoint": [{"name": "QED"}]}}]}}
    if chkpt_file:
        stage["chkpt_file"] = chkpt_file
    return RunConfig.model_validate({
        "run_type": "staged_learning",
        "parameters": {"prior_file": str(BUNDLED), "agent_file": str(BUNDLED),
                       "summary_csv_prefix": str(tmp_path / "summary")},
        "stage": [stage]})


def test_a_model_written_as_reinvents_file_reads_back_with_its_likelihoods_mask_and_record(tmp_path):
    model = load_prior(BUNDLED)
    path = save_reinvent_prior(model, tmp_path / "agent.chkpt", rl_agent=RECORD)
    back = load_prior(path)
    assert START in back.metadata["masked_tokens"]  # the -1e4 bias written for REINVENT is read as the mask
    with torch.no_grad():
        assert torch.allclose(back.log_likelihood(SMILES), model.log_likelihood(SMILES), atol=1e-5)
    meta = read_metadata(path)
    assert meta["rl_agent"] == RECORD and meta["model_type"] == "rnn"
    assert meta["training_data_sha256"] == model.metadata["training_data_sha256"]  # the prior's own metadata


def test_the_stage_agent_is_reinvents_file_at_chkpt_file_and_a_mara_chem_prior_without(tmp_path):
    model = load_prior(BUNDLED)
    steps = dict(step=2, stage_steps=2, oracle_calls=9, stop_reason="max_steps", prior_digest="x")
    at_chkpt = write_stage_agent(model, run_config(tmp_path, str(tmp_path / "stage1.chkpt")), 0, **steps)
    assert at_chkpt == tmp_path / "stage1.chkpt" and is_reinvent_payload(load_model_file(at_chkpt))
    assert read_metadata(at_chkpt)["rl_agent"]["stage_oracle_calls"] == 9
    default = write_stage_agent(model, run_config(tmp_path, None), 0, **steps)
    assert default == tmp_path / "agent_stage1.prior" and not is_reinvent_payload(load_model_file(default))


def test_reinvent_loads_the_stage_agent_with_a_valid_hash(tmp_path, reinvent_rl):
    from reinvent.models import check_valid_hash
    from reinvent.runmodes.create_adapter import create_adapter

    path = save_reinvent_prior(load_prior(BUNDLED), tmp_path / "agent.chkpt", rl_agent=RECORD)
    adapter, _, model_type = create_adapter(str(path), "inference", torch.device("cpu"))
    assert model_type == "Reinvent" and check_valid_hash(torch.load(path, weights_only=False))
