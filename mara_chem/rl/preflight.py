"""Everything a run would open or use, checked before the first oracle call is paid.

``check_run`` opens the prior and agent files, the run folder's checkpoint, every scoring component's
files (receptors, boxes, models) and the device, and reports each problem on one line naming the key or
file. ``mara-chem validate`` and ``mara-chem run`` both call it.
"""

from __future__ import annotations

import importlib.util
import os
import zipfile
from pathlib import Path

from mara_chem import resources
from mara_chem.rl.checkpoint import CHECKPOINT_NAME
from mara_chem.output_paths import check_not_inputs, check_output_dir, check_output_file, same_path
from mara_chem.rl.config import ConfigError, RunConfig
from mara_chem.text import first_line


def check_device(name: str) -> str | None:
    """Why ``device`` cannot be used here, or None (``auto`` always can); the one resolver decides."""
    from mara_chem.models.device import DeviceError, resolve_device

    try:
        resolve_device(name)
    except DeviceError as exc:
        return f"[device] {exc} (use 'cpu' or 'auto')"
    return None


def check_readable(key: str, path: str | Path, what: str) -> str | None:
    """Why the file behind ``key`` cannot be read, or None."""
    p = Path(path).expanduser()
    if not p.exists():
        return f"[{key}] {what} {str(path)!r} does not exist"
    if not p.is_file():
        return f"[{key}] {what} {str(path)!r} is not a file"
    if not os.access(p, os.R_OK):
        return f"[{key}] {what} {str(path)!r} is not readable (permissions)"
    if p.stat().st_size == 0:
        return f"[{key}] {what} {str(path)!r} is empty"
    return None


def check_torch_file(key: str, path: str | Path, what: str) -> str | None:
    """A readable torch file whose zip directory is intact (a truncated copy fails here, before any work)."""
    problem = check_readable(key, path, what)
    if problem:
        return problem
    try:
        with zipfile.ZipFile(Path(path).expanduser()) as archive:
            damaged = archive.testzip()  # CRC of every member: catches damage inside a complete-looking file
    except (zipfile.BadZipFile, OSError, EOFError):
        return f"[{key}] {what} {str(path)!r} is corrupt or truncated (not a complete torch file)"
    if damaged is not None:
        return f"[{key}] {what} {str(path)!r} is corrupt (checksum error in {damaged})"
    return None


def check_model_file(key: str, path: str | Path) -> str | None:
    """The prior/agent file opens as a model (vocabulary, weights and their checksum)."""
    problem = check_torch_file(key, path, "model file")
    if problem:
        return problem
    from mara_chem.models.prior_file import load_prior

    try:
        load_prior(path, "cpu")
    except Exception as exc:  # PriorFileError and torch's own errors for foreign files
        return f"[{key}] {first_line(str(exc), type(exc).__name__)}"
    return None


#: files every staged-learning run folder holds (the run's own: never an output path of another key)
RUN_FOLDER_FILES = ("run.json", "run_changes.json", "oracle_log.csv", "run.lock", CHECKPOINT_NAME)


