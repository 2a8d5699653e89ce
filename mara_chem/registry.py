"""One registry type for every plugin family: built-ins register by class-level name, third parties by entry point.

A :class:`Registry` maps names to implementations (classes, or plain objects for data-like families). It is
filled from two sources, both on demand, so no caller has to import the right module first:

* **built-ins** register themselves when their module is imported (the family's base class derives from
  :class:`Registered`, whose ``__init_subclass__`` calls :meth:`Registry.add`); the registry imports that module (``builtins``) on its first lookup;
* **third-party plugins** are Python entry points in the family's group (e.g. ``mara_chem.components``). Their
  names are listed from package metadata without importing anything; a plugin is imported on its first
  lookup, and one that fails to import raises :class:`PluginError` naming the plugin, its entry point and
  its distribution, so a broken plugin never hides the built-ins.

This module imports only the standard library (no torch, no RDKit).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Iterator
from importlib import metadata
from typing import Any, ClassVar, Generic, TypeVar

T = TypeVar("T")


class PluginError(ValueError):
    """A third-party plugin could not be loaded; the message names the plugin, entry point and distribution."""


class Registry(Generic[T]):
    """Name -> implementation table of one plugin family, with listing and errors that name the valid choices.

    ``family`` is the human name used in messages ("scoring component"); ``group`` the entry-point group of
    third-party plugins (None: built-ins only); ``builtins`` the module whose import registers the built-ins;
    ``ignore_case`` makes names case-insensitive (REINVENT component names are, strategy types are not).
    """

    def __init__(self, family: str, group: str | None = None, builtins: str | None = None, ignore_case: bool = True):
        self.family = family
        self.group = group
        self.builtins = builtins
        self.ignore_case = ignore_case
        self._items: dict[str, T] = {}
        self._entry_points: dict[str, metadata.EntryPoint] | None = None
        self._builtins_imported = False

    # ---------------------------------------------------------------------------------------------- filling
    def _key(self, name: str) -> str:
        return name.lower() if self.ignore_case else name

    def add(self, name: str, item: T) -> None:
        """Register ``item`` under ``name``; the same name for a different item is an error."""
        key = self._key(name)
        if key in self._items and self._items[key] is not item:
            first, second = _module(self._items[key]), _module(item)
            raise ValueError(f"{self.family} {name!r} registered twice ({first} and {second})")
        self._items[key] = item

    def _import_builtins(self) -> None:
        if not self._builtins_imported and self.builtins:
            self._builtins_imported = True
            importlib.import_module(self.builtins)

    def entry_points(self) -> dict[str, metadata.EntryPoint]:
        """This family's entry points by (normalised) name, read from package metadata once, imported never."""
        if self._entry_points is None:
            self._import_builtins()
            found = metadata.entry_points(group=self.group) if self.group else ()
            self._entry_points = {}
            for ep in found:
                key = self._key(ep.name)
                if key in self._items and _is_builtin(self._items[key]):
                    warnings.warn(f"{self.family} plugin {ep.name!r} ({_where(ep)}) is ignored: "
                                  f"{ep.name!r} is a built-in {self.family}", stacklevel=2)
                elif key in self._entry_points and self._entry_points[key].value != ep.value:
                    warnings.warn(f"{self.family} plugin {ep.name!r} is declared twice ({_where(ep)} and "
                                  f"{_where(self._entry_points[key])}); using the first", stacklevel=2)
                else:
                    self._entry_points.setdefault(key, ep)
        return self._entry_points

    def refresh(self) -> None:
        """Forget the cached entry-point list (after installing a plugin into a running interpreter)."""
        self._entry_points = None

    def _load_plugin(self, key: str) -> None:
        ep = self.entry_points()[key]
        try:
            item = ep.load()  # a class registers itself here; a clash with a registered name raises
        except Exception as exc:
            raise PluginError(f"{self.family} plugin {ep.name!r} ({_where(ep)}) failed to import: "
                              f"{type(exc).__name__}: {exc}") from exc
        if key not in self._items:  # classes usually registered themselves while importing
            self.add(ep.name, item)

    # ---------------------------------------------------------------------------------------------- lookup
    def get(self, name: str) -> T:
        """The implementation registered as ``name`` (a plugin is imported here); unknown -> ValueError."""
        self._import_builtins()
        key = self._key(name) if isinstance(name, str) else name
        plugins = self.entry_points()
        if key not in self._items and key in plugins:
            self._load_plugin(key)
        try:
            return self._items[key]
        except (KeyError, TypeError):
            raise ValueError(f"unknown {self.family} {name!r}; valid: {', '.join(self.names())}") from None

    def names(self, plugins: bool = True) -> list[str]:
        """Sorted names of built-ins and installed plugins (plugins are listed without being imported)."""
        self._import_builtins()
        if not plugins:
            return sorted(k for k, item in self._items.items() if _is_builtin(item))
        return sorted(set(self._items) | set(self.entry_points()))

    def origin(self, name: str) -> str:
        """``"built-in"``, the distribution (``name version``) whose entry point provides ``name``, or the
        module that registered it by being imported."""
        self._import_builtins()
        key = self._key(name)
        if key in self._items and _is_builtin(self._items[key]):
            return "built-in"
        if key in self.entry_points():
            return _dist(self.entry_points()[key])
        if key in self._items:
            return f"module {_module(self._items[key])}"
        raise ValueError(f"unknown {self.family} {name!r}; valid: {', '.join(self.names())}")

    def __contains__(self, name: Any) -> bool:
        return isinstance(name, str) and self._key(name) in self.names()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.family!r}, group={self.group!r})"


class Registered:
    """The registration hook every plugin family's base class shares: a subclass that sets its own class-level
    ``name`` registers itself (and its own ``aliases``) in the base's ``plugin_registry`` when it is defined.

    A subclass without its own ``name`` (a shared intermediate base) is not a new member. A family that checks
    more at registration (a strategy's options model must declare its name) overrides ``_check_registration``.
    """

    plugin_registry: ClassVar[Registry[Any]]
    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        if not name:
            return
        cls._check_registration()
        for key in (name, *cls.__dict__.get("aliases", ())):
            cls.plugin_registry.add(key, cls)

    @classmethod
    def _check_registration(cls) -> None:
        """Raise TypeError when the class may not be registered under its ``name``; by default anything may."""


def _module(item: Any) -> str:
    return getattr(item, "__module__", None) or type(item).__module__


def _is_builtin(item: Any) -> bool:
    return _module(item).split(".")[0] == "mara_chem"


def _dist(ep: metadata.EntryPoint) -> str:
    dist = ep.dist
    return f"{dist.name} {dist.version}" if dist is not None else "unknown distribution"


def _where(ep: metadata.EntryPoint) -> str:
    return f"entry point '{ep.name} = {ep.value}' in group {ep.group}, from {_dist(ep)}"
