"""The house's floors: every import of ``mara_chem`` (module level or inside a function) goes down or sideways
within its own package, never up, and no two modules import each other, directly or round a circle.
Imports under ``if TYPE_CHECKING:`` are for annotations only and never run, so they are left out.

The floors are declared here once (docs/architecture.md, "Packages", names them); a new package must be
given a floor, so the test fails until someone decides where it sits.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import REPO

PACKAGE = REPO / "mara_chem"

#: bottom to top; a unit may import units on its own floor's lower floors only (and itself)
FLOORS: list[set[str]] = [
    {"mara_chem", "text", "registry", "atomic", "output_paths"},
    {"chem", "resources", "plugins"},
    {"run_folder", "models", "data"},
    {"scoring"},
    {"rl", "metrics"},
    {"report", "reinvent"},
    {"runmodes"},
    {"cli_commands"},
    {"cli"},
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(module: str) -> set[str]:
    """The ``mara_chem`` modules that ``module`` imports anywhere in its body (``from a import b`` is ``a.b``
    when ``b`` is a module, else ``a``)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for block in [n for n in ast.walk(tree) if isinstance(n, ast.If) and _is_type_checking(n.test)]:
        block.body = []  # annotations only: never imported at run time
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    return {name for name in found if name in MODULES and name != module}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


GRAPH = {module: _imports(module) for module in MODULES}


def _unit(module: str) -> str:
    """``mara_chem.rl.loop`` -> ``rl``; ``mara_chem.cli`` -> ``cli``; the root package -> ``mara_chem``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _floor(unit: str) -> int:
    for level, units in enumerate(FLOORS):
        if unit in units:
            return level
    raise AssertionError(f"package or module mara_chem.{unit} has no floor in tests/repository/test_layering.py FLOORS")


def test_every_unit_has_a_floor():
    for module in MODULES:
        _floor(_unit(module))


def test_no_import_runs_up_or_sideways_across_packages():
    wrong = []
    for module, targets in GRAPH.items():
        here = _unit(module)
        for target in targets:
            there = _unit(target)
            if there != here and _floor(there) >= _floor(here):
                wrong.append(f"{module} -> {target} (floor {_floor(here)} -> {_floor(there)})")
    assert not wrong, "imports that run up the floors:\n" + "\n".join(sorted(wrong))


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in GRAPH[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for module in GRAPH:
        if module not in index:
            visit(module)
    return out


def test_no_import_circles():
    # a package's __init__ importing its own modules lazily is not a circle worth the name; nothing here does
    assert _cycles() == []


@pytest.mark.parametrize("edge", [("mara_chem.scoring.retro.search", "mara_chem.scoring.retro.stock"),
                                  ("mara_chem.cli", "mara_chem.data.moses")])
def test_the_graph_sees_function_level_imports(edge):
    """The checks above are only worth something if lazy (in-function) imports are in the graph."""
    module, target = edge
    assert target in GRAPH[module]