def check_run_paths(cfg: RunConfig, run_file: Path | None = None) -> list[str]:
    """Every output path writable where it points, and none of them an input or another output of the run."""
    from mara_chem.rl.agent_file import stage_agent_path

    p = cfg.parameters
    problems: list[str] = []
    prefix = p.summary_csv_prefix
    if prefix.endswith(("/", os.sep)) or Path(prefix).name in ("", ".", ".."):
        problems.append(f"[parameters.summary_csv_prefix] {prefix!r} must end in a file-name stem: the summaries "
                        "are <prefix>_<stage>.csv (e.g. 'runs/demo/summary')")
    else:
        problems.append(check_output_dir("parameters.summary_csv_prefix", cfg.run_dir, "run folder"))
    inputs: dict[str, str | Path] = {"parameters.prior_file": resources.resolve("priors", Path(p.prior_file).expanduser()),
                                     "parameters.agent_file": resources.resolve("priors", Path(p.agent_file).expanduser())}
    if run_file is not None:
        inputs["the run file"] = run_file
    own = {f"the run folder's {name}": cfg.run_dir / name for name in RUN_FOLDER_FILES}
    own |= {f"stage {i + 1}'s summary": Path(f"{prefix}_{i + 1}.csv") for i in range(len(cfg.stage))}
    outputs: dict[str, str | Path] = {}
    for i, stage in enumerate(cfg.stage):
        key = f"stage.{i}.chkpt_file"
        if stage.chkpt_file:
            problems.append(check_output_file(key, stage.chkpt_file, "stage agent file"))
            if same_path(stage.chkpt_file, inputs["parameters.agent_file"]):
                problems.append(f"[{key}] {stage.chkpt_file!r} is also parameters.agent_file: the stage would "
                                "overwrite the agent the run starts from, so the run could never be resumed or "
                                "extended; choose another path")
                continue
        outputs[key] = stage_agent_path(cfg, i)
    if cfg.json_out_config:
        problems.append(check_output_file("json_out_config", cfg.json_out_config))
        problems.extend(check_not_inputs({"json_out_config": cfg.json_out_config}, {**own, **outputs}))
        outputs["json_out_config"] = cfg.json_out_config
    if cfg.tb_logdir:
        problems.append(check_output_dir("tb_logdir", cfg.tb_logdir, "TensorBoard folder"))
    problems.extend(check_not_inputs(outputs, inputs))
    problems.extend(check_not_inputs(own, inputs))
    return [x for x in problems if x]


def check_run(cfg: RunConfig, load_models: bool = True, run_file: Path | None = None) -> None:
    """Raise ConfigError listing every problem (one line each); return quietly when the run can start."""
    problems: list[str] = check_run_paths(cfg, run_file)
    device = check_device(cfg.device)
    if device:
        problems.append(device)
    p = cfg.parameters
    checked: set[str] = set()
    for key, name in (("parameters.prior_file", p.prior_file), ("parameters.agent_file", p.agent_file)):
        if name in checked:
            continue
        checked.add(name)
        path = resources.resolve("priors", Path(name).expanduser())  # a path, or a bundled prior's name
        problem = check_model_file(key, path) if load_models else check_torch_file(key, path, "model file")
        if problem:
            problems.append(problem)
    ckpt = cfg.run_dir / CHECKPOINT_NAME
    if ckpt.exists():
        problem = check_torch_file("checkpoint", ckpt, "run checkpoint")
        if problem:
            problems.append(problem + "; move it away to resume from scratch, or start again with --overwrite")
    if cfg.tb_logdir and importlib.util.find_spec("tensorboard") is None:
        problems.append("[tb_logdir] needs the tensorboard package (pip install tensorboard), or remove the key")
    if cfg.genetic_on and importlib.util.find_spec("mol_ga") is None:
        problems.append("[genetic] needs the mol-ga package (pip install 'mara-chem[genetic]'), or remove the table")
    for i, stage in enumerate(cfg.stage):
        problems.extend(check_scorer(f"stage.{i}.scoring", stage.scoring))
    if problems:
        raise ConfigError("\n".join(problems))


def check_scorer(key: str, scoring) -> list[str]:  # noqa: ANN001  (ScoringSpec; imported lazily)
    """Build the scorer of the section at ``key`` (components read receptors, check boxes and model files),
    refuse an objective that cannot tell molecules apart (``constant_objective``), then close it; every run
    mode's preflight checks its scoring section here."""
    from mara_chem.scoring.objective_check import constant_objective
    from mara_chem.scoring.qsar_models import without_unpickling
    from mara_chem.scoring.scorer import Scorer

    with without_unpickling():  # a trusted QSAR pickle is loaded by the run, never by a check
        try:
            scorer = Scorer(scoring)
        except Exception as exc:  # a component refusing its files: the message names them
            return [f"[{key}] {first_line(str(exc), type(exc).__name__)}"]
        try:
            constant = constant_objective(scorer)
        finally:
            scorer.close()
    return [f"[{key}] {constant}"] if constant else []
