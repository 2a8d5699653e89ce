"""A staged-learning run folder before the run takes it: the resume checks (read-only) and the overwrite, which
:class:`~mara_chem.rl.run_session.RunSession` runs in their order.

(The folder's file formats live in :mod:`mara_chem.run_folder`; these checks need the run file's model, so they
live on the ``rl`` floor.)

Every refusal happens here, before anything in the folder is written (docs/architecture.md,
"Data flow of a run"): a resume must describe the same run (:mod:`mara_chem.run_folder.run_record`), keep the
oracle log's columns, and find a checkpoint made from the same prior and agent files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mara_chem.run_folder.oracle_log import OracleLogError
from mara_chem.rl.checkpoint import CHECKPOINT_NAME, CheckpointError, load_checkpoint
from mara_chem.rl.config import RunConfig
from mara_chem.rl.loop_state import LoopState
from mara_chem.rl.oracle import LOG_NAME, OracleLog
from mara_chem.rl.summary_csv import stage_summary
from mara_chem.run_folder.run_record import (
    CHANGES_JSON,
    RUN_JSON,
    Change,
    RunRecordError,
    compare,
    describe,
    read_changes,
    read_run_record,
)


def is_mara_record(recorded: dict[str, Any] | None) -> bool:
    """Whether a run.json is mara-chem's record: the validated run file as dumped, whose ``[parameters]`` always
    list mara-chem's own ``hit_threshold`` (REINVENT has no such key)."""
    parameters = recorded.get("parameters") if isinstance(recorded, dict) else None
    return isinstance(parameters, dict) and "hit_threshold" in parameters and "stage" in recorded


class RunDirError(RuntimeError):
    """The run folder cannot be used as asked (changed run, busy, unreadable checkpoint); nothing was written."""


