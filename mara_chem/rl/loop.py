"""The staged-learning loop (docs/architecture.md, "Data flow of a run"): sample -> canonicalise -> oracle ->
filter -> replay -> loss -> step.

The loop owns the optimiser, the oracle, the filters and the replay memory; the learning strategy only
turns tensors into a loss. A stage ends on max_score or its oracle budget (the next stage starts) or on
max_steps, which ends the whole run as in REINVENT 4.8; the budget is never exceeded.

One step's samples travel as one record (:class:`~mara_chem.rl.step_samples.StepSamples`); the strategy's batch
is built by :mod:`mara_chem.rl.strategy_inputs` (as inside REINVENT) and every optimiser step is
:mod:`mara_chem.rl.learning_step`'s; each step ends with one frozen report (:mod:`mara_chem.rl.step_report`) handed
to the reporters (:mod:`mara_chem.rl.reporters`: summary CSV, TensorBoard, console, checkpoint).

Run-folder safety: one writer per folder (:mod:`mara_chem.run_folder.run_lock`); a resume must describe the same run
(:mod:`mara_chem.rl.run_session`) and every check happens before anything in the folder is written; the
oracle log is the source of truth, so a run killed at any moment resumes without losing or re-paying calls
(no checkpoint yet: the run starts again and takes the logged calls from the log); SIGINT/SIGTERM stop the
run at the next step boundary with a checkpoint.
"""

from __future__ import annotations

import logging
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mara_chem.chem.smiles import ParsedMolecules, murcko_scaffold
from mara_chem.models.device import DeviceError, resolve_device
from mara_chem.models.language_model import LanguageModel
from mara_chem.models.prior_file import load_prior, weights_digest
from mara_chem.rl.agent_file import write_stage_agent
from mara_chem.rl.agent_update import AgentUpdate
from mara_chem.rl.augmentation import AugmentedMemory
from mara_chem.rl.checkpoint import CHECKPOINT_NAME, rng_state, save_checkpoint, set_rng_state
from mara_chem.rl.loop_state import LoopState
from mara_chem.rl.config import RunConfig, Stage
from mara_chem.rl.diversity_filters import DiversityFilter, build_filter
from mara_chem.rl.genetic import GeneticExploration
from mara_chem.rl.oracle import LOG_NAME, Oracle, OracleLog
from mara_chem.rl.replay import ModeReplayMemory, ReplayMemory
from mara_chem.rl.run_session import RunDirError, RunSession
from mara_chem.rl.step_samples import StepSamples, first_occurrences
from mara_chem.rl.strategies import build_strategy, strategy_description
from mara_chem.rl.hits import HitTracker
from mara_chem.rl.reporters import (
    CheckpointReporter,
    ConsoleReporter,
    Reporter,
    SummaryCsvReporter,
    TensorBoardReporter,
)
from mara_chem.rl.step_report import StepRecord, StepReport, mean_scored
from mara_chem.rl.summary_csv import endpoint_union, stage_summary
from mara_chem.run_folder.oracle_log import GENETIC
from mara_chem.scoring.scorer import Scorer

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: steps in a row without a single valid SMILES after which the run stops: the agent has collapsed (rate 1e3
#: ran 19 such steps and exited 0 with a broken agent)
COLLAPSE_STEPS = 5
VALIDITY_COLLAPSED = "validity collapsed"


class RunInterrupted(BaseException):
    """A second SIGINT/SIGTERM while a step was still running: stop now (the log already holds every paid call).

    A BaseException, like KeyboardInterrupt, so that no ``except Exception`` on the way (a scoring component's
    per-molecule guard, guacamol's own scoring function) can turn it into that molecule's failed score, which
    the log would keep as a paid call."""

    def __init__(self, signal_name: str, step: int):
        super().__init__(f"stopped by {signal_name} during step {step + 1}")
        self.signal_name = signal_name


class AgentDiverged(RuntimeError):
    """A step's update left the agent's weights not finite: the run stops before that step's checkpoint (the
    last one stays finite) and the step's paid calls are in the log, for ``--restart`` to reuse."""

    def __init__(self, step: int, stage: int, calls: int):
        super().__init__(f"the agent's weights are not finite after the update of step {step} (stage {stage}): the "
                         f"run diverged (learning rate or likelihood_penalty too large?); the {calls} paid oracle "
                         "calls are in the log")
        self.step = step


@dataclass
class RunResult:
    run_dir: Path
    steps: int
    oracle_calls: int
    hits: int
    hit_scaffolds: int
    stop_reason: str
    interrupted_by: str | None = None  # "SIGINT" or "SIGTERM" when a signal stopped the run at a step boundary


@contextmanager
def _signals_handled_by(handler: Callable[[str], None], enabled: bool) -> Iterator[None]:
    """SIGINT/SIGTERM call ``handler(signal name)`` inside the block (main thread only; else nothing changes)."""
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, lambda signum, frame: handler(signal.Signals(signum).name)) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


