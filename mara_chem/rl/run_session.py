"""The life of a staged-learning run folder, in one owner: check, lock, record, repair, restore, release.

:meth:`RunSession.open` does every read-only check first (the resume checks of :mod:`mara_chem.rl.resume`), then
takes the folder's lock (:mod:`mara_chem.run_folder.run_lock`), and only then writes: clears it (``--overwrite``),
writes the run record and ``json_out_config``, adds oracle-log columns for new endpoints, repairs a torn last
line, and hands the checkpoint to the loop's ``restore`` (or, with a log but no checkpoint yet, starts over from
step 0 with the logged calls reused). A refusal anywhere before the lock leaves the folder as it was; a failure
after it releases the lock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mara_chem.atomic import write_text_atomic
from mara_chem.rl.checkpoint import CHECKPOINT_NAME
from mara_chem.rl.config import RunConfig
from mara_chem.rl.oracle import LOG_NAME, OracleLog, recover_torn_line
from mara_chem.rl.resume import ResumeChecks, RunDirError
from mara_chem.rl.summary_csv import stage_summary
from mara_chem.run_folder.run_lock import RunFolderBusy, RunLock
from mara_chem.run_folder.run_record import Change, describe, write_run_record
from mara_chem.scoring.scorer import Scorer

log = logging.getLogger(__name__)

__all__ = ["RunDirError", "RunSession"]

#: the run record's entry for ``--restart`` (in run_changes.json beside the keys it changed)
RESTART: Change = ("restart", None, "from step 0, the oracle log's calls reused")


class RunSession:
    """One run's hold on its folder (``config.run_dir``) from the first check to the lock's release."""

    def __init__(self, config: RunConfig, oracle_log: OracleLog, say: Callable[[str], None], quiet: bool) -> None:
        self.config = config
        self.path: Path = config.run_dir
        self.oracle_log = oracle_log
        self.checks = ResumeChecks(config, oracle_log)
        self._say = say
        self._quiet = quiet
        self._lock: RunLock | None = None

    def open(self, overwrite: bool, digests: dict[str, str], restore: Callable[[dict[str, Any]], None],
             restart: bool = False) -> None:
        """Check (read-only), lock, record, repair and restore. ``digests``: fingerprints of the prior and agent
        files as loaded; ``restore`` is given the checkpoint to resume from. ``restart``: from step 0 with this
        run file (changed, but for its logged stages' scoring), the checkpoint dropped and the oracle log kept,
        so its paid calls are reused and counted against the budgets as paid."""
        if restart:
            changes = self.checks.restart_changes()
            self.checks.check_log()
            state = None
        else:
            changes = [] if overwrite else self.checks.resume_changes()
            state = None if overwrite else self.checks.checked_state(digests)
        self.checks.check_no_foreign_summaries(overwrite)
        # --- every check passed: take the folder, then write --------------------------------------------------
        lock = RunLock(self.path)
        try:
            lock.acquire()
        except RunFolderBusy as exc:
            raise RunDirError(str(exc)) from None
        self._lock = lock
        try:
            self._write_record(overwrite, [*changes, *([RESTART] if restart else [])], state)
            self._repair_oracle_log()
            if restart:
                (self.path / CHECKPOINT_NAME).unlink(missing_ok=True)
            if state is not None:
                restore(state)
            elif self.oracle_log.read():
                self._restart_from_log(restart)
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _write_record(self, overwrite: bool, changes: list[Change], state: dict[str, Any] | None) -> None:
        """The first writes: clear (overwrite), json_out_config, run.json, new oracle-log columns."""
        config = self.config
        if overwrite:
            self.checks.clear()
        if config.json_out_config:  # after every check: a refused resume leaves nothing behind
            out = Path(config.json_out_config)
            out.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(out, config.model_dump_json(indent=2) + "\n")
        write_run_record(self.path, config.model_dump(mode="json"), changes, state["global_step"] if state else 0)
        if changes:
            self._say(f"resuming with changes to the run file: {describe(changes)}")
        added = self.oracle_log.extend_columns()
        if added:
            self._say(f"{LOG_NAME}: columns added for the new stages' endpoints {', '.join(added)}")

    def _repair_oracle_log(self) -> None:
        torn = self.oracle_log.cut_torn_line()
        if torn is not None:
            stages = self.config.stage
            message = recover_torn_line(self.oracle_log, torn, lambda stage: Scorer(stages[stage - 1].scoring))
            if self._quiet:
                log.warning("repaired %s", message)
            self._say(f"repaired {message}")

    def _restart_from_log(self, asked: bool = False) -> None:
        """No checkpoint (killed before the first, or ``--restart``): start again; logged calls come from the log,
        unpaid."""
        for index in range(len(self.config.stage)):
            stage_summary(self.config, index).truncate_after(0)
        why = "--restart" if asked else "has an oracle log but no checkpoint yet"
        self._say(f"{self.path} {why}: starting again from step 0; "
                  f"the {len(self.oracle_log.read())} calls in {LOG_NAME} are reused, not paid again")