class ResumeChecks:
    """The folder of one run (``config.run_dir``) and its oracle log, as a resume finds them."""

    def __init__(self, config: RunConfig, oracle_log: OracleLog) -> None:
        self.config = config
        self.path: Path = config.run_dir
        self.oracle_log = oracle_log

    def _recorded(self) -> dict[str, Any] | None:
        """The recorded run config (None for a new folder), with keys a newer mara-chem added filled in."""
        try:
            recorded = read_run_record(self.path)
            read_changes(self.path)  # a torn history is refused here, not met halfway through the first write
        except RunRecordError as exc:
            raise RunDirError(f"{exc}: the run cannot be checked against its record; move the folder away or "
                              "start again with --overwrite") from None
        if recorded is None:
            return None
        try:  # fill in keys a newer mara-chem added since the run started, with their defaults
            return RunConfig.model_validate(recorded).model_dump(mode="json")
        except ValidationError:
            return recorded  # compared as recorded; what no longer validates shows up as a difference

    def resume_changes(self) -> list[Change]:
        """Accepted differences to the recorded run; refuses any other (read-only)."""
        recorded = self._recorded()
        if recorded is None:
            return []
        allowed, refused = compare(recorded, self.config.model_dump(mode="json"))
        if refused:
            raise RunDirError(
                f"{self.path} holds a run made from another run file; these keys differ from its {RUN_JSON}: "
                f"{describe(refused)}. A resume may only raise max_oracle_calls or max_steps, add stages or move "
                "outputs (device, tb_logdir, json_out_config, chkpt_file); use a new folder (summary_csv_prefix), "
                "--restart (from step 0 with this file, the oracle log's paid calls reused) or --overwrite")
        return allowed

    def restart_changes(self) -> list[Change]:
        """``--restart``: every difference to the recorded run, which the new run may make from step 0 with the
        oracle log kept, except those that would make the logged scores another objective's: a logged stage's
        scoring changed, or a logged stage removed (read-only)."""
        recorded = self._recorded()
        if recorded is None:
            return []
        allowed, refused = compare(recorded, self.config.model_dump(mode="json"))
        changes = allowed + refused
        n_old, n_new = len(recorded.get("stage", [])), len(self.config.stage)
        scoring = [c for c in changes if c[0].split(".")[0] == "stage" and len(c[0].split(".")) > 2
                   and int(c[0].split(".")[1]) < min(n_old, n_new) and c[0].split(".")[2] == "scoring"]
        if scoring or n_new < n_old:
            what = describe(scoring) if scoring else f"{n_old - n_new} of its {n_old} stages removed"
            raise RunDirError(f"{self.path}: --restart reuses the oracle log's scores, which another objective "
                              f"would not give: {what}; use a new folder (summary_csv_prefix) or --overwrite")
        return changes

    def check_log(self) -> None:
        """The oracle log fits this run file and a record names the run that wrote it (read-only)."""
        try:
            self.oracle_log.check_columns()
            self.oracle_log.check_rows()
        except OracleLogError as exc:
            raise RunDirError(f"{exc}; use --overwrite to start again") from None
        leftovers = [n for n in (LOG_NAME, CHECKPOINT_NAME) if (self.path / n).exists()]
        if leftovers and not (self.path / RUN_JSON).exists():
            raise RunDirError(f"{self.path} holds {' and '.join(leftovers)} but no {RUN_JSON}: the run cannot "
                              "be checked against its record; move them away or start again with --overwrite")

    def checked_state(self, digests: dict[str, str]) -> dict[str, Any] | None:
        """The checkpoint to resume from (None for a new run), after every refusal check; writes nothing.
        ``digests``: fingerprints of the prior and agent files as loaded now."""
        self.check_log()
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
        paid = LoopState.from_checkpoint(state).paid_calls_per_stage()  # calls per stage when it was written
        logged = self.oracle_log.calls_on_disk()
        if logged < sum(paid.values()):
            raise RunDirError(f"{self.oracle_log.path} holds {logged} calls but {path} was written after "
                              f"{sum(paid.values())}: the log was cut or replaced, and resuming would pay for "
                              "those calls again; restore the log or start again with --overwrite")
        return state

    def clear(self) -> None:
        """--overwrite: delete the run's own files and the summaries its record names, nothing else (the run
        folder may be the working directory; TensorBoard folders and other files are never removed)."""
        d = self.path
        for path in [*(d / n for n in (CHECKPOINT_NAME, LOG_NAME, CHANGES_JSON)), *self._own_summaries()]:
            path.unlink(missing_ok=True)
        (d / RUN_JSON).unlink(missing_ok=True)

    def _own_summaries(self) -> list[Path]:
        """Summary files this run wrote: those named by its record (run.json) when that is mara-chem's, else
        none (read-only). A run.json another program wrote (REINVENT's JSON config, anything) claims nothing:
        the summaries beside it are someone else's and are never deleted."""
        try:
            recorded = read_run_record(self.path)
        except RunRecordError:  # torn: this file's names, only where mara-chem's oracle log shows a run was here
            if not (self.path / LOG_NAME).exists():
                return []
            return [stage_summary(self.config, i).path for i in range(len(self.config.stage))]
        if not is_mara_record(recorded):
            return []
        prefix = recorded.get("parameters", {}).get("summary_csv_prefix", "summary")
        return [Path(f"{prefix}_{i + 1}.csv") for i in range(len(recorded.get("stage", [])))]

    def check_no_foreign_summaries(self, overwrite: bool) -> None:
        """A new run (or --overwrite) would write summary files that no recorded run of this folder wrote:
        refuse rather than append to, or later delete, someone else's file."""
        if not overwrite and read_run_record(self.path) is not None:
            return
        own = {p.resolve() for p in self._own_summaries()}
        paths = [stage_summary(self.config, i).path for i in range(len(self.config.stage))]
        foreign = [str(p) for p in paths if p.exists() and p.resolve() not in own]
        if foreign:
            raise RunDirError(f"{', '.join(foreign)} already exist(s) and no recorded run of {self.path} wrote "
                              "them; move them away or choose another summary_csv_prefix (they are never deleted)")
