"""One registration mechanism for every plugin family: subclasses register themselves by a class-level name."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """Name -> class table with a listing function and an error that names the valid choices."""

    def __init__(self, family: str):
        self.family = family
        self._classes: dict[str, type[T]] = {}

    def add(self, name: str, cls: type[T]) -> None:
        key = name.lower()
        if key in self._classes and self._classes[key] is not cls:
            raise ValueError(f"{self.family} {name!r} registered twice")
        self._classes[key] = cls

    def get(self, name: str) -> type[T]:
        try:
            return self._classes[name.lower()]
        except KeyError:
            raise ValueError(f"unknown {self.family} {name!r}; valid: {self.names()}") from None

    def names(self) -> list[str]:
        return sorted(self._classes)

    def __contains__(self, name: Any) -> bool:
        return isinstance(name, str) and name.lower() in self._classes
