"""The PMO task set in the benchmark runner: task files, their calibration, task groups, the results header,
and that a PMO task's scoring is guacamol's own score."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import numpy as np
import pytest

from benchlab.paths import DEFAULT_PRIOR as PRIOR
from benchlab.paths import TASK_DIR

from mara_chem.scoring.components.guacamol import ObjectiveName

PMO_DIR = TASK_DIR / "pmo"
PROJECT = {"ref_neighbourhoods", "chemotypes", "ring_islands"}
OBJECTIVES = set(typing.get_args(ObjectiveName))


@pytest.fixture(scope="module")
def benchlab(runner):
    import benchlab.calibration
    import benchlab.tables
    import benchlab.tasks

    return benchlab


def test_one_task_file_per_objective(runner) -> None:
    """Every objective the Guacamol component accepts has its task, with the one Guacamol endpoint unchanged."""
    from mara_chem.rl.config import load_run_config

    pmo = [t for t in runner.available_tasks().values() if t.group == "pmo"]
    assert {t.name for t in pmo} == OBJECTIVES
    for task in pmo:
        assert task.path == PMO_DIR / f"{task.name}.toml"
        assert 0 < task.lenient < task.strict <= 1
        assert task.region_kind in ("none", "nearest_reference")
        (component,) = task.scoring["component"]
        (endpoint,) = component["Guacamol"]["endpoint"]
        assert endpoint["params"] == {"objective": task.name}
        assert endpoint.get("transform") is None and endpoint["weight"] == 1
        cfg = load_run_config(runner.run_config(runner.Job(task, runner.variants["dap"], 0, 10, str(PRIOR),
                                                           Path("/tmp/x"))))
        assert cfg.stage[0].scoring  # validates the objective name and the section


def test_thresholds_are_the_committed_calibration() -> None:
    """The task files hold the thresholds calibrate_pmo.py chose, and those follow the rule's prior rates."""
    info = json.loads((PMO_DIR / "calibration.json").read_text())
    assert info["n"] == 5000 and info["seed"] == 0
    by_name = {r["objective"]: r["calibration"] for r in info["objectives"]}
    assert set(by_name) == OBJECTIVES
    import tomllib

    for name, cal in by_name.items():
        meta = tomllib.loads((PMO_DIR / f"{name}.toml").read_text())["task"]
        assert meta["thresholds"] == [cal["lenient"], cal["strict"]]
        if not cal["note"]:  # the plain rule: within rounding of the two percentiles
            assert abs(cal["lenient"] - cal["q98"]) <= 0.005 + 1e-9
            assert abs(cal["strict"] - cal["q99.5"]) <= 0.005 + 1e-9


def test_task_groups(runner) -> None:
    from benchlab.tasks import resolve_tasks

    project = resolve_tasks(["project"])
    pmo = resolve_tasks(["pmo"])
    assert {t.name for t in project} == PROJECT and {t.group for t in project} == {"project"}
    assert {t.name for t in pmo} == OBJECTIVES
    pmo_zinc = resolve_tasks(["pmo_zinc"])  # the same objectives calibrated on the ZINC 250k prior
    assert {t.name for t in pmo_zinc} == {f"{o}_zinc" for o in OBJECTIVES} and {t.group for t in pmo_zinc} == {"pmo_zinc"}
    assert [t.name for t in resolve_tasks(["all"])] == [t.name for t in project + pmo + pmo_zinc]
    assert [t.name for t in resolve_tasks(["pmo/celecoxib_rediscovery"])] == ["celecoxib_rediscovery"]
    assert [t.name for t in resolve_tasks(["qed", "chemotypes", "pmo/qed"])] == ["qed", "chemotypes"]
    assert [t.name for t in resolve_tasks(["project", "median1"])] == [t.name for t in project] + ["median1"]
    (by_path,) = resolve_tasks([str(PMO_DIR / "median2.toml")])
    assert by_path.group == "pmo" and by_path.name == "median2"
    with pytest.raises(SystemExit, match="unknown task 'pmo/chemotypes'"):
        resolve_tasks(["pmo/chemotypes"])
    with pytest.raises(SystemExit, match="unknown task 'drd2'"):
        resolve_tasks(["drd2"])


