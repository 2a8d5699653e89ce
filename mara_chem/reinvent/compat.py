"""Which REINVENT the adapter was written against, and the check that refuses any other.

The adapter wraps a handful of REINVENT internals (``mara_chem/reinvent/learning.py`` names them with
their line ranges in 4.8). If REINVENT changes one of them, training on silently would compute a wrong
loss, so before touching anything the adapter compares REINVENT's version and the exact signatures and
fields it relies on, and refuses with the version and the first difference.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import types

SUPPORTED_VERSION_PREFIX = "4.8."

#: "module:qualified.name" -> the signature REINVENT 4.8 has
EXPECTED_SIGNATURES = {
    "reinvent.runmodes.RL.reinvent:ReinventLearning.update": "(self, results: 'ScoreResults', orig_smilies)",
    "reinvent.runmodes.RL.reward:RLReward.__init__": "(self, optimizer, sigma=120, strategy: 'Callable' = <function dap_strategy>)",
    "reinvent.runmodes.RL.reward:RLReward.__call__": (
        "(self, orig_smilies: 'list[str]', scores: 'np.ndarray', agent_nlls: 'torch.Tensor', "
        "prior_nlls: 'torch.Tensor', mask_idx: 'np.ndarray', inception: 'Optional[Inception]', "
        "agent: 'Optional[ModelAdapter]') -> 'tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]'"
    ),
    "reinvent.runmodes.RL.setup.reward_strategy:setup_reward_strategy": "(config: 'SectionLearningStrategy', agent: 'ModelAdapter')",
    "reinvent.runmodes.RL.run_staged_learning:run_staged_learning": (
        "(input_config: 'dict', device: 'torch.device', tb_logdir: 'str', responder_config: 'dict', "
        "write_config: 'str' = None, *args, **kwargs)"
    ),
    "reinvent.runmodes.RL.learning:Learning.get_state_dict": "(self) -> 'Optional[dict]'",
    "reinvent.runmodes.create_adapter:create_adapter": "(dict_filename: str, mode: str, device: torch.device) -> tuple",
    "reinvent.runmodes.RL.memories.inception:Inception.__call__": (
        "(self, orig_smilies: 'np.ndarray', scores: 'torch.Tensor', prior_lls: 'torch.Tensor') -> 'tuple'"
    ),
}

#: pydantic models whose fields the adapter extends or reads
EXPECTED_FIELDS = {
    "reinvent.runmodes.RL.validation:SectionLearningStrategy": ("type", "sigma", "rate"),
    "reinvent.runmodes.RL.validation:RLConfig": (
        "parameters", "stage", "learning_strategy", "diversity_filter", "intrinsic_penalty", "inception", "responder",
    ),
}

#: module globals the adapter replaces (they must exist under these names)
EXPECTED_GLOBALS = ("reinvent.runmodes.RL.run_staged_learning:RLConfig",
                    "reinvent.runmodes.RL.run_staged_learning:setup_reward_strategy",
                    "reinvent.runmodes.RL.run_staged_learning:create_adapter")


class ReinventIncompatible(RuntimeError):
    """This REINVENT is not the one the adapter was written against."""


def stub_torchvision() -> None:
    """REINVENT imports torchvision only for ``transforms.ToTensor`` (molecule grids in TensorBoard); when
    torchvision is absent, a module with that one function stands in (PIL image -> float CHW in [0, 1]).

    The adapter never calls this: a process that runs REINVENT where torchvision cannot be installed (the
    benchmarks' peer runs) says so by calling it. The tests use the same stand-in as a package on the path
    (tests/stand_ins/torchvision, docs/reinvent.md)."""
    if "torchvision" in sys.modules or importlib.util.find_spec("torchvision") is not None:
        return
    transforms = types.ModuleType("torchvision.transforms")

    class ToTensor:
        def __call__(self, picture):
            import numpy as np
            import torch

            pixels = np.asarray(picture.convert("RGB"), dtype=np.float32) / 255.0
            return torch.from_numpy(pixels).permute(2, 0, 1).contiguous()

    transforms.ToTensor = ToTensor
    torchvision = types.ModuleType("torchvision")
    torchvision.transforms = transforms
    sys.modules["torchvision"], sys.modules["torchvision.transforms"] = torchvision, transforms


def _resolve(path: str):
    module_name, _, qualname = path.partition(":")
    obj = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def reinvent_version() -> str:
    from reinvent import version

    return version.__version__


def check_reinvent() -> str:
    """REINVENT's version if it is one the adapter supports, else :class:`ReinventIncompatible`."""
    found = reinvent_version()
    problems = []
    if not found.startswith(SUPPORTED_VERSION_PREFIX):
        problems.append(f"version {found} (the adapter supports {SUPPORTED_VERSION_PREFIX}x)")
    for path, expected in EXPECTED_SIGNATURES.items():
        try:
            got = str(inspect.signature(_resolve(path)))
        except (ImportError, AttributeError) as exc:
            problems.append(f"{path} is missing ({exc})")
            continue
        got = got.replace(f"<function dap_strategy at {hex(id(_resolve('reinvent.runmodes.RL.reward:dap_strategy')))}>",
                          "<function dap_strategy>")
        if got != expected:
            problems.append(f"{path} has signature {got}, expected {expected}")
    for path, fields in EXPECTED_FIELDS.items():
        got_fields = tuple(_resolve(path).model_fields)
        if got_fields != fields:
            problems.append(f"{path} has fields {got_fields}, expected {fields}")
    for path in EXPECTED_GLOBALS:
        try:
            _resolve(path)
        except AttributeError:
            problems.append(f"{path} is missing")
    if problems:
        raise ReinventIncompatible(f"mara-chem's REINVENT adapter refuses REINVENT {found}: " + "; ".join(problems))
    return found
