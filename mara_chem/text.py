"""Small text helpers shared by every module that prints or writes numbers and messages."""

from __future__ import annotations

import math


def first_line(text: str, default: str = "(no message)") -> str:
    """The first non-empty line of a (tool's) message, stripped; ``default`` when there is none."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else default


def format_number(value: object, spec: str = "r", missing: str = "") -> str:
    """A number as text: ``repr`` (round-trips exactly) for ``spec="r"``, else ``format(value, spec)``;
    ``missing`` for None, NaN and infinities (a CSV cell stays empty, a table says ``n/a``)."""
    if value is None:
        return missing
    number = float(value)  # type: ignore[arg-type]
    if not math.isfinite(number):
        return missing
    return repr(number) if spec == "r" else format(number, spec)
