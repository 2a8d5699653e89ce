"""``run.json``: the run file as validated, recorded in the run folder, and what a resume may change in it.

A resume continues the recorded run, so the new run file must describe the same run. It may only ask for
more: a larger oracle budget (``stage.N.max_oracle_calls``), more steps (``stage.N.max_steps``), more stages
appended, or another ``device``. Accepted changes are appended to ``run_changes.json``; anything else is
refused with the differing keys named, before anything in the folder is written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

RUN_JSON = "run.json"
CHANGES_JSON = "run_changes.json"

Change = tuple[str, Any, Any]  # (dotted key, recorded value, new value)


def read_run_record(run_dir: str | Path) -> dict[str, Any] | None:
    """The recorded run config (``RUN_DIR/run.json``) as a dict, or None when absent or unreadable."""
    try:
        record = json.loads((Path(run_dir) / RUN_JSON).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping):
        items = value.items()
    elif isinstance(value, list) and any(isinstance(v, (Mapping, list)) for v in value):
        items = ((str(i), v) for i, v in enumerate(value))
    else:
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, item in items:
        out.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
    return out


def _allowed(key: str, old: Any, new: Any, n_old_stages: int) -> bool:
    parts = key.split(".")
    if key == "device":
        return True
    if parts[0] != "stage" or len(parts) < 2:
        return False
    if int(parts[1]) >= n_old_stages:
        return old is None  # a stage added after the recorded ones
    if len(parts) != 3:
        return False
    if parts[2] == "max_steps":
        return new > old
    if parts[2] == "max_oracle_calls":  # None is no limit: the largest budget there is
        return old is not None and (new is None or new > old)
    return False


def compare(recorded: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[list[Change], list[Change]]:
    """(allowed changes, refused changes) between the recorded and the new run config, as dotted keys."""
    old_flat, new_flat = _flatten(recorded), _flatten(new)
    n_old_stages = len(recorded.get("stage", []))
    allowed: list[Change] = []
    refused: list[Change] = []
    for key in [*old_flat, *(k for k in new_flat if k not in old_flat)]:
        old, value = old_flat.get(key), new_flat.get(key)
        if key in old_flat and key in new_flat and old == value:
            continue
        (allowed if key in new_flat and _allowed(key, old, value, n_old_stages) else refused).append((key, old, value))
    return allowed, refused


def describe(changes: list[Change]) -> str:
    return ", ".join(f"{key} ({old!r} -> {new!r})" for key, old, new in changes)


def write_run_record(run_dir: Path, config: dict[str, Any], changes: list[Change], at_step: int) -> None:
    """Write ``run.json`` and, for accepted changes, append them with the step they took effect at."""
    if changes:
        path = run_dir / CHANGES_JSON
        history = json.loads(path.read_text()) if path.exists() else []
        history.append({"at_step": at_step, "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                        "changes": {key: [old, new] for key, old, new in changes}})
        path.write_text(json.dumps(history, indent=2))
    (run_dir / RUN_JSON).write_text(json.dumps(config, indent=2))
