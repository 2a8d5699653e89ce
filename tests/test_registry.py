"""The plugin registry: lazy built-ins, entry points listed without import and imported on first lookup, clear
errors for broken or clashing plugins; the families' base classes are ABCs (a missing hook fails at build time).

Entry points come from a distribution written by hand into a temporary folder, in a test-only group, so the
real registries never see them.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from mara_chem.registry import PluginError, Registered, Registry
from tests.paths import REPO

GROUP = "mara_chem_test.widgets"


@pytest.fixture()
def widgets(tmp_path, monkeypatch) -> Registry:
    """A registry with one built-in (``base``) whose group holds two plugins of the distribution
    ``widgetpack 1.2``: one good, one whose module fails to import."""
    (tmp_path / "widgetpack_good.py").write_text("class Gear:\n    pass\n")
    (tmp_path / "widgetpack_broken.py").write_text("import no_such_module_anywhere\n")
    info = tmp_path / "widgetpack-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: widgetpack\nVersion: 1.2\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(f"""\
        [{GROUP}]
        Gear = widgetpack_good:Gear
        sprocket = widgetpack_broken:Sprocket
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("widgetpack_good", "widgetpack_broken"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    registry = Registry("widget", GROUP)
    registry.add("base", Registry)  # a mara_chem class stands in for a built-in
    return registry


def test_plugins_are_listed_without_import_and_imported_on_lookup(widgets):
    assert widgets.names() == ["base", "gear", "sprocket"]
    assert "widgetpack_good" not in sys.modules and "widgetpack_broken" not in sys.modules
    gear = widgets.get("GEAR")
    assert gear.__name__ == "Gear" and gear.__module__ == "widgetpack_good"
    assert widgets.origin("gear") == "widgetpack 1.2" and widgets.origin("base") == "built-in"


def test_a_broken_plugin_is_named_and_does_not_hide_the_others(widgets):
    with pytest.raises(PluginError) as err:
        widgets.get("sprocket")
    message = str(err.value)
    assert "widget plugin 'sprocket'" in message and "widgetpack_broken:Sprocket" in message
    assert "widgetpack 1.2" in message and "No module named 'no_such_module_anywhere'" in message
    assert widgets.get("gear").__name__ == "Gear"


def test_a_plugin_cannot_take_a_built_in_name(widgets, tmp_path):
    info = tmp_path / "shadow-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shadow\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\nBase = widgetpack_good:Gear\n")
    with pytest.warns(UserWarning, match="plugin 'Base' .*shadow 0.1.* is ignored: 'Base' is a built-in widget"):
        assert widgets.get("base") is Registry
    assert widgets.origin("base") == "built-in"


def test_unknown_names_list_the_valid_ones_and_names_are_unique(widgets):
    with pytest.raises(ValueError, match="unknown widget 'nope'; valid: base, gear, sprocket"):
        widgets.get("nope")
    with pytest.raises(ValueError, match="registered twice"):
        widgets.add("Base", PluginError)
    strict = Registry("strict widget", ignore_case=False)
    strict.add("Gear", int)
    assert "gear" not in strict and strict.get("Gear") is int


