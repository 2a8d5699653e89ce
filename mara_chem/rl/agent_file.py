"""The tuned agent as an ordinary prior file, written at the end of every stage.

REINVENT 4 writes the agent to the stage's ``chkpt_file``; mara-chem does the same with its prior-file
writer, so ``mara-chem prior sample``/``prior info``, a sampling run and a later run's ``agent_file`` all
accept it. The file's record says which run, stage, strategy and step produced it.
"""

from __future__ import annotations

from pathlib import Path

from mara_chem.models.language_model import LanguageModel
from mara_chem.models.prior_file import save_prior
from mara_chem.rl.config import RunConfig


def stage_agent_path(config: RunConfig, index: int) -> Path:
    """``chkpt_file`` of the stage when given, else ``agent_stage<N>.prior`` in the run folder."""
    chosen = config.stage[index].chkpt_file
    return Path(chosen) if chosen else config.run_dir / f"agent_stage{index + 1}.prior"


def write_stage_agent(agent: LanguageModel, config: RunConfig, index: int, *, step: int, stage_steps: int,
                      oracle_calls: int, stop_reason: str, prior_digest: str) -> Path:
    record = {
        "run_folder": str(config.run_dir),
        "stage": index + 1,
        "stages_in_run": len(config.stage),
        "strategy": dict(config.learning_strategy),
        "step": step,
        "stage_steps": stage_steps,
        "stage_oracle_calls": oracle_calls,
        "stop_reason": stop_reason,
        "prior_file": config.parameters.prior_file,
        "prior_weights_sha256": prior_digest,
        "agent_file": config.parameters.agent_file,
    }
    return save_prior(agent, stage_agent_path(config, index), rl_agent=record)
