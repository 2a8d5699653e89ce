"""What a transfer-learning, sampling or scoring run would open, checked before any work starts.

The same checks as the staged-learning preflight (``mara_chem.rl.preflight``): the device, the model
files (opened), the input files, and the scoring section's components built once (receptors, boxes,
model files). Each problem is one line naming the key or file.
"""

from __future__ import annotations

from pathlib import Path

from mara_chem import resources
from mara_chem.rl.config import ConfigError
from mara_chem.rl.preflight import check_device, check_model_file, check_readable, check_torch_file


def _model(key: str, name: str, load: bool) -> str | None:
    path = resources.resolve("priors", Path(name).expanduser())  # a path, or a bundled prior's name
    return check_model_file(key, path) if load else check_torch_file(key, path, "model file")


def _scoring(spec) -> list[str]:  # noqa: ANN001  (ScoringSpec)
    from mara_chem.scoring.objective_check import constant_objective
    from mara_chem.scoring.scorer import Scorer

    try:
        scorer = Scorer(spec)
    except Exception as exc:  # a component refusing its files: the message names them
        return [f"[scoring] {(str(exc).strip() or type(exc).__name__).splitlines()[0]}"]
    try:
        constant = constant_objective(scorer)
    finally:
        scorer.close()
    return [f"[scoring] {constant}"] if constant else []


def check_mode(cfg, load_models: bool = True) -> None:  # noqa: ANN001  (any non-staged run config)
    """Raise ConfigError listing every problem; return quietly when the run can start."""
    problems = [check_device(cfg.device)] if cfg.run_type != "scoring" else []
    p = cfg.parameters
    if cfg.run_type == "transfer_learning":
        problems.append(_model("parameters.input_model_file", p.input_model_file, load_models))
        problems.append(check_readable("parameters.smiles_file", p.smiles_file, "SMILES file"))
        if p.validation_smiles_file:
            problems.append(check_readable("parameters.validation_smiles_file", p.validation_smiles_file,
                                           "SMILES file"))
    elif cfg.run_type == "sampling":
        problems.append(_model("parameters.model_file", p.model_file, load_models))
        if cfg.scoring is not None:
            problems.extend(_scoring(cfg.scoring))
    else:
        problems.append(check_readable("parameters.smiles_file", p.smiles_file, "molecule file"))
        problems.extend(_scoring(cfg.scoring))
    found = [x for x in problems if x]
    if found:
        raise ConfigError("\n".join(found))