class StagedLearning:
    """One staged-learning run in its folder: ``__init__`` checks the folder and takes it, :meth:`run` runs the
    stages, and each step samples, scores, filters, updates the agent and reports (module docstring)."""

    def __init__(self, config: RunConfig, overwrite: bool = False, quiet: bool = False, progress_every: int = 1,
                 restart: bool = False):
        self.config = config
        self.quiet = quiet
        self.progress_every = progress_every
        self.run_dir = config.run_dir
        try:
            self.device = resolve_device(config.device)
        except DeviceError as exc:
            raise RunDirError(str(exc)) from None
        self.endpoints = endpoint_union(config.stage)
        self.oracle_log = OracleLog(self.run_dir / LOG_NAME, self.endpoints, sources=config.genetic_on)
        self._build()
        self.session = RunSession(config, self.oracle_log, self._say, quiet)
        self.session.open(overwrite, self._file_digests, restore=self._restore, restart=restart)

    # --- set-up: every check first, then the first write ------------------------------------------------
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
        self.optimizer = torch.optim.Adam([
            {"params": list(self.agent.network.parameters()), "lr": self.strategy.params.rate},
            *self.strategy.optimizer_param_groups(),
        ])
        self.update = AgentUpdate(self.agent, self.prior, self.strategy, self.optimizer, self.rng,
                                  p.randomize_smiles, self.device)
        self.augmentation = AugmentedMemory(p.augmentation_rounds, p.selective_memory_purge, self.agent, self.prior,
                                            self.update.inputs, self.update.learn, self.rng,
                                            self.update.prior_sample_logp) if p.augmentation_rounds else None
        self.genetic = GeneticExploration(
            config.genetic, self.agent, self.prior, self.update.inputs, self.update.learn, self.rng, self.device,
            self.update.prior_sample_logp, self.update.anchor_pool, self.update.memory_smiles,
            isomeric=p.isomeric_smiles,
        ) if config.genetic_on else None
        self.state = LoopState()
        self.filter: DiversityFilter | None = None
        self.memory = self._new_memory()
        self.hits = HitTracker(p.hit_threshold)
        self.tensorboard = TensorBoardReporter(self.config.tb_logdir)
        self.console = ConsoleReporter(self._say, self.progress_every, self.quiet)
        self._stop_signal: str | None = None

    def _new_memory(self) -> ReplayMemory | None:
        inc = self.config.inception
        if not inc or not inc.memory_size:
            return None
        if inc.replay == "remax":
            return ModeReplayMemory(inc.memory_size, inc.sample_size, inc.mode, inc.mode_similarity, inc.min_score)
        return ReplayMemory(inc.memory_size, inc.sample_size, inc.deduplicate)

    def _parts(self) -> dict[str, Any]:
        """What a checkpoint saves by its own ``state_dict`` and restores by ``load_state_dict``."""
        return {"agent": self.agent.network, "optimizer": self.optimizer, "strategy": self.strategy,
                "outcomes": self.update.inputs}

    def _restore(self, state: dict[str, Any]) -> None:
        for name, part in self._parts().items():
            part.load_state_dict(state[name])
        self.state = LoopState.from_checkpoint(state)
        if state["filter"] is not None:
            self.filter = build_filter(self.config.filter_for(self.config.stage[self.state.filter_stage]))
            self.filter.load_state_dict(state["filter"])
        if self.memory is not None and state["memory"] is not None:
            self.memory.load_state_dict(state["memory"])
        self.hits = HitTracker.from_state_dict(state["hits"])
        if self.genetic is not None and state.get("genetic") is not None:
            self.genetic.load_state_dict(state["genetic"])
        set_rng_state(state["rng"])
        self.rng.setstate(state["loop_rng"])
        # the steps after the checkpoint are redone: drop their rows from this stage's summary and from any later
        # stage's (a kill early in the next stage, before its first checkpoint, leaves rows there too)
        for index in range(max(self.state.stage_index, 0), len(self.config.stage)):
            stage_summary(self.config, index).truncate_after(self.state.global_step)
        self._say(f"resuming {self.run_dir} at stage {self.state.stage_index + 1}, step {self.state.global_step}")

    def _checkpoint(self) -> None:
        save_checkpoint(self.run_dir / CHECKPOINT_NAME, {
            **{name: part.state_dict() for name, part in self._parts().items()},
            **self.state.to_checkpoint(),
            "filter": self.filter.state_dict() if self.filter else None,
            "memory": self.memory.state_dict() if self.memory else None,
            "hits": self.hits.state_dict(),
            "genetic": self.genetic.state_dict() if self.genetic else None,
            "rng": rng_state(), "loop_rng": self.rng.getstate(), "digests": self._file_digests,
        })

    @property
    def history(self) -> list[StepRecord]:
        return self.state.history

    # --- the run ------------------------------------------------------------------------------------------
    def run(self, stop_on_signals: bool = False) -> RunResult:
        """Run (or continue) every stage. ``stop_on_signals`` (the CLI): SIGINT/SIGTERM end the run at the next
        step boundary with a checkpoint (``RunResult.interrupted_by``); a second signal raises RunInterrupted."""
        description = strategy_description(self.strategy.params)
        log.info("Using %s", description)
        self._say(f"Using {description}")  # as REINVENT's log says it (docs/reinvent.md)
        try:
            with _signals_handled_by(self._on_stop_signal, stop_on_signals):
                for index, stage in enumerate(self.config.stage):
                    if self._stage_done(index, stage):
                        continue
                    if index > self.state.stage_index:
                        self._start_stage(index, stage)
                    self.state.ended_with_stages = None
                    self.state.stop_reason = self._run_stage(index, stage)
                    if self._stop_signal or self.state.stop_reason == VALIDITY_COLLAPSED:
                        break
                    if self.state.stage_step >= stage.max_steps:  # REINVENT 4.8: max_steps ends the whole run
                        self.state.ended_with_stages = len(self.config.stage)
                        self._checkpoint()
                        if index + 1 < len(self.config.stage):
                            self._say(f"stage {index + 1} reached max_steps ({stage.max_steps}): the run ends here, "
                                      f"as in REINVENT; stages {index + 2}-{len(self.config.stage)} are not run")
                        break
        finally:
            self.tensorboard.close()
            self.session.release()
        calls = len(self.oracle_log.read())
        return RunResult(self.run_dir, self.state.global_step, calls, len(self.hits.hits), len(self.hits.scaffolds),
                         self.state.stop_reason, self._stop_signal)

    def _stage_done(self, index: int, stage: Stage) -> bool:
        """Whether a resume skips this stage: an earlier one, one ended by max_score, or one of the stages the run
        file had when a stage's max_steps ended the run (unless the resume raised that stage's max_steps)."""
        s = self.state
        if index < s.stage_index:
            return True
        if index == s.stage_index and s.stage_finished and s.stop_reason == "max_score":
            return True
        if s.ended_with_stages is not None and index < s.ended_with_stages:
            return not (index == s.stage_index and s.stage_step < stage.max_steps)
        return False

    def _on_stop_signal(self, name: str) -> None:
        """First SIGINT/SIGTERM: finish the step, checkpoint, stop. A second one stops at once."""
        if self._stop_signal:
            raise RunInterrupted(name, self.state.global_step)
        self._stop_signal = name
        self._say(f"{name}: stopping at the end of the current step (send it again to stop at once)")

    def _start_stage(self, index: int, stage: Stage) -> None:
        """A new stage: fresh step count, and (purge_memories) a new diversity filter, replay memory and genetic
        buffer (their scores were another stage's)."""
        self.state.stage_index, self.state.stage_step, self.state.stage_finished = index, 0, False
        if self.config.parameters.purge_memories or self.filter is None:
            self.filter = build_filter(self.config.filter_for(stage))
            self.state.filter_stage = index
            if self.memory is not None and index > 0:
                self.memory = self._new_memory()
            if self.genetic is not None and index > 0:
                self.genetic.clear()

    def _run_stage(self, index: int, stage: Stage) -> str:
        scorer = Scorer(stage.scoring)
        oracle = Oracle(scorer, self.oracle_log, index + 1, stage.max_oracle_calls)
        oracle.restore(self.oracle_log.read())
        summary = stage_summary(self.config, index)
        reporters: list[Reporter] = [SummaryCsvReporter(summary), self.tensorboard, self.console,
                                     CheckpointReporter(self._checkpoint, self.config.parameters.checkpoint_every)]
        scaffold_column = "Scaffold" in summary.columns
        reason = "max_steps"
        invalid_steps = 0  # consecutive steps without one valid SMILES
        try:
            while self.state.stage_step < stage.max_steps and not self._stop_signal:
                if oracle.exhausted:
                    break
                record = self._step(oracle, reporters, scaffold_column)
                if self._stop_signal:
                    break
                invalid_steps = invalid_steps + 1 if record.valid_fraction == 0 else 0
                if invalid_steps >= COLLAPSE_STEPS:
                    reason = VALIDITY_COLLAPSED
                    log.warning("stage %d: no valid SMILES in %d steps in a row", index + 1, invalid_steps)
                    self._say(f"stage {index + 1}: no valid SMILES in {invalid_steps} steps in a row: the agent has "
                              "collapsed (learning rate too high?); stopping")
                    break
                # REINVENT's SimpleTerminator: its 0-based step index must exceed min_steps (min_steps + 2 steps)
                if (stage.max_score is not None and self.state.stage_step - 1 > (stage.min_steps or 0)
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
        self.state.stage_finished = True
        self.state.stop_reason = reason
        self._checkpoint()
        agent_path = write_stage_agent(self.agent, self.config, index, step=self.state.global_step, stage_steps=self.state.stage_step,
                                       oracle_calls=oracle.calls, stop_reason=reason,
                                       prior_digest=self._file_digests["prior"])
        self._say(f"stage {index + 1} finished ({reason}): {oracle.calls} oracle calls, {self.state.stage_step} steps; "
                  f"agent written to {agent_path}")
        return reason

    def _step(self, oracle: Oracle, reporters: list[Reporter], scaffold_column: bool) -> StepRecord:
        """One step: sample, score, filter, update (then augmented memory and the genetic harness); its report goes
        to ``reporters`` in order."""
        t0 = time.perf_counter()
        p = self.config.parameters
        samples = StepSamples.from_sampled(self.agent.sample(p.batch_size, temperature=p.temperature,
                                                             with_log_likelihood=self.update.fused_likelihood),
                                           isomeric=p.isomeric_smiles)
        t_oracle = time.perf_counter()
        mols = ParsedMolecules()  # each new molecule parsed once: for the scorer, then for its scaffold
        samples.take_scores(oracle.score(samples.valid_smiles, self.state.global_step + 1, mols))
        oracle_seconds = time.perf_counter() - t_oracle
        samples.scaffolds = self._scaffolds(samples, mols, every_row=scaffold_column)
        self._filter(samples)
        on_policy = self.genetic is None or self.config.genetic.on_policy_update
        kept = [i for i, c in enumerate(samples.canonical) if c and samples.has_score[i]]
        # the batch joins the replay memory after the update draws its replay sample, unless replay_includes_step
        # (REINVENT 4's order: the step can replay its own molecules)
        add_first = self.config.inception is not None and self.config.inception.replay_includes_step
        step_entries = ([samples.canonical[i] for i in kept], [samples.filtered[i] for i in kept])
        if self.memory is not None and add_first:
            self.memory.add(*step_entries)
        loss = self.update(samples, self.memory) if on_policy else self.update.skip(samples, self.memory)
        self._stop_if_diverged()
        if self.memory is not None and not add_first:
            self.memory.add(*step_entries)
        if self.augmentation is not None:  # augmented memory: more updates on random SMILES, no oracle call
            self.augmentation(self.update.last, self.memory, samples.penalised)
        if self.genetic is not None:  # offspring (paid calls, source "genetic"), then off-policy replay
            _, replay_losses = self.genetic([(samples.canonical[i], float(samples.filtered[i])) for i in kept],
                                            lambda smiles: self._score_offspring(oracle, smiles),
                                            lambda: oracle.exhausted)
            if not on_policy and replay_losses:  # the step's loss is then its off-policy updates' mean
                loss = float(np.mean(replay_losses))
        if self.augmentation is not None or self.genetic is not None:  # their updates can diverge the agent too
            self._stop_if_diverged()
        self.state.stage_step += 1
        self.state.global_step += 1
        for c in dict.fromkeys(c for c in samples.canonical if c and c in samples.scored):
            self.hits.update(c, samples.scored[c].total, samples.scaffolds.get(c))
        elapsed = time.perf_counter() - t0
        record = StepRecord(
            stage=self.state.stage_index + 1, step=self.state.global_step, calls_used=oracle.calls, budget=oracle.budget,
            valid_fraction=float(np.mean([c is not None for c in samples.canonical])),
            duplicate_fraction=float(np.mean(samples.duplicate)), mean_score=mean_scored(samples),
            best_score=self.hits.best, hits=len(self.hits.hits), hit_scaffolds=len(self.hits.scaffolds),
            loss=loss, seconds=elapsed, non_oracle_seconds=elapsed - oracle_seconds,
        )
        self.state.history.append(record)
        report = StepReport(record, samples, self.hits.threshold)
        for reporter in reporters:
            reporter.report(report)
        return record

    def _stop_if_diverged(self) -> None:
        """Stops the run before the step's checkpoint when an update left a weight NaN or infinite (about 7 ms a
        check for the 2 × 256 ZINC prior, one thread; docs/reliability.md)."""
        if not all(bool(torch.isfinite(w).all()) for w in self.agent.network.parameters()):
            raise AgentDiverged(self.state.global_step + 1, self.state.stage_index + 1, len(self.oracle_log.read()))

    def _score_offspring(self, oracle: Oracle, smiles: list[str]) -> list[tuple[str, float]]:
        """The genetic harness's children as molecules of the step: paid oracle calls logged with source "genetic"
        (repeats free, none over the budget), the diversity filter's scores, the hit count and the replay memory;
        returns (SMILES, filtered score) of those the oracle answered."""
        mols = ParsedMolecules()
        scored = oracle.score(smiles, self.state.global_step + 1, mols, source=GENETIC)
        answered = [s for s in smiles if s in scored]
        if not answered:
            return []
        totals = np.nan_to_num(np.array([scored[s].total for s in answered], dtype=float), nan=0.0)
        filtered = self.filter.apply(list(answered), totals, self.state.global_step) if self.filter else totals
        for s in answered:
            total = scored[s].total
            hit = np.isfinite(total) and total >= self.hits.threshold
            self.hits.update(s, total, murcko_scaffold(s, mol=mols.get(s)) if hit else None)
        if self.memory is not None:
            self.memory.add(answered, [float(v) for v in filtered])
        return [(s, float(v)) for s, v in zip(answered, filtered)]

    def _filter(self, samples: StepSamples) -> None:
        """The scores the strategy learns from (``filtered``) and the rows it learns from (``in_update``)."""
        scores = np.nan_to_num(samples.totals, nan=0.0)
        filtered = self.filter.apply(samples.scored_canonical, scores, self.state.global_step) if self.filter else scores
        samples.penalised = [c for c, s, f in zip(samples.canonical, scores, filtered) if c and f < s]
        if self.strategy.zero_batch_duplicates:  # REINVENT zeroes in-batch duplicates; IPS counts them instead
            filtered = np.where(samples.duplicate, 0.0, filtered)
        samples.filtered = filtered
        # unique_sequences (REINVENT): a token sequence sampled twice enters the update once
        unique = first_occurrences(samples.raw) if self.config.parameters.unique_sequences else True
        samples.in_update = samples.has_score & unique

    def _scaffolds(self, samples: StepSamples, mols: ParsedMolecules, every_row: bool) -> dict[str, str | None]:
        """Scaffolds once per molecule, only where used: hits, and (``every_row``) the summary's Scaffold column;
        taken before the filter and the IPS outcomes ask for them, so that they come from the cache."""
        scored, threshold = samples.scored, self.hits.threshold
        return {c: murcko_scaffold(c, mol=mols.get(c)) for c in dict.fromkeys(samples.canonical)
                if c and (every_row or (c in scored and scored[c].total >= threshold))}

    # --- outputs ------------------------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        if not self.quiet:
            print(text, file=sys.stderr, flush=True)
