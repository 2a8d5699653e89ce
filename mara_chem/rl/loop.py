"""The staged-learning loop (docs/architecture.md, "Data flow of a run"): sample -> canonicalise -> oracle ->
filter -> replay -> loss -> step.

The loop owns the optimiser, the oracle, the filters and the replay memory; the learning strategy only
turns tensors into a loss. Stops on max_steps, max_score or the oracle budget, and never exceeds the budget.

Run-folder safety: one writer per folder (:mod:`mara_chem.run_folder.run_lock`); a resume must describe the same run
(:mod:`mara_chem.run_folder.run_record`) and every check happens before anything in the folder is written; the
oracle log is the source of truth, so a run killed at any moment resumes without losing or re-paying calls
(no checkpoint yet: the run starts again and takes the logged calls from the log); SIGINT/SIGTERM stop the
run at the next step boundary with a checkpoint.
"""

from __future__ import annotations

import logging
import math
import random
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from pydantic import ValidationError

from mara_chem.atomic import write_text_atomic
from mara_chem.chem.smiles import ParsedMolecules, SmilesState, canonicalize, murcko_scaffold
from mara_chem.run_folder.oracle_log import OracleLogError
from mara_chem.models.device import DeviceError, resolve_device
from mara_chem.models.language_model import LanguageModel
from mara_chem.models.prior_file import load_prior, weights_digest
from mara_chem.models.tokenizer import UnknownTokenError
from mara_chem.rl.agent_file import write_stage_agent
from mara_chem.rl.augmentation import AugmentedMemory, StepUpdate
from mara_chem.rl.checkpoint import (
    CHECKPOINT_NAME,
    CheckpointError,
    load_checkpoint,
    rng_state,
    save_checkpoint,
    set_rng_state,
)
from mara_chem.rl.config import RunConfig, Stage
from mara_chem.rl.diversity_filters import DiversityFilter, build_filter
from mara_chem.rl.oracle import LOG_NAME, Oracle, OracleLog, recover_torn_line, scores_array
from mara_chem.rl.outcomes import OutcomeTracker
from mara_chem.rl.replay import ReplayMemory
from mara_chem.run_folder.run_lock import RunFolderBusy, RunLock
from mara_chem.run_folder.run_record import (
    CHANGES_JSON,
    RUN_JSON,
    Change,
    RunRecordError,
    compare,
    describe,
    read_changes,
    read_run_record,
    write_run_record,
)
from mara_chem.rl.strategies import StrategyBatch, build_strategy
from mara_chem.rl.strategies.base import MaraOptions
from mara_chem.rl.strategies.policy_gradient import PolicyGradientParams
from mara_chem.rl.summary import HitTracker, SummaryCsv, raw_column, reinvent_number
from mara_chem.scoring.scorer import Scorer

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: steps in a row without a single valid SMILES after which the run stops: the agent has collapsed (rate 1e3
#: ran 19 such steps and exited 0 with a broken agent)
COLLAPSE_STEPS = 5
VALIDITY_COLLAPSED = "validity collapsed"


class RunDirError(RuntimeError):
    """The run folder cannot be used as asked (changed run, busy, unreadable checkpoint); nothing was written."""


class RunInterrupted(BaseException):
    """A second SIGINT/SIGTERM while a step was still running: stop now (the log already holds every paid call).

    A BaseException, like KeyboardInterrupt, so that no ``except Exception`` on the way (a scoring component's
    per-molecule guard, guacamol's own scoring function) can turn it into that molecule's failed score, which
    the log would keep as a paid call (issue 23, item 1)."""

    def __init__(self, signal_name: str, step: int):
        super().__init__(f"stopped by {signal_name} during step {step + 1}")
        self.signal_name = signal_name


@dataclass
class StepRecord:
    stage: int
    step: int
    calls_used: int
    budget: int | None
    valid_fraction: float
    duplicate_fraction: float
    mean_score: float
    best_score: float
    hits: int
    hit_scaffolds: int
    loss: float
    seconds: float
    non_oracle_seconds: float


@dataclass
class RunResult:
    run_dir: Path
    steps: int
    oracle_calls: int
    hits: int
    hit_scaffolds: int
    stop_reason: str
    interrupted_by: str | None = None  # "SIGINT" or "SIGTERM" when a signal stopped the run at a step boundary


def _first_occurrences(items: list[str]) -> np.ndarray:
    """True at the first occurrence of each item (identical strings = identical token sequences)."""
    seen: set[str] = set()
    out = np.zeros(len(items), dtype=bool)
    for i, item in enumerate(items):
        out[i] = item not in seen
        seen.add(item)
    return out


def _endpoint_union(stages: list[Stage]) -> list[str]:
    names: list[str] = []
    for stage in stages:
        for entry in stage.scoring.component:
            for spec in entry.values():
                names.extend(ep.name for ep in spec.endpoint if ep.name not in names)
    return names


class StagedLearning:
    def __init__(self, config: RunConfig, overwrite: bool = False, quiet: bool = False, progress_every: int = 1):
        self.config = config
        self.quiet = quiet
        self.progress_every = progress_every
        self.run_dir = config.run_dir
        try:
            self.device = resolve_device(config.device)
        except DeviceError as exc:
            raise RunDirError(str(exc)) from None
        self.endpoints = _endpoint_union(config.stage)
        self.oracle_log = OracleLog(self.run_dir / LOG_NAME, self.endpoints)
        changes = [] if overwrite else self._resume_changes()
        self._build()
        state = None if overwrite else self._checked_state()
        self._check_no_foreign_summaries(overwrite)
        # --- every check passed: take the folder, then write ------------------------------------------------
        self._lock = RunLock(self.run_dir)
        try:
            self._lock.acquire()
        except RunFolderBusy as exc:
            raise RunDirError(str(exc)) from None
        try:
            self._open_run_dir(overwrite, changes, state)
        except BaseException:
            self._lock.release()
            raise

    # --- set-up: every check first, then the first write ------------------------------------------------
    def _resume_changes(self) -> list[Change]:
        """Accepted differences to the recorded run; refuses any other (read-only)."""
        try:
            recorded = read_run_record(self.run_dir)
            read_changes(self.run_dir)  # a torn history is refused here, not met halfway through the first write
        except RunRecordError as exc:
            raise RunDirError(f"{exc}: the run cannot be checked against its record; move the folder away or "
                              "start again with --overwrite") from None
        if recorded is None:
            return []
        try:  # fill in keys a newer mara-chem added since the run started, with their defaults
            recorded = RunConfig.model_validate(recorded).model_dump(mode="json")
        except ValidationError:
            pass  # compared as recorded; what no longer validates shows up as a difference
        allowed, refused = compare(recorded, self.config.model_dump(mode="json"))
        if refused:
            raise RunDirError(
                f"{self.run_dir} holds a run made from another run file; these keys differ from its {RUN_JSON}: "
                f"{describe(refused)}. A resume may only raise max_oracle_calls or max_steps, add stages or move "
                "outputs (device, tb_logdir, json_out_config, chkpt_file); use a new folder (summary_csv_prefix) or --overwrite")
        return allowed

    def _build(self) -> None:
        """Models, strategy, optimiser and empty run state (reads the prior files, writes nothing)."""
        config, p = self.config, self.config.parameters
        if config.seed is not None:
            random.seed(config.seed)
            np.random.seed(config.seed)
            torch.manual_seed(config.seed)
        self.rng = random.Random(config.seed)
        self.prior: LanguageModel = load_prior(p.prior_file, self.device)
        self.prior.network.eval().requires_grad_(False)
        self.agent: LanguageModel = load_prior(p.agent_file, self.device)
        # fingerprints of the prior and agent files as loaded, so a resume against changed files is refused
        self._file_digests = {"prior": weights_digest(self.prior.network.state_dict()),
                              "agent_file": weights_digest(self.agent.network.state_dict())}
        self.agent.network.train()
        if self.agent.vocabulary != self.prior.vocabulary:
            raise RunDirError("agent and prior have different vocabularies")
        self.strategy = build_strategy(config.learning_strategy).to(self.device)
        self.outcomes = OutcomeTracker.from_params(self.strategy.params)
        self.optimizer = torch.optim.Adam([
            {"params": list(self.agent.network.parameters()), "lr": self.strategy.params.rate},
            *self.strategy.optimizer_param_groups(),
        ])
        self.history: list[StepRecord] = []
        self.global_step = 0
        self.stage_index = -1  # the stage in progress (or last finished); -1 before the first
        self.stage_step = 0
        self.stage_finished = False
        self.stop_reason = "max_steps"
        self.filter: DiversityFilter | None = None
        self.filter_stage: int | None = None  # the stage whose filter settings built self.filter
        self.memory = self._new_memory()
        self.hits = HitTracker(p.hit_threshold)
        self.augmentation = AugmentedMemory(p.augmentation_rounds, p.selective_memory_purge, self.agent, self.prior,
                                            self.strategy, self.optimizer, self.rng, self._prior_sample_logp
                                            ) if p.augmentation_rounds else None
        self._tb = None
        self._stop_signal: str | None = None

    def _open_run_dir(self, overwrite: bool, changes: list[Change], state: dict[str, Any] | None) -> None:
        """The first writes: clear (overwrite), record run.json, repair the log, restore the checkpoint."""
        config = self.config
        if overwrite:
            self._clear_outputs()
        if config.json_out_config:  # after every check: a refused resume leaves nothing behind (issue 23, item 3)
            out = Path(config.json_out_config)
            out.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(out, config.model_dump_json(indent=2) + "\n")
        write_run_record(self.run_dir, config.model_dump(mode="json"), changes,
                         state["global_step"] if state else 0)
        if changes:
            self._say(f"resuming with changes to the run file: {describe(changes)}")
        added = self.oracle_log.extend_columns()
        if added:
            self._say(f"{LOG_NAME}: columns added for the new stages' endpoints {', '.join(added)}")
        self._repair_oracle_log()
        if state is not None:
            self._restore(state)
        elif self.oracle_log.read():
            self._restart_from_log()

    def _checked_state(self) -> dict[str, Any] | None:
        """The checkpoint to resume from (None for a new run), after every refusal check; writes nothing."""
        try:
            self.oracle_log.check_columns()
            self.oracle_log.check_rows()
        except OracleLogError as exc:
            raise RunDirError(f"{exc}; use --overwrite to start again") from None
        leftovers = [n for n in (LOG_NAME, CHECKPOINT_NAME) if (self.run_dir / n).exists()]
        if leftovers and not (self.run_dir / RUN_JSON).exists():
            raise RunDirError(f"{self.run_dir} holds {' and '.join(leftovers)} but no {RUN_JSON}: the run cannot "
                              "be checked against its record; move them away or start again with --overwrite")
        path = self.run_dir / CHECKPOINT_NAME
        if not path.exists():
            return None
        try:
            state = load_checkpoint(path)
        except CheckpointError as exc:
            raise RunDirError(str(exc)) from None
        if state["digests"] != self._file_digests:
            raise RunDirError(f"the prior or agent file changed since {path} was written; "
                              "restore the original files or start again with --overwrite")
        paid: dict[int, int] = {}  # calls per stage when the checkpoint was written
        for record in state["history"]:
            paid[record["stage"]] = max(paid.get(record["stage"], 0), record["calls_used"])
        logged = self.oracle_log.calls_on_disk()
        if logged < sum(paid.values()):
            raise RunDirError(f"{self.oracle_log.path} holds {logged} calls but {path} was written after "
                              f"{sum(paid.values())}: the log was cut or replaced, and resuming would pay for "
                              "those calls again; restore the log or start again with --overwrite")
        return state

    def _clear_outputs(self) -> None:
        """--overwrite: delete the run's own files and the summaries its record names, nothing else (the run
        folder may be the working directory; TensorBoard folders and other files are never removed)."""
        d = self.run_dir
        for path in [*(d / n for n in (CHECKPOINT_NAME, LOG_NAME, CHANGES_JSON)), *self._own_summaries()]:
            path.unlink(missing_ok=True)
        (d / RUN_JSON).unlink(missing_ok=True)

    def _own_summaries(self) -> list[Path]:
        """Summary files this run wrote: those named by its record (run.json), else none (read-only)."""
        try:
            recorded = read_run_record(self.run_dir)
        except RunRecordError:  # a record is there but torn (--overwrite is the way out): this file's names
            return [self._summary_csv(i).path for i in range(len(self.config.stage))]
        if not recorded:
            return []
        prefix = recorded.get("parameters", {}).get("summary_csv_prefix", "summary")
        return [Path(f"{prefix}_{i + 1}.csv") for i in range(len(recorded.get("stage", [])))]

    def _check_no_foreign_summaries(self, overwrite: bool) -> None:
        """A new run (or --overwrite) would write summary files that no recorded run of this folder wrote:
        refuse rather than append to, or later delete, someone else's file (issue 23, item 9)."""
        if not overwrite and read_run_record(self.run_dir) is not None:
            return
        own = {p.resolve() for p in self._own_summaries()}
        foreign = [str(self._summary_csv(i).path) for i in range(len(self.config.stage))
                   if self._summary_csv(i).path.exists() and self._summary_csv(i).path.resolve() not in own]
        if foreign:
            raise RunDirError(f"{', '.join(foreign)} already exist(s) and no recorded run of {self.run_dir} wrote "
                              "them; move them away or choose another summary_csv_prefix (they are never deleted)")

    def _repair_oracle_log(self) -> None:
        torn = self.oracle_log.cut_torn_line()
        if torn is not None:
            stages = self.config.stage
            message = recover_torn_line(self.oracle_log, torn, lambda stage: Scorer(stages[stage - 1].scoring))
            if self.quiet:
                log.warning("repaired %s", message)
            self._say(f"repaired {message}")

    def _new_memory(self) -> ReplayMemory | None:
        inc = self.config.inception
        return ReplayMemory(inc.memory_size, inc.sample_size, inc.deduplicate) if inc and inc.memory_size else None

    def _restore(self, state: dict[str, Any]) -> None:
        self.agent.network.load_state_dict(state["agent"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.strategy.load_state_dict(state["strategy"])
        self.global_step, self.stage_index = state["global_step"], state["stage_index"]
        self.stage_step = state["stage_step"]
        self.stage_finished, self.stop_reason = state["stage_finished"], state["stop_reason"]
        if state["filter"] is not None:
            self.filter_stage = state["filter_stage"]
            self.filter = build_filter(self.config.filter_for(self.config.stage[self.filter_stage]))
            self.filter.load_state_dict(state["filter"])
        if self.memory is not None and state["memory"] is not None:
            self.memory.load_state_dict(state["memory"])
        self.hits = HitTracker.from_state_dict(state["hits"])
        self.outcomes.load_state_dict(state["outcomes"])
        self.history = [StepRecord(**r) for r in state["history"]]
        set_rng_state(state["rng"])
        self.rng.setstate(state["loop_rng"])
        self._summary_csv(self.stage_index).truncate_after(self.global_step)
        self._say(f"resuming {self.run_dir} at stage {self.stage_index + 1}, step {self.global_step}")

    def _restart_from_log(self) -> None:
        """No checkpoint yet (killed before the first): start again; logged calls come from the log, unpaid."""
        for index in range(len(self.config.stage)):
            self._summary_csv(index).truncate_after(0)
        self._say(f"{self.run_dir} has an oracle log but no checkpoint yet: starting again from step 0; "
                  f"the {len(self.oracle_log.read())} calls in {LOG_NAME} are reused, not paid again")

    def _checkpoint(self) -> None:
        save_checkpoint(self.run_dir / CHECKPOINT_NAME, {
            "agent": self.agent.network.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "strategy": self.strategy.state_dict(),
            "global_step": self.global_step, "stage_index": self.stage_index, "stage_step": self.stage_step,
            "stage_finished": self.stage_finished, "stop_reason": self.stop_reason,
            "filter": self.filter.state_dict() if self.filter else None, "filter_stage": self.filter_stage,
            "memory": self.memory.state_dict() if self.memory else None,
            "hits": self.hits.state_dict(), "history": [asdict(r) for r in self.history],
            "outcomes": self.outcomes.state_dict(),
            "rng": rng_state(), "loop_rng": self.rng.getstate(), "digests": self._file_digests,
        })

    def _summary_csv(self, stage_index: int) -> SummaryCsv:
        """``summary_<N>.csv`` of a stage: its own endpoints; a Scaffold column when it has a diversity filter."""
        stage = self.config.stage[stage_index]
        return SummaryCsv(Path(f"{self.config.parameters.summary_csv_prefix}_{stage_index + 1}.csv"),
                          _endpoint_union([stage]), scaffold=self.config.filter_for(stage) is not None)

    # --- the run ------------------------------------------------------------------------------------------
    def run(self, stop_on_signals: bool = False) -> RunResult:
        """Run (or continue) every stage. ``stop_on_signals`` (the CLI): SIGINT/SIGTERM end the run at the next
        step boundary with a checkpoint (``RunResult.interrupted_by``); a second signal raises RunInterrupted."""
        try:
            with self._stop_at_step_boundary_on_signals(stop_on_signals):
                for index, stage in enumerate(self.config.stage):
                    if index < self.stage_index or (index == self.stage_index and self.stage_finished
                                                    and self.stop_reason == "max_score"):
                        continue
                    if index > self.stage_index:
                        self._start_stage(index, stage)
                    self.stop_reason = self._run_stage(index, stage)
                    if self._stop_signal or self.stop_reason == VALIDITY_COLLAPSED:
                        break
        finally:
            if self._tb is not None:
                self._tb.close()
            self._lock.release()
        calls = len(self.oracle_log.read())
        return RunResult(self.run_dir, self.global_step, calls, len(self.hits.hits), len(self.hits.scaffolds),
                         self.stop_reason, self._stop_signal)

    @contextmanager
    def _stop_at_step_boundary_on_signals(self, enabled: bool) -> Iterator[None]:
        """First SIGINT/SIGTERM: finish the step, checkpoint, stop. A second one stops at once."""
        if not enabled or threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum: int, frame: Any) -> None:
            name = signal.Signals(signum).name
            if self._stop_signal:
                raise RunInterrupted(name, self.global_step)
            self._stop_signal = name
            self._say(f"{name}: stopping at the end of the current step (send it again to stop at once)")

        previous = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
        try:
            yield
        finally:
            for s, h in previous.items():
                signal.signal(s, h)

    def _start_stage(self, index: int, stage: Stage) -> None:
        """A new stage: fresh step count, and (purge_memories) a new diversity filter and replay memory."""
        self.stage_index, self.stage_step, self.stage_finished = index, 0, False
        if self.config.parameters.purge_memories or self.filter is None:
            self.filter = build_filter(self.config.filter_for(stage))
            self.filter_stage = index
            if self.memory is not None and index > 0:
                self.memory = self._new_memory()

    def _run_stage(self, index: int, stage: Stage) -> str:
        scorer = Scorer(stage.scoring)
        oracle = Oracle(scorer, self.oracle_log, index + 1, stage.max_oracle_calls)
        oracle.restore(self.oracle_log.read())
        summary = self._summary_csv(index)
        reason = "max_steps"
        invalid_steps = 0  # consecutive steps without one valid SMILES
        try:
            while self.stage_step < stage.max_steps and not self._stop_signal:
                if oracle.exhausted:
                    break
                record = self._step(stage, oracle, summary)
                if self._stop_signal:
                    break
                invalid_steps = invalid_steps + 1 if record.valid_fraction == 0 else 0
                if invalid_steps >= COLLAPSE_STEPS:
                    reason = VALIDITY_COLLAPSED
                    log.warning("stage %d: no valid SMILES in %d steps in a row", index + 1, invalid_steps)
                    self._say(f"stage {index + 1}: no valid SMILES in {invalid_steps} steps in a row: the agent has "
                              "collapsed (learning rate too high?); stopping")
                    break
                if self.global_step % self.config.parameters.checkpoint_every == 0:
                    self._checkpoint()
                if (stage.max_score is not None and self.stage_step >= (stage.min_steps or 0)
                        and record.mean_score >= stage.max_score):
                    reason = "max_score"
                    break
            if oracle.exhausted:
                reason = "oracle budget"
        finally:
            scorer.close()
        if self._stop_signal:
            self._checkpoint()
            return "interrupted"
        self.stage_finished = True
        self.stop_reason = reason
        self._checkpoint()
        agent_path = write_stage_agent(self.agent, self.config, index, step=self.global_step, stage_steps=self.stage_step,
                                       oracle_calls=oracle.calls, stop_reason=reason,
                                       prior_digest=self._file_digests["prior"])
        self._say(f"stage {index + 1} finished ({reason}): {oracle.calls} oracle calls, {self.stage_step} steps; "
                  f"agent written to {agent_path}")
        return reason

    def _step(self, stage: Stage, oracle: Oracle, summary: SummaryCsv) -> StepRecord:
        t0 = time.perf_counter()
        p = self.config.parameters
        sampled = self.agent.sample(p.batch_size, temperature=p.temperature, with_log_likelihood=self._fused_likelihood)
        canon = [canonicalize(s) for s in sampled.smiles]
        states, seen = [], set()
        for c in canon:
            states.append(SmilesState.INVALID if c is None
                          else SmilesState.DUPLICATE if c in seen else SmilesState.VALID)
            if c is not None:
                seen.add(c)
        t_oracle = time.perf_counter()
        mols = ParsedMolecules()  # each new molecule parsed once: for the scorer, then for its scaffold
        scored = oracle.score([c for c in canon if c is not None], self.global_step + 1, mols)
        oracle_seconds = time.perf_counter() - t_oracle
        # scaffolds once per molecule, only where used: hits, and the summary's Scaffold column (with a filter);
        # taken before the filter and the IPS outcomes ask for them, so that they come from the cache
        scaffold_all = "Scaffold" in summary.columns
        scaffolds = {c: murcko_scaffold(c, mol=mols.get(c)) for c in dict.fromkeys(canon) if c and (
            scaffold_all or (c in scored and scored[c].total >= self.hits.threshold))}
        totals = scores_array(canon, scored)
        keep = np.array([c is None or c in scored for c in canon])  # valid but unscored (budget) rows drop out
        scores = np.nan_to_num(totals, nan=0.0)
        filtered = self.filter.apply([c if c in scored else None for c in canon], scores, self.global_step) if self.filter else scores
        penalised = [c for c, s, f in zip(canon, scores, filtered) if c and f < s]  # by the filter: augmentation's purge
        if self.strategy.zero_batch_duplicates:  # REINVENT zeroes in-batch duplicates; IPS counts them instead
            filtered = np.where(np.array(states) == SmilesState.DUPLICATE, 0.0, filtered)
        # unique_sequences (REINVENT): a token sequence sampled twice enters the update once
        in_update = keep & _first_occurrences(sampled.smiles) if p.unique_sequences else keep
        loss, columns = self._update(sampled.tokens, canon, filtered, in_update, oracle, sampled.log_likelihood)
        if self.memory is not None:
            self.memory.add([c for c, k in zip(canon, keep) if c and k], [s for c, s, k in zip(canon, filtered, keep) if c and k])
        if self.augmentation is not None:  # augmented memory: more updates on random SMILES, no oracle call
            self.augmentation(self._step_update, self.memory, penalised)
        self.stage_step += 1
        self.global_step += 1
        for c in dict.fromkeys(c for c in canon if c and c in scored):
            self.hits.update(c, scored[c].total, scaffolds.get(c))
        elapsed = time.perf_counter() - t0
        record = StepRecord(
            stage=self.stage_index + 1, step=self.global_step, calls_used=oracle.calls, budget=oracle.budget,
            valid_fraction=float(np.mean([c is not None for c in canon])),
            duplicate_fraction=float(np.mean(np.array(states) == SmilesState.DUPLICATE)),
            mean_score=_mean_scored(totals, canon, scored),
            best_score=self.hits.best, hits=len(self.hits.hits), hit_scaffolds=len(self.hits.scaffolds),
            loss=loss, seconds=elapsed, non_oracle_seconds=elapsed - oracle_seconds,
        )
        self.history.append(record)
        self._write_summary(summary, sampled.smiles, canon, states, scaffolds, filtered, columns, keep, scored)
        self._log_scalars(record)
        if not self.quiet and (self.global_step % self.progress_every == 0):
            self._say(self._progress_line(record))
        return record

    @property
    def _fused_likelihood(self) -> bool:
        """The agent's log-likelihoods come from its sampling pass (no second forward) unless dropout would make
        the sampling pass (eval mode) differ from the training-mode likelihood."""
        return not self.agent.network.hyperparameters().get("dropout", 0.0)

    def _update(self, tokens: torch.Tensor, canon: list[str | None], filtered: np.ndarray, keep: np.ndarray,
                oracle: Oracle, sampled_logp: torch.Tensor | None = None) -> tuple[float, dict[str, np.ndarray]]:
        """One optimiser step; returns the loss and per-sample Target, Agent and Prior (NLL) columns.
        ``sampled_logp``: the agent's log-likelihoods computed while sampling (then not recomputed)."""
        idx = torch.as_tensor(np.nonzero(keep)[0], dtype=torch.long)
        tokens = tokens[idx.to(tokens.device)]
        kept_canon = [canon[i] for i in idx.tolist()]
        replay = self.memory.sample(self.rng, self.config.parameters.randomize_smiles) if self.memory else []
        replay_tokens, kept_replay = self._encode([s for s, _ in replay])
        replay_scores = [replay[i][1] for i in kept_replay]
        if sampled_logp is not None:
            agent_logp = sampled_logp[idx.to(sampled_logp.device)]
        else:
            agent_logp = self.agent.sequence_log_likelihood(tokens)
        # batch and replay rows in one prior pass; measured against two passes, the batch rows keep their bits and the
        # replay rows do not (last bits: MKL picks its kernel by the row count; README, "Throughput of a run")
        with torch.no_grad():
            prior_logp = self.prior.sequence_log_likelihood(_stack_padded(tokens, replay_tokens, self.prior.vocabulary.pad_idx))
        scores = torch.as_tensor(filtered[keep], dtype=torch.float32, device=self.device)
        ids, p_hat = self.outcomes.step(kept_canon, [s for s, _ in self.memory.entries] if self.memory else [])
        is_replay = torch.zeros(len(kept_canon), dtype=torch.bool)
        if replay_scores:
            agent_logp = torch.cat([agent_logp, self.agent.sequence_log_likelihood(replay_tokens)])
            scores = torch.cat([scores, torch.as_tensor(replay_scores, dtype=torch.float32, device=self.device)])
            ids = torch.cat([ids, torch.arange(len(replay_scores)) + int(ids.max().item() if len(ids) else 0) + 1])
            is_replay = torch.cat([is_replay, torch.ones(len(replay_scores), dtype=torch.bool)])
            p_hat = None if p_hat is None else torch.cat([p_hat, torch.ones(len(replay_scores))])
        batch = StrategyBatch(
            agent_logp=agent_logp, prior_logp=prior_logp, scores=scores, outcome_ids=ids.to(self.device),
            is_replay=is_replay.to(self.device), prior_sample_agent_logp=self._prior_sample_logp(len(kept_canon)),
            outcome_freq=None if p_hat is None else p_hat.to(self.device), **self._anchor_pool(),
        )
        out = self.strategy(batch)
        self.optimizer.zero_grad(set_to_none=True)
        out.loss.backward()
        self.optimizer.step()
        if self.augmentation is not None:
            self._step_update = StepUpdate(batch, out, kept_canon, tokens)
        # "Target" in the summary: DAP's target log-likelihood where the strategy has one, else its reward
        target = out.targets if out.targets is not None else out.rewards
        n = len(kept_canon)
        columns = {}
        for name, values in (("Target", target), ("Agent", -agent_logp), ("Prior", -prior_logp)):
            column = np.full(len(canon), np.nan)
            column[keep] = values[:n].detach().cpu().numpy()
            columns[name] = column
        return float(out.loss.detach()), columns

    def _encode(self, smiles: list[str]) -> tuple[torch.Tensor | None, list[int]]:
        """Token rows for the SMILES the vocabulary can spell, and their indices (the rest are skipped)."""
        good = []
        for i, s in enumerate(smiles):
            try:
                self.agent.vocabulary.encode(s)
                good.append(i)
            except UnknownTokenError:
                continue
        if not good:
            return None, []
        return self.agent.vocabulary.encode_batch([smiles[i] for i in good]).to(self.device), good

    def _prior_sample_logp(self, n: int) -> torch.Tensor | None:
        """Agent log-likelihood of prior samples: the maximum-likelihood form of a forward-KL term."""
        params = self.strategy.params
        if not (isinstance(params, PolicyGradientParams) and params.kl == "forward"):
            return None
        sampled = self.prior.sample(max(1, n))
        return self.agent.sequence_log_likelihood(sampled.tokens)

    def _anchor_pool(self) -> dict[str, torch.Tensor | None]:
        params = self.strategy.params
        uses_memory = isinstance(params, MaraOptions) and params.mara and params.anchor_pool == "batch+memory"
        if not uses_memory or not self.memory:
            return {}
        tokens, kept = self._encode([s for s, _ in self.memory.entries])
        if tokens is None:
            return {}
        with torch.no_grad():
            pool_logp = self.prior.sequence_log_likelihood(tokens)
        scores = [self.memory.entries[i][1] for i in kept]
        return {"anchor_pool_prior_logp": pool_logp,
                "anchor_pool_scores": torch.as_tensor(scores, dtype=torch.float32, device=self.device)}

    # --- outputs ------------------------------------------------------------------------------------------
    def _write_summary(self, summary: SummaryCsv, raw_smiles: list[str], canon: list[str | None], states: list[int],
                       scaffolds: dict[str, str | None], filtered: np.ndarray, columns: dict[str, np.ndarray],
                       keep: np.ndarray, scored: dict) -> None:
        rows = []
        for i, smi in enumerate(raw_smiles):
            c = canon[i]
            entry = scored.get(c) if c else None
            score = filtered[i] if keep[i] else None
            row: dict[str, object] = {
                **{name: reinvent_number(columns[name][i] if keep[i] else None, 4)
                   for name in ("Agent", "Prior", "Target")},
                "Score": reinvent_number(0.0 if states[i] == SmilesState.INVALID else score, 7),
                "SMILES": c or smi, "SMILES_state": int(states[i]), "step": self.global_step,
            }
            if "Scaffold" in summary.columns:
                row["Scaffold"] = (scaffolds[c] or "") if c else ""
            for name in summary.endpoints:
                # REINVENT: invalid rows 0 and 0; duplicates' transformed scores 0 (raw kept); unscored rows empty
                if states[i] == SmilesState.INVALID:
                    value, raw = 0.0, 0.0
                elif entry is None:
                    value = raw = None
                else:
                    value = 0.0 if states[i] == SmilesState.DUPLICATE else entry.scores.get(name, math.nan)
                    raw = entry.raw.get(name, math.nan)
                row[name], row[raw_column(name)] = reinvent_number(value, 7), reinvent_number(raw, 4)
            rows.append(row)
        summary.append(rows)

    def _log_scalars(self, r: StepRecord) -> None:
        if not self.config.tb_logdir:
            return
        if self._tb is None:
            from torch.utils.tensorboard import SummaryWriter

            self._tb = SummaryWriter(self.config.tb_logdir)
        values = asdict(r)
        for key in ("calls_used", "valid_fraction", "duplicate_fraction", "mean_score", "best_score", "hits",
                    "hit_scaffolds", "loss", "seconds"):
            self._tb.add_scalar(key, values[key], r.step)

    def _progress_line(self, r: StepRecord) -> str:
        budget = f"/{r.budget}" if r.budget else ""
        return (f"stage {r.stage} step {r.step:4d} | oracle {r.calls_used}{budget} | valid {r.valid_fraction:4.0%} "
                f"dup {r.duplicate_fraction:4.0%} | mean {r.mean_score:.3f} best {r.best_score:.3f} | "
                f"hits>={self.hits.threshold:g} {r.hits} ({r.hit_scaffolds} scaffolds) | {r.seconds:.2f} s")

    def _say(self, text: str) -> None:
        if not self.quiet:
            print(text, file=sys.stderr, flush=True)


def _mean_scored(totals: np.ndarray, canon: list[str | None], scored: dict) -> float:
    """Mean total score over this step's scored valid samples (failed scores count as 0, unscored are left out)."""
    mask = np.array([c is not None and c in scored for c in canon])
    return float(np.nan_to_num(totals[mask], nan=0.0).mean()) if mask.any() else 0.0


def _stack_padded(tokens: torch.Tensor, more: torch.Tensor | None, pad: int) -> torch.Tensor:
    """Rows of ``tokens`` then ``more`` (if any), right-padded to the longer width."""
    if more is None:
        return tokens
    width = max(tokens.shape[1], more.shape[1])
    return torch.cat([torch.nn.functional.pad(t, (0, width - t.shape[1]), value=pad) for t in (tokens, more)])
