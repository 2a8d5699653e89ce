"""The tuned agent as an ordinary prior file, written at the end of every stage.

REINVENT 4 writes the agent to the stage's ``chkpt_file`` as its own model file; mara-chem does the same (an RNN
agent as a REINVENT ``Reinvent`` model file, which REINVENT samples and trains from and mara-chem reads back
exactly, ``mara_chem/models/reinvent_prior.py``). Without ``chkpt_file`` (or for a network REINVENT has no
model for) the agent is a mara-chem prior file, ``agent_stage<N>.prior`` in the run folder. Either way
``mara-chem prior sample``/``prior info``, a sampling run and a later run's ``agent_file`` accept it, and the
file's record (``rl_agent`` in its metadata) says which run, stage, strategy and step produced it.
"""

from __future__ import annotations

from pathlib import Path

from mara_chem.models.language_model import LanguageModel
import logging

from mara_chem.models.prior_file import save_prior
from mara_chem.models.reinvent_prior import save_reinvent_prior
from mara_chem.rl.config import RunConfig

log = logging.getLogger(__name__)


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
    path = stage_agent_path(config, index)
    if config.stage[index].chkpt_file:
        if agent.network.name == "rnn":
            return save_reinvent_prior(agent, path, rl_agent=record)
        log.warning("%s: a %s agent has no REINVENT model format; written as a mara-chem prior file",
                    path, agent.network.name)
    return save_prior(agent, path, rl_agent=record)