def test_calibration_rule(benchlab) -> None:
    calibrate = benchlab.calibration.calibrate
    ramp = np.arange(1000) / 1000  # 2 % of the values lie at or above 0.98, 0.5 % at or above 0.995
    plain = calibrate(ramp)
    assert (plain["lenient"], plain["strict"], plain["note"]) == (0.98, 0.99, "")
    assert plain["rate@lenient"] == pytest.approx(0.02) and plain["rate@strict"] == pytest.approx(0.01)

    narrow = calibrate(np.r_[np.linspace(0.5, 0.93, 960), np.linspace(0.936, 0.944, 40)])  # QED-like top
    assert narrow["lenient"] < narrow["strict"] and round(narrow["strict"], 2) == round(narrow["lenient"], 2)
    assert "0.001" in narrow["note"]

    zeros = calibrate(np.r_[np.zeros(995), [0.3, 0.4, 0.5, 0.6, 0.7]])  # 0.5 % above 0: no 2 % percentile
    assert 0 < zeros["lenient"] < zeros["strict"] and zeros["rate@strict"] > 0
    assert "0.50% of the prior scores are > 0" in zeros["note"]


@pytest.mark.parametrize("name", ["celecoxib_rediscovery", "median2", "deco_hop"])
def test_pmo_task_score_is_guacamol_score(runner, name: str) -> None:
    """The task's scoring section, built as a run builds it, gives guacamol's own objective.score exactly."""
    pytest.importorskip("guacamol", reason="guacamol==0.5.5 is installed by scripts/setup_venv.sh (--no-deps)")
    from benchlab.prior_rates import task_scores

    from mara_chem.scoring.components.guacamol import CELECOXIB, _benchmarks, standard_benchmarks

    task = runner.available_tasks()[name]
    molecules = [CELECOXIB, "CCCOc1cc2ncnc(Nc3ccc4ncsc4c3)c2cc1S(=O)(=O)C(C)(C)C", "CC(=O)Nc1ccc(O)cc1"]
    expected = [_benchmarks()[name](standard_benchmarks()).objective.score(s) for s in molecules]
    assert task_scores(task, molecules, str(PRIOR), Path("/tmp/x")).tolist() == expected
    assert len(set(expected)) > 1  # the molecules tell the objective's values apart


def test_results_header_and_regions(runner, benchlab) -> None:
    """A grid with a PMO task says the prior differs from PMO's; a task without regions gets no region table."""
    tables, tasks = benchlab.tables, runner.available_tasks()
    info = {"created": "now", "command": "x", "priors": [], "machine": "m", "budget": 10, "batch_size": 2,
            "filters": {n: {"type": "f", "bucket_size": 1, "minscore": 0.1} for n in tasks}}
    with_pmo = "\n".join(tables.provenance(info, [tasks["chemotypes"], tasks["qed"]], []))
    without = "\n".join(tables.provenance(info, [tasks["chemotypes"]], []))
    assert tables.PMO_PRIOR_NOTE in with_pmo and "ZINC 250k" in tables.PMO_PRIOR_NOTE
    assert "ZINC" not in without
    rows = [{"task": "qed", "strategy": "dap", "regions@strict": {"all": 3}},
            {"task": "median1", "strategy": "dap", "regions@strict": {"menthol": 2, "camphor": 1}}]
    dap = runner.variants["dap"]
    text = tables.region_table(rows, [tasks["qed"], tasks["median1"]], [dap])
    assert "No regions defined for: qed." in text
    assert "| camphor | menthol | other |" in text and "| 1.0 | 2.0 | 0.0 |" in text


def test_each_group_gets_its_own_overall_table(runner, benchlab) -> None:
    """With project and PMO tasks in one grid, each group is also averaged on its own tasks only."""
    tables, tasks = benchlab.tables, runner.available_tasks()
    grid = [tasks["chemotypes"], tasks["qed"], tasks["median1"]]
    yields = {"chemotypes": 30.0, "qed": 4.0, "median1": 2.0}
    rows = [{"task": name, "strategy": "dap", "seed": seed, "yield@strict": y + seed, "n_circles@strict": 1.0,
             "intdiv1@strict": 0.5, "auc_top10": 0.1} for name, y in yields.items() for seed in (0, 1)]
    text = tables.group_overall_tables(rows, grid, [runner.variants["dap"]])
    project, pmo = text.split("### pmo tasks only (2)")
    assert project.startswith("### project tasks only (1)") and "| DAP (REINVENT) | 2 | 30.5 |" in project
    assert "| DAP (REINVENT) | 2 | 3.5 |" in pmo  # mean of (4, 2) and (5, 3) over the two seeds
    assert tables.group_overall_tables(rows, grid[1:], [runner.variants["dap"]]) == ""