def test_built_ins_register_on_first_use_in_a_fresh_interpreter():
    code = textwrap.dedent("""
        import sys
        from mara_chem.plugins import FAMILIES, STRATEGIES
        assert "mara_chem.rl.strategies" not in sys.modules and "torch" not in sys.modules
        assert STRATEGIES.get("dap").name == "dap"
        from mara_chem.scoring import build_component
        print(build_component("Qed")(["CCO"]).values[0])
        print(sorted(FAMILIES))
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(REPO), "PATH": ""})
    assert done.returncode == 0, done.stderr
    qed, families = done.stdout.splitlines()
    assert float(qed) == pytest.approx(0.4068, abs=1e-4)  # RDKit QED of ethanol
    assert families == str(sorted(["aggregators", "components", "diversity_filters",
                                   "executors", "networks", "strategies", "transforms"]))


def test_plugins_command_lists_families_and_refuses_unknown_ones(capsys):
    from mara_chem.cli import main

    assert main(["plugins", "aggregators", "networks"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert rows == [["aggregators", "arithmetic_mean", "built-in"], ["aggregators", "geometric_mean", "built-in"],
                    ["networks", "rnn", "built-in"], ["networks", "transformer", "built-in"]]
    with pytest.raises(SystemExit, match="unknown plugin family 'widgets'; valid: components"):
        main(["plugins", "widgets"])


# ------------------------------------------------------------------------- the base classes are ABCs
def test_a_component_without_a_hook_cannot_be_built():
    from mara_chem.scoring import ScoringComponent

    class NoHook(ScoringComponent):
        pass

    class BatchOnly(ScoringComponent):
        def score_batch(self, smiles):
            return [float(len(s)) for s in smiles]

    with pytest.raises(TypeError, match="score_mol"):
        NoHook()
    assert BatchOnly()(["CCO", "C"]).values.tolist() == [3.0, 1.0]


def test_transforms_aggregators_strategies_networks_filters_executors_need_their_hooks():
    from mara_chem.models.networks import SmilesNetwork
    from mara_chem.rl.diversity_filters import DiversityFilter
    from mara_chem.rl.strategies import LearningStrategy, StrategyParams
    from mara_chem.scoring import Aggregator, Transform

    class HalfTransform(Transform):
        type: str = "half"

    class NoCombine(Aggregator):
        pass

    class NoLoss(LearningStrategy):
        Params = StrategyParams

        @property
        def beta(self) -> float:
            return 0.0

    class NoStep(SmilesNetwork):
        def hyperparameters(self):
            return {}

        def forward(self, tokens):
            return tokens

    class NoFilter(DiversityFilter):
        pass

    cases = [(lambda: HalfTransform(), "_apply"), (lambda: NoCombine(), "_combine"),
             (lambda: NoLoss(StrategyParams(type="x")), "_loss"), (lambda: NoStep(), "step"),
             (lambda: NoFilter(None), "_filter")]
    from mara_chem.scoring.workers.executors import Executor
    from mara_chem.scoring.workers.worker import Worker

    class NoMap(Executor):
        n_workers = 1

    class NoFailure(Worker):
        def __init__(self, settings):
            pass

        def run(self, smiles):
            return None

    cases += [(lambda: NoMap(None, worker_cls=NoFailure), "_map"), (lambda: NoFailure(None), "failure")]
    for build, missing in cases:
        with pytest.raises(TypeError, match=missing):
            build()
    first = type("First", (Aggregator,), {"_combine": lambda self, v, w: v[:, 0]})()
    assert np.isnan(first(np.array([[np.nan, np.nan]]), np.ones(2))).all()  # the base class owns "no endpoint"


def test_the_registration_mixin_adds_a_class_by_its_own_name_and_aliases_only():
    table: Registry[type] = Registry("gadget", None, None)

    class Gadget(Registered):
        plugin_registry = table

    class Shared(Gadget):  # no name of its own: an intermediate base, not a member
        aliases = ("never",)

    class Lamp(Shared):
        name = "lamp"
        aliases = ("light", "Torch")

    class BrightLamp(Lamp):  # inherits Lamp's name and aliases: registered only under its own name
        name = "bright_lamp"

    assert table.names() == ["bright_lamp", "lamp", "light", "torch"]
    assert table.get("TORCH") is Lamp and table.get("bright_lamp") is BrightLamp

    class Picky(Gadget):
        @classmethod
        def _check_registration(cls) -> None:
            if not cls.name.islower():
                raise TypeError(f"{cls.__name__}: names are lower case")

    with pytest.raises(TypeError, match="Loud: names are lower case"):
        class Loud(Picky):
            name = "LOUD"
    assert "loud" not in table.names()
