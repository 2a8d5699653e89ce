"""The one error type the run modes raise for bad input; the CLI prints it in one or two lines."""


class RunModeError(RuntimeError):
    """A run that cannot start or continue: names the key or file at fault."""


def resolve_device_or_error(name: str):
    """The torch device for ``device``; an unusable one (CUDA asked for, none present) is a RunModeError."""
    from mara_chem.rl.loop import resolve_device

    try:
        return resolve_device(name)
    except RuntimeError as exc:
        raise RunModeError(f"[device] {exc}") from None
