"""Where a staged-learning run stands between steps: one dataclass, saved and restored whole.

The models, optimiser, strategy, filter, memory and trackers bring their own ``state_dict``; this is the rest
(which stage, which step, why the last stage stopped, the step history). A checkpoint stores its fields at the
top level beside the parts' states, so :meth:`LoopState.from_checkpoint` reads every checkpoint format 3 file.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from mara_chem.rl.step_report import StepRecord


@dataclass
class LoopState:
    global_step: int = 0
    stage_index: int = -1  # the stage in progress (or last finished); -1 before the first
    stage_step: int = 0
    stage_finished: bool = False
    stop_reason: str = "max_steps"
    filter_stage: int | None = None  # the stage whose filter settings built the diversity filter
    # a stage that reached max_steps ended the run (REINVENT 4.8's rule): the number of stages the run file had
    # then, so a resume runs only the stages added since (None: the run was not ended by max_steps)
    ended_with_stages: int | None = None
    history: list[StepRecord] = field(default_factory=list)

    def to_checkpoint(self) -> dict[str, Any]:
        """Plain data (a checkpoint is read with ``weights_only=True``)."""
        return {**asdict(self), "history": [asdict(record) for record in self.history]}

    @classmethod
    def from_checkpoint(cls, state: dict[str, Any]) -> LoopState:
        values = {f.name: state[f.name] for f in fields(cls) if f.name in state or f.name != "ended_with_stages"}
        values["history"] = [StepRecord(**record) for record in state["history"]]
        return cls(**values)

    def paid_calls_per_stage(self) -> dict[int, int]:
        """Oracle calls each stage had paid when this state was current (from the step history)."""
        paid: dict[int, int] = {}
        for record in self.history:
            paid[record.stage] = max(paid.get(record.stage, 0), record.calls_used)
        return paid
