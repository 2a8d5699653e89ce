"""A staged-learning run folder before the run takes it: the resume checks (read-only) and the overwrite.

(The folder's file formats live in :mod:`mara_chem.run_folder`; these checks need the run file's model, so they
live on the ``rl`` floor.)

Every refusal happens here, before anything in the folder is written (docs/architecture.md,
"Data flow of a run"): a resume must describe the same run (:mod:`mara_chem.run_folder.run_record`), keep the
oracle log's columns, and find a checkpoint made from the same prior and agent files.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mara_chem.run_folder.oracle_log import OracleLogError
from mara_chem.rl.checkpoint import CHECKPOINT_NAME, CheckpointError, load_checkpoint
from mara_chem.rl.config import RunConfig
from mara_chem.rl.oracle import LOG_NAME, OracleLog
from mara_chem.run_folder.run_record import CHANGES_JSON, RUN_JSON, Change, compare, describe, read_run_record


class RunDirError(RuntimeError):
    """The run folder cannot be used as asked (changed run, busy, unreadable checkpoint); nothing was written."""


class RunFolder:
    """The folder of one run (``config.run_dir``) and its oracle log, as a resume finds them."""

    def __init__(self, config: RunConfig, oracle_log: OracleLog) -> None:
        self.config = config
        self.path: Path = config.run_dir
        self.oracle_log = oracle_log

    def resume_changes(self) -> list[Change]:
        """Accepted differences to the recorded run; refuses any other (read-only)."""
        recorded = read_run_record(self.path)
        if recorded is None:
            return []
        try:  # fill in keys a newer mara-chem added since the run started, with their defaults
            recorded = RunConfig.model_validate(recorded).model_dump(mode="json")
        except ValidationError:
            pass  # compared as recorded; what no longer validates shows up as a difference
        allowed, refused = compare(recorded, self.config.model_dump(mode="json"))
        if refused:
            raise RunDirError(
                f"{self.path} holds a run made from another run file; these keys differ from its {RUN_JSON}: "
                f"{describe(refused)}. A resume may only raise max_oracle_calls or max_steps, add stages or change "
                "device; use a new folder (summary_csv_prefix) or --overwrite")
        return allowed

    def checked_state(self, digests: dict[str, str]) -> dict[str, Any] | None:
        """The checkpoint to resume from (None for a new run), after every refusal check; writes nothing.
        ``digests``: fingerprints of the prior and agent files as loaded now."""
        try:
            self.oracle_log.check_columns()
        except OracleLogError as exc:
            raise RunDirError(f"{exc}; use --overwrite to start again") from None
        path = self.path / CHECKPOINT_NAME
        if not path.exists():
            return None
        try:
            state = load_checkpoint(path)
        except CheckpointError as exc:
            raise RunDirError(str(exc)) from None
        if state["digests"] != digests:
            raise RunDirError(f"the prior or agent file changed since {path} was written; "
                              "restore the original files or start again with --overwrite")
        return state

    def clear(self) -> None:
        """``--overwrite``: remove what a run writes (checkpoint, oracle log, run record, summaries, TensorBoard)."""
        d = self.path
        for name in [CHECKPOINT_NAME, LOG_NAME, RUN_JSON, CHANGES_JSON, *(f.name for f in d.glob("summary*.csv"))]:
            (d / name).unlink(missing_ok=True)
        if (d / "tb").exists():
            shutil.rmtree(d / "tb")
