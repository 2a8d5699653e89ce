"""The model files of a REINVENT run file checked before REINVENT reads them (REINVENT's own loader unpickles
them, and meets a mara-chem prior with a TypeError that names no file)."""

from __future__ import annotations

from pathlib import Path


class RunFileError(ValueError):
    """A REINVENT run file that would fail (or silently misbehave) once REINVENT has started."""


def check_model_file(path: Path, key: str) -> None:
    """A model file REINVENT can read, or :class:`RunFileError` naming it (a mara-chem prior: how to convert it)."""
    from mara_chem.models.prior_file import FORMAT
    from mara_chem.models.reinvent_prior import is_reinvent_payload, load_model_file

    convert = f"`mara-chem prior convert {path} --out {path.with_suffix('')}.reinvent.prior --to reinvent`"
    if not path.is_file():
        raise RunFileError(f"[parameters] {key}: {path} does not exist (REINVENT reads model files by path; a "
                           f"bundled mara-chem prior is converted with {convert})")
    try:
        payload = load_model_file(path)
    except Exception:  # not loadable without executing code: a pickle REINVENT would run, or not a model
        return  # REINVENT's own loader reports (older REINVENT files pickle classes; they are REINVENT's to read)
    if isinstance(payload, dict) and payload.get("format") == FORMAT:
        raise RunFileError(f"[parameters] {key}: {path} is a mara-chem prior, which REINVENT cannot read; "
                           f"write a REINVENT copy with {convert}")
    if not is_reinvent_payload(payload):
        raise RunFileError(f"[parameters] {key}: {path} is not a REINVENT model file")
