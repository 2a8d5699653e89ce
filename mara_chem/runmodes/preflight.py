"""What a transfer-learning, sampling or scoring run would open, checked before any work starts.

The same checks as the staged-learning preflight (``mara_chem.rl.preflight``): the device, the model
files (opened), the input files, and the scoring section's components built once (``check_scorer``:
receptors, boxes, model files). One function per run mode (``runmodes/modes.py`` names it in the run
modes' table); each problem is one line naming the key or file.
"""

from __future__ import annotations

from pathlib import Path

from mara_chem import resources
from mara_chem.rl.config import ConfigError
from mara_chem.rl.preflight import check_device, check_model_file, check_readable, check_scorer, check_torch_file


def _model(key: str, name: str, load: bool) -> str | None:
    path = resources.resolve("priors", Path(name).expanduser())  # a path, or a bundled prior's name
    return check_model_file(key, path) if load else check_torch_file(key, path, "model file")


def _raise_if_any(problems: list[str | None]) -> None:
    found = [x for x in problems if x]
    if found:
        raise ConfigError("\n".join(found))


def check_transfer_learning(cfg, load_models: bool = True) -> None:  # noqa: ANN001  (TransferLearningConfig)
    """Raise ConfigError listing every problem; return quietly when the run can start."""
    p = cfg.parameters
    problems = [check_device(cfg.device), _model("parameters.input_model_file", p.input_model_file, load_models),
                check_readable("parameters.smiles_file", p.smiles_file, "SMILES file")]
    if p.validation_smiles_file:
        problems.append(check_readable("parameters.validation_smiles_file", p.validation_smiles_file, "SMILES file"))
    _raise_if_any(problems)


def check_sampling(cfg, load_models: bool = True) -> None:  # noqa: ANN001  (SamplingConfig)
    """Raise ConfigError listing every problem; return quietly when the run can start."""
    problems = [check_device(cfg.device), _model("parameters.model_file", cfg.parameters.model_file, load_models)]
    if cfg.scoring is not None:
        problems.extend(check_scorer("scoring", cfg.scoring))
    _raise_if_any(problems)


def check_scoring(cfg, load_models: bool = True) -> None:  # noqa: ANN001  (ScoringRunConfig)
    """Raise ConfigError listing every problem (the device is not checked: components run on CPU)."""
    _raise_if_any([check_readable("parameters.smiles_file", cfg.parameters.smiles_file, "molecule file"),
                   *check_scorer("scoring", cfg.scoring)])
