"""Atomic run checkpoints of everything a resumed run needs besides the oracle log.

A checkpoint holds only plain data (tensors, numbers, strings, lists, tuples, dicts) and is read with
``torch.load(weights_only=True)``, so a planted or foreign file cannot run code when a run resumes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import torch

from mara_chem.atomic import save_torch_atomic
from mara_chem.models.rng import rng_state, set_rng_state
from mara_chem.text import first_line

__all__ = ["CHECKPOINT_NAME", "CheckpointError", "load_checkpoint", "non_finite_tensors", "rng_state",
           "save_checkpoint", "set_rng_state"]

CHECKPOINT_NAME = "checkpoint.pt"
FORMAT = "mara-chem-run-checkpoint"
FORMAT_VERSION = 3  # 3: the IPS outcome tracker's state


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed from; the message names the file (and the step where known)."""


def non_finite_tensors(state_dict: dict[str, Any]) -> list[str]:
    """Names of floating-point tensors holding NaN or infinity."""
    return [name for name, value in state_dict.items()
            if isinstance(value, torch.Tensor) and value.is_floating_point() and not bool(torch.isfinite(value).all())]


def save_checkpoint(path: Path, payload: dict[str, Any]) -> None:
    """Write via a temporary file and a rename, so a kill leaves either the old or the new checkpoint."""
    save_torch_atomic({"format": FORMAT, "format_version": FORMAT_VERSION, **payload}, path)


def load_checkpoint(path: Path) -> dict[str, Any]:
    """The checkpoint's payload, read without unpickling code; refuses foreign, corrupt or diverged files."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for corrupt, truncated or code-carrying files
        found = re.search(r"Unsupported global: GLOBAL (\S+)", str(exc))
        reason = (f"it would import {found.group(1)}, which a checkpoint of plain data never does" if found
                  else first_line(str(exc))[:200])
        raise CheckpointError(f"{path} is not a readable mara-chem checkpoint (corrupt, truncated, written by an "
                              f"older mara-chem, or carrying code): {reason}") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a mara-chem run checkpoint (format tag {FORMAT!r} missing; "
                              "written by an older mara-chem?); start again with --overwrite")
    if state.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(f"{path} has checkpoint format {state.get('format_version')}, this mara-chem reads "
                              f"{FORMAT_VERSION}; finish the run with the mara-chem that started it, or start again "
                              "with --overwrite")
    bad = non_finite_tensors(state["agent"])
    if bad:
        raise CheckpointError(f"{path}: the agent's weights are not finite (NaN/inf in {', '.join(bad[:3])}) after "
                              f"step {state['global_step']} (stage {state['stage_index'] + 1}): that step's update "
                              "diverged (learning rate or likelihood_penalty too large?); change the run file and start "
                              "again from step 0 with --restart, which reuses the oracle log's paid calls")
    return state
