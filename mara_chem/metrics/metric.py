"""One place per metric: its key, label, format and convention, declared once next to the function.

A metric module declares what it adds with ``@threshold_metrics(...)`` (numbers at one threshold τ, from the
hits) or ``@run_metrics(...)`` (numbers of the whole run); ``compute.py`` calls every declared producer,
``table.py`` prints every declared column, ``metrics.json`` carries every convention, and the benchmark
tables take their keys and labels from here. A new metric in an existing module touches that module and
docs/metrics.md; a new module is also named in ``BUILTIN_MODULES`` (tests/metrics/test_metrics_registry.py fails
otherwise).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mara_chem.metrics.options import MetricOptions

if TYPE_CHECKING:
    from rdkit.DataStructs import ExplicitBitVect

    from mara_chem.run_folder.oracle_log import LoggedMolecule

#: the modules whose import declares the built-in metrics (in table order: the producers' ``column`` decides)
BUILTIN_MODULES = ("mara_chem.metrics.yield_ob", "mara_chem.metrics.diversity", "mara_chem.metrics.auc",
                   "mara_chem.metrics.collapse")


@dataclass(frozen=True)
class Column:
    """One number of the metrics table: ``key`` in its producer's output, ``label`` its header (a format
    string over metrics.json and the first threshold row: ``{n}`` is OB's N, ``{auc[k]}`` AUC's k),
    ``format`` its format spec, ``missing`` what None prints as; ``value`` picks the
    number out of a run-level entry (AUC's ``{"k", "freq", "value"}``); ``benchmark`` True: the benchmark
    suite records it per threshold level (``key@strict``)."""

    key: str
    label: str
    format: str
    missing: str = "n/a"
    value: Callable[[Any], Any] | None = None
    benchmark: bool = False

    def header(self, **names: object) -> str:
        """The label with its placeholders filled from ``names`` (metrics.json's keys, a threshold row's)."""
        return self.label.format(**names)

    def cell(self, entry: Any) -> str:
        number = self.value(entry) if self.value is not None else entry
        if number is None or (isinstance(number, float) and not math.isfinite(number)):
            return self.missing
        return format(number, self.format)


@dataclass
class HitsAtThreshold:
    """The hits of one threshold τ, what a threshold metric reads: the unique molecules within the budget, the
    hits among them (call order), their SMILES and fingerprints (``options.fingerprint``), and the options."""

    molecules: Sequence[LoggedMolecule]
    threshold: float
    budget: int
    options: MetricOptions
    found: Sequence[LoggedMolecule]
    fps: Sequence[ExplicitBitVect]

    @property
    def smiles(self) -> list[str]:
        return [m.smiles for m in self.found]


@dataclass
class LoggedRun:
    """A run as its oracle log shows it, what a run-level metric reads: the run folder, the unique molecules
    within the budget, the budget, the calls made, and the options."""

    run_dir: Path
    molecules: Sequence[LoggedMolecule]
    budget: int
    n_calls: int
    options: MetricOptions


@dataclass(frozen=True)
class Producer:
    """A function that returns some metrics.json keys, its columns in the table, and its conventions
    (name -> one line, as ``metrics.json["conventions"]`` and docs/metrics.md state them)."""

    scope: str  # "threshold" or "run"
    compute: Callable[[Any], dict[str, Any]]
    columns: tuple[Column, ...]
    conventions: Mapping[str, str]
    column: int  # position of its columns in the table
    module: str = field(default="")


_PRODUCERS: list[Producer] = []
_loaded = False


def _declare(scope: str, columns: tuple[Column, ...], conventions: Mapping[str, str] | None, column: int):
    def register(fn: Callable[[Any], dict[str, Any]]) -> Callable[[Any], dict[str, Any]]:
        taken = {c.key for p in _PRODUCERS for c in p.columns} | {n for p in _PRODUCERS for n in p.conventions}
        clash = [name for name in [c.key for c in columns] + list(conventions or {}) if name in taken]
        if clash:
            raise ValueError(f"metric {clash[0]!r} is declared twice ({fn.__module__})")
        _PRODUCERS.append(Producer(scope, fn, columns, dict(conventions or {}), column, fn.__module__))
        _PRODUCERS.sort(key=lambda p: p.column)
        return fn

    return register


def threshold_metrics(*columns: Column, conventions: Mapping[str, str] | None = None, column: int):
    """Declare ``fn(hits: HitsAtThreshold) -> {key: value}``: keys of each threshold row of metrics.json."""
    return _declare("threshold", columns, conventions, column)


def run_metrics(*columns: Column, conventions: Mapping[str, str] | None = None, column: int):
    """Declare ``fn(run: LoggedRun) -> {key: value}``: top-level keys of metrics.json."""
    return _declare("run", columns, conventions, column)


def producers(scope: str | None = None) -> list[Producer]:
    """Every declared producer in table order (importing the built-in modules on first use)."""
    global _loaded
    if not _loaded:
        _loaded = True
        for name in BUILTIN_MODULES:
            importlib.import_module(name)
    return [p for p in _PRODUCERS if scope is None or p.scope == scope]


def columns(scope: str | None = None) -> list[tuple[Producer, Column]]:
    return [(p, c) for p in producers(scope) for c in p.columns]


def conventions() -> dict[str, str]:
    return {name: text for p in producers() for name, text in p.conventions.items()}
