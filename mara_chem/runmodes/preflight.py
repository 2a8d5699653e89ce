"""What a transfer-learning, sampling or scoring run would open, checked before any work starts.

The same checks as the staged-learning preflight (``mara_chem.rl.preflight``): the device, the model
files (opened), the input files, and the scoring section's components built once (``check_scorer``:
receptors, boxes, model files). One function per run mode (``runmodes/modes.py`` names it in the run
modes' table); each problem is one line naming the key or file.
"""

from __future__ import annotations

from pathlib import Path

from mara_chem import resources
from mara_chem.output_paths import check_not_inputs, check_output_file, same_path
from mara_chem.rl.config import ConfigError
from mara_chem.rl.preflight import check_device, check_model_file, check_readable, check_scorer, check_torch_file


def _model(key: str, name: str, load: bool) -> str | None:
    path = _resolved(name)
    return check_model_file(key, path) if load else check_torch_file(key, path, "model file")


def _smiles_file(key: str, path: str) -> str | None:
    """The SMILES file is readable text (plain or gzip by its bytes); None when it is."""
    from mara_chem.models.training import SmilesFileError, read_smiles_file

    problem = check_readable(key, path, "SMILES file")
    if problem:
        return problem
    try:
        read_smiles_file(path)
    except SmilesFileError as exc:
        return f"[{key}] {exc}"
    return None


def _molecule_file(key: str, path: str, smiles_column: str) -> str | None:
    """The scoring input reads as molecules (column present, text, records within the size guard)."""
    from mara_chem.runmodes.errors import RunModeError
    from mara_chem.runmodes.scoring import read_molecules

    problem = check_readable(key, path, "molecule file")
    if problem:
        return problem
    try:
        read_molecules(Path(path), smiles_column)
    except RunModeError as exc:
        return str(exc)
    return None


def _resolved(name: str) -> Path:
    """A model file's path: a path, or a bundled prior's name."""
    return resources.resolve("priors", Path(name).expanduser())


def _paths(cfg, inputs: dict[str, str | Path], outputs: dict[str, str | Path],  # noqa: ANN001
           run_file: Path | None = None) -> list[str]:
    """Outputs writable where they point; none of them an input (``--overwrite`` would delete it first). Each
    mode's check names its own ``inputs`` and ``outputs`` by key; the run file and ``json_out_config`` join here."""
    inputs, outputs = dict(inputs), dict(outputs)
    if run_file is not None:
        inputs["the run file"] = run_file
    if cfg.json_out_config:
        outputs["json_out_config"] = cfg.json_out_config
    problems = [check_output_file(key, path) for key, path in outputs.items()]
    problems += check_not_inputs(outputs, inputs)
    names = list(outputs.items())
    for i, (key, path) in enumerate(names):  # two outputs on one path: the second write destroys the first
        for other, second in names[i + 1:]:
            if same_path(path, second):
                problems.append(f"[{other}] {str(second)!r} is also {key}; give each output its own path")
    return [x for x in problems if x]


def _raise_if_any(problems: list[str | None]) -> None:
    found = [x for x in problems if x]
    if found:
        raise ConfigError("\n".join(found))


def check_transfer_learning(cfg, load_models: bool = True, run_file: Path | None = None) -> None:  # noqa: ANN001
    """Raise ConfigError listing every problem; return quietly when the run can start."""
    p = cfg.parameters
    inputs = {"parameters.input_model_file": _resolved(p.input_model_file), "parameters.smiles_file": p.smiles_file}
    if p.validation_smiles_file:
        inputs["parameters.validation_smiles_file"] = p.validation_smiles_file
    outputs = {"parameters.output_model_file": p.output_model_file}
    problems = [check_device(cfg.device), *_paths(cfg, inputs, outputs, run_file),
                _model("parameters.input_model_file", p.input_model_file, load_models),
                _smiles_file("parameters.smiles_file", p.smiles_file)]
    if p.validation_smiles_file:
        problems.append(_smiles_file("parameters.validation_smiles_file", p.validation_smiles_file))
    _raise_if_any(problems)


def check_sampling(cfg, load_models: bool = True, run_file: Path | None = None) -> None:  # noqa: ANN001
    """Raise ConfigError listing every problem; return quietly when the run can start."""
    p = cfg.parameters
    outputs = {"parameters.output_file": p.output_file}
    if p.sdf_file:
        outputs["parameters.sdf_file"] = str(p.sdf_file)
    problems = [check_device(cfg.device), *_paths(cfg, {"parameters.model_file": _resolved(p.model_file)}, outputs,
                                                  run_file),
                _model("parameters.model_file", p.model_file, load_models)]
    if cfg.scoring is not None:
        problems.extend(check_scorer("scoring", cfg.scoring))
    _raise_if_any(problems)


def check_scoring(cfg, load_models: bool = True, run_file: Path | None = None) -> None:  # noqa: ANN001
    """Raise ConfigError listing every problem (the device is not checked: components run on CPU)."""
    p = cfg.parameters
    paths = _paths(cfg, {"parameters.smiles_file": p.smiles_file}, {"parameters.output_csv": p.output_csv}, run_file)
    _raise_if_any([*paths, _molecule_file("parameters.smiles_file", p.smiles_file, p.smiles_column),
                   *check_scorer("scoring", cfg.scoring)])
