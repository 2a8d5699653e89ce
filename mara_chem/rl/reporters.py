"""Where a step's report goes: each reporter takes the step's frozen :class:`~mara_chem.rl.step_report.StepReport`
(the loop hands it to its list of reporters, in order: summary CSV, TensorBoard, console, checkpoint)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from mara_chem.rl.step_report import StepRecord, StepReport
from mara_chem.rl.summary_csv import SummaryCsv


class Reporter(ABC):
    """One destination of a step's report."""

    @abstractmethod
    def report(self, report: StepReport) -> None:
        """Record the step."""

    def close(self) -> None:
        """The run is over (files are closed); nothing by default."""


class SummaryCsvReporter(Reporter):
    """The stage's summary CSV: one row per sampled SMILES."""

    def __init__(self, summary: SummaryCsv) -> None:
        self.summary = summary

    def report(self, report: StepReport) -> None:
        self.summary.append_step(report.samples, report.record.step)


#: the StepRecord fields written to TensorBoard each step
TENSORBOARD_SCALARS = ("calls_used", "valid_fraction", "duplicate_fraction", "mean_score", "best_score", "hits",
                       "hit_scaffolds", "loss", "seconds")


class TensorBoardReporter(Reporter):
    """Each step's figures as TensorBoard scalars under ``tb_logdir`` (nothing without one; the writer, and so
    tensorboard, only on the first step)."""

    def __init__(self, logdir: str | None) -> None:
        self.logdir = logdir
        self._writer: Any = None

    def report(self, report: StepReport) -> None:
        record = report.record
        if not self.logdir:
            return
        if self._writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(self.logdir)
        values = asdict(record)
        for key in TENSORBOARD_SCALARS:
            self._writer.add_scalar(key, values[key], record.step)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()


class ConsoleReporter(Reporter):
    """The progress line, every ``every`` steps (nothing when quiet)."""

    def __init__(self, say: Callable[[str], None], every: int, quiet: bool) -> None:
        self.say, self.every, self.quiet = say, every, quiet

    def report(self, report: StepReport) -> None:
        if not self.quiet and report.record.step % self.every == 0:
            self.say(progress_line(report.record, report.hit_threshold))


class CheckpointReporter(Reporter):
    """The run's checkpoint every ``every`` steps (``save`` writes the loop's whole state)."""

    def __init__(self, save: Callable[[], None], every: int) -> None:
        self.save, self.every = save, every

    def report(self, report: StepReport) -> None:
        if report.record.step % self.every == 0:
            self.save()


def progress_line(r: StepRecord, hit_threshold: float) -> str:
    budget = f"/{r.budget}" if r.budget else ""
    return (f"stage {r.stage} step {r.step:4d} | oracle {r.calls_used}{budget} | valid {r.valid_fraction:4.0%} "
            f"dup {r.duplicate_fraction:4.0%} | mean {r.mean_score:.3f} best {r.best_score:.3f} | "
            f"hits>={hit_threshold:g} {r.hits} ({r.hit_scaffolds} scaffolds) | {r.seconds:.2f} s")
