"""``run.json``: the run file as validated, recorded in the run folder, and what a resume may change in it.

A resume continues the recorded run, so the new run file must describe the same run. It may only ask for
more: a larger oracle budget (``stage.N.max_oracle_calls``), more steps (``stage.N.max_steps``), more stages
appended; and it may move outputs or the device (``device``, ``tb_logdir``, ``json_out_config``,
``stage.N.chkpt_file``). Accepted changes are appended to ``run_changes.json``; anything else is
refused with the differing keys named, before anything in the folder is written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mara_chem.atomic import write_text_atomic

RUN_JSON = "run.json"
CHANGES_JSON = "run_changes.json"

#: keys that say where outputs go or what runs them, not what the run computes: a resume may change them
OUTPUT_ONLY_KEYS = ("device", "tb_logdir", "json_out_config")

Change = tuple[str, Any, Any]  # (dotted key, recorded value, new value)


class RunRecordError(ValueError):
    """``run.json`` or ``run_changes.json`` exists but cannot be read as a record; the message names the file."""


def _read_json(path: Path, kind: type) -> Any:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise RunRecordError(f"{path} is not a text file") from None
    except OSError as exc:
        raise RunRecordError(f"{path} cannot be read ({exc.strerror})") from None
    except ValueError as exc:
        raise RunRecordError(f"{path} is empty or torn (not valid JSON: {exc.msg} at line {exc.lineno})") from None
    if not isinstance(value, kind):
        raise RunRecordError(f"{path} does not hold a run record (a JSON {kind.__name__} is expected)")
    return value


def read_run_record(run_dir: str | Path) -> dict[str, Any] | None:
    """The recorded run config (``RUN_DIR/run.json``) as a dict, None when absent; raises RunRecordError when
    the file is there but unreadable (an unreadable record must not switch the resume check off)."""
    path = Path(run_dir) / RUN_JSON
    if not path.exists():
        return None
    return _read_json(path, dict)


def read_changes(run_dir: str | Path) -> list[Any]:
    """The accepted changes recorded so far (``run_changes.json``), [] when absent; RunRecordError if unreadable."""
    path = Path(run_dir) / CHANGES_JSON
    return _read_json(path, list) if path.exists() else []


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
    if key in OUTPUT_ONLY_KEYS:
        return True
    if parts[0] != "stage" or len(parts) < 2:
        return False
    if int(parts[1]) >= n_old_stages:
        return old is None  # a stage added after the recorded ones
    if len(parts) != 3:
        return False
    if parts[2] == "chkpt_file":  # where the stage's agent goes: changes no result
        return True
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
    """Write ``run.json`` and, for accepted changes, append them with the step they took effect at; each file
    is replaced atomically (:func:`mara_chem.atomic.write_text_atomic`), so a kill leaves the old or the new."""
    if changes:
        history = read_changes(run_dir)
        history.append({"at_step": at_step, "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                        "changes": {key: [old, new] for key, old, new in changes}})
        write_text_atomic(run_dir / CHANGES_JSON, json.dumps(history, indent=2))
    write_text_atomic(run_dir / RUN_JSON, json.dumps(config, indent=2))
