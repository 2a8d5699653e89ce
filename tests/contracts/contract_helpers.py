"""Parametrisation shared by the contract suites: one case per registered implementation (built-in or plugin)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mara_chem.registry import Registry

#: built-ins whose contract run takes more than a few seconds (Vina maps, process pools, a local Ray)
SLOW = {"vina_docking", "pool", "ray"}


def implementations(registry: Registry[Any]) -> list[Any]:
    """One ``pytest.param(cls, id=name)`` per distinct implementation; aliases are folded into the first name."""
    seen: dict[int, str] = {}
    params = []
    for name in registry.names():
        item = registry.get(name)
        if id(item) in seen:
            continue
        canonical = getattr(item, "name", None) or name  # one spelling in every family: a class-level name
        seen[id(item)] = canonical
        marks = [pytest.mark.slow] if str(canonical).lower() in SLOW else []
        params.append(pytest.param(item, id=str(canonical), marks=marks))
    return params


def build_example(cls: type, build: Callable[[], Any], attribute: str = "example_params") -> Any:
    """``build()``, or a test failure that tells the implementation's author what to declare."""
    try:
        return build()
    except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
        pytest.fail(f"{cls.__module__}.{cls.__qualname__} cannot be built for its contract test; declare "
                    f"the class attribute {attribute} (now {getattr(cls, attribute)!r}): {exc}", pytrace=False)
