"""The one place that turns a device name from a run file or the command line into a torch device."""

from __future__ import annotations

import torch


class DeviceError(ValueError):
    """A device that cannot be used here; the message names it."""


def resolve_device(name: str) -> torch.device:
    """``auto`` (CUDA when available, else CPU), ``cpu`` or ``cuda[:N]``; refuses CUDA without a CUDA device."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise DeviceError(f"unknown device {name!r} (use auto, cpu or cuda[:N])") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise DeviceError(f"device {name!r} requested but CUDA is not available")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise DeviceError(f"device {name!r} requested but only {torch.cuda.device_count()} CUDA device(s) exist")
    elif device.type != "cpu":
        raise DeviceError(f"unsupported device {name!r} (use auto, cpu or cuda[:N])")
    return device
