"""docs/architecture.md "Where to add what" stays true: the files it names exist, every built-in member lives
where its row says and is reached by the module its registry imports, and every run mode has one record."""

from __future__ import annotations

import ast
import importlib
import re
import typing
from pathlib import Path

import pytest

from mara_chem.plugins import FAMILIES
from tests.paths import REPO

DOC = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
MAP = DOC[DOC.index("## Where to add what"):DOC.index("## Data flow of a run")]


def test_the_families_paragraph_names_every_family_and_no_other():
    """The "Plugin families" paragraph lists the families before "are each a *family*": as many as FAMILIES holds."""
    section = DOC[DOC.index("## Plugin families"):DOC.index("## Where to add what")]
    listed = " ".join(section[:section.index("are each a *family*")].split())
    listed = re.sub(r"\([^)]*\)", "", listed)  # drop the parenthesised glosses
    names = [n.strip() for n in re.split(r",| and ", listed) if n.strip()]
    assert len(names) == len(FAMILIES), f"docs/architecture.md lists {names}; the registries are {sorted(FAMILIES)}"


def test_every_file_the_map_names_exists():
    named = [p for p in re.findall(r"`([^`\s]+)`", MAP) if "/" in p]
    assert len(named) > 15
    missing = [p for p in named if not (REPO / p).exists()]
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_built_in_lives_in_the_module_its_registry_imports(family):
    """A component defined outside scoring/components/ (or a transform outside scoring/transforms.py) would
    contradict the map even if something happened to import it."""
    registry = FAMILIES[family]
    assert registry.builtins, f"{family}: no built-ins module"
    for name in registry.names(plugins=False):
        module = registry.get(name).__module__
        assert module == registry.builtins or module.startswith(registry.builtins + "."), (
            f"{family} {name!r} is defined in {module}, not in {registry.builtins}")


def _imported_submodules(package: str) -> set[str]:
    init = REPO / Path(*package.split(".")) / "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == package:
                found.update(alias.name for alias in node.names)
            elif node.module.startswith(package + "."):
                found.add(node.module[len(package) + 1:].split(".")[0])
    return found


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_module_of_a_built_ins_package_is_imported_by_it(family):
    """A new component module that scoring/components/__init__.py does not import is never registered."""
    package = FAMILIES[family].builtins
    folder = REPO / Path(*package.split("."))
    if not folder.is_dir():
        pytest.skip(f"{package} is one module")
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    assert modules <= _imported_submodules(package), (
        f"{package}/__init__.py does not import {sorted(modules - _imported_submodules(package))}")


def test_every_run_type_has_one_record_and_neither_the_command_line_nor_the_preflight_switches_on_it():
    from mara_chem.runmodes.config import RUN_TYPES, AnyRunConfig
    from mara_chem.runmodes.modes import RUN_MODES

    union = typing.get_args(typing.get_args(AnyRunConfig)[0])
    tags = {typing.get_args(model.model_fields["run_type"].annotation)[0] for model in union}
    assert set(RUN_MODES) == set(RUN_TYPES) == tags
    assert all(mode.run_type == run_type for run_type, mode in RUN_MODES.items())
    for path in ("mara_chem/runmodes/cli.py", "mara_chem/runmodes/modes.py", "mara_chem/runmodes/preflight.py"):
        for node in ast.walk(ast.parse((REPO / path).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                names = [n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)]
                assert "run_type" not in names, f"{path}:{node.lineno} switches on run_type"


def test_the_builtins_modules_import():
    for registry in FAMILIES.values():
        importlib.import_module(registry.builtins)
