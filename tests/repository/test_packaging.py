"""The built wheel is a complete package: data files inside, licence, extras, and it runs outside the checkout.

The wheel is built from a copy of the package sources (no build/ or egg-info left in the repo) with the
test interpreter's setuptools, offline. The install test puts it in a fresh venv with ``--no-deps`` and lends
that venv the test environment's site-packages through a ``.pth`` file (cheap, no downloads); the repo is
never on its path, which the test checks before trusting the result.
"""

from __future__ import annotations

import email
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.paths import REPO

# import names of packages that only extras install: the demo must run without any of them
EXTRAS_ONLY = {"sklearn", "scikit_learn", "scipy", "joblib", "tensorboard", "tensorboard_data_server", "vina", "meeko",
               "gemmi", "dockstring", "dimorphite_dl", "ray", "molscrub", "openbabel"}
DATA_FILES = [
    "mara_chem/py.typed",
    "mara_chem/resources/scoring/similar_to_references.toml",
    "mara_chem/resources/models/brenk_alert_logreg.json",
    "mara_chem/resources/priors/moses-gru-2x256.prior",
]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("mara_chem", "reinvent_plugins"):
        if (REPO / package).is_dir():
            shutil.copytree(REPO / package, src / package, ignore=ignore, symlinks=False)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "-w", str(work / "dist"), str(src)], check=True, capture_output=True, text=True)
    (built,) = (work / "dist").glob("mara_chem-*.whl")
    return built


def test_wheel_holds_package_data_licence_and_clean_extras(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [f for f in DATA_FILES if f not in names]
    assert not missing, f"package data missing from the wheel: {missing}"
    assert {"mara_chem/scoring/spec.py", "mara_chem/scoring/components/qsar.py", "mara_chem/resources/__init__.py"} <= names
    bundled = (REPO / "mara_chem/resources/priors/moses-gru-2x256.prior").stat().st_size
    assert zipfile.ZipFile(wheel).getinfo("mara_chem/resources/priors/moses-gru-2x256.prior").file_size == bundled
    meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
    meta = email.message_from_bytes(zipfile.ZipFile(wheel).read(meta_name))
    assert meta["License-Expression"] == "Apache-2.0"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    requires = meta.get_all("Requires-Dist")
    core = [r for r in requires if "extra ==" not in r]
    assert not any(re.match(r"(molscrub|openbabel|ray|tensorboard|vina|meeko|scikit-learn)", r) for r in core), core
    extras = {}
    for r in requires:
        if "extra ==" in r:
            extras.setdefault(r.split('extra == "')[1].rstrip('"'), []).append(r.split(";")[0])
    gpl = {"molscrub", "openbabel-wheel"}
    for extra, reqs in extras.items():
        dists = {re.split(r"[<>=\[ ]", r)[0] for r in reqs}
        assert extra == "gpl-protonation" or not (dists & gpl), f"extra {extra!r} pulls GPL code: {dists & gpl}"
    assert {"docking", "ray", "tensorboard", "test", "gpl-protonation"} <= set(extras)
    assert extras["ray"] == ["ray>=2.9"]  # plain ray, not ray[default]
    assert "dimorphite_dl>=2.0" in extras["docking"]


def test_pyproject_names_only_existing_folders():
    text = (REPO / "pyproject.toml").read_text()
    include = re.search(r"include = \[(.*?)\]", text).group(1)
    for pattern in re.findall(r'"([^"]+)"', include):
        folder = pattern.rstrip("*")
        # reinvent_plugins arrives with the plugin mechanism (a namespace package); everything else must exist
        assert (REPO / folder).is_dir() or folder == "reinvent_plugins", f"pyproject.toml includes missing {folder}"


def _venv_with_wheel(tmp: Path, wheel: Path) -> Path:
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True, capture_output=True, text=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # the dependencies (torch, rdkit, ...) come from this test environment, after the venv's own
    # site-packages, through a folder of links that leaves out what only the extras install
    deps = tmp / "deps"
    deps.mkdir()
    for entry in Path(sysconfig.get_path("purelib")).iterdir():
        top = re.split(r"[-.]", entry.name)[0].lower()
        if top not in EXTRAS_ONLY and not entry.name.endswith(".pth") and top not in ("mara_chem", "__editable__"):
            (deps / entry.name).symlink_to(entry)
    (site / "zz_test_env_deps.pth").write_text(f"{deps}\n")
    return venv


@pytest.mark.slow
def test_installed_wheel_runs_the_demo_outside_the_checkout(wheel, tmp_path):
    venv = _venv_with_wheel(tmp_path, wheel)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    demo = (REPO / "configs" / "demo.toml").read_text()
    for old, new in [("batch_size = 64", "batch_size = 16"), ("max_steps = 300", "max_steps = 2"),
                     ("min_steps = 300", "min_steps = 2"), ("max_oracle_calls = 2000", "max_oracle_calls = 40"),
                     ('"runs/demo/summary"', '"out/summary"')]:
        assert old in demo, f"configs/demo.toml changed: {old!r} not found"
        demo = demo.replace(old, new)
    (outside / "demo.toml").write_text(demo)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    check = textwrap.dedent("""
        import mara_chem, sys
        from pathlib import Path
        assert Path(mara_chem.__file__).is_relative_to(Path(sys.prefix)), mara_chem.__file__
        assert not any(p and Path(p).resolve() == Path(%r) for p in sys.path), "the checkout is on sys.path"
        try:
            import sklearn  # noqa: F401
            raise SystemExit("extras are visible: the test would not show that the demo needs none")
        except ModuleNotFoundError:
            pass
        from mara_chem.scoring.component import build_component
        import mara_chem.scoring.components  # noqa: F401
        qsar = build_component("qsar", {"model_file": "brenk_alert_logreg"})
        print("qsar", [round(float(v), 3) for v in qsar(["ClCC(=O)Nc1ccccc1", "CN1CCN(c2ccccc2)CC1"]).values])
    """) % str(REPO)
    probe = subprocess.run([str(venv / "bin" / "python"), "-c", check], cwd=outside, env=env, capture_output=True,
                           text=True, timeout=300)
    assert probe.returncode == 0, probe.stderr[-2000:]
    flagged, clean = map(float, re.search(r"qsar \[(.*), (.*)\]", probe.stdout).groups())
    assert flagged > clean
    run = subprocess.run([str(venv / "bin" / "mara-chem"), "run", "demo.toml", "--overwrite", "--report"],
                         cwd=outside, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    log = (outside / "out" / "oracle_log.csv").read_text().splitlines()
    assert log[0].startswith("call,") and "similarity" in log[0] and len(log) > 10
    assert (outside / "out" / "report.html").stat().st_size > 10_000


def test_importing_and_reporting_leave_rdkit_logging_and_matplotlib_backend_alone():
    """A library must not change process-wide settings: RDKit's log switches and matplotlib's backend."""
    script = textwrap.dedent("""
        import matplotlib
        matplotlib.use("svg")
        from rdkit import rdBase
        before = rdBase.LogStatus()
        import mara_chem.scoring.components, mara_chem.rl.loop, mara_chem.metrics, mara_chem.cli  # noqa: F401
        from mara_chem.chem.smiles import canonicalize
        from mara_chem.report import plots
        import numpy as np
        assert canonicalize("C1CC") is None  # an invalid SMILES: its parse error is silenced for that call only
        assert plots.curve_png(np.arange(5), np.arange(5), "t", "y")
        assert rdBase.LogStatus() == before, (before, rdBase.LogStatus())
        assert matplotlib.get_backend() == "svg", matplotlib.get_backend()
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
    assert "SMILES Parse Error" not in out.stderr


def test_licence_table_names_every_declared_dependency():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = set(project["dependencies"])
    for reqs in project["optional-dependencies"].values():
        declared |= set(reqs)
    names = {re.split(r"[<>=\[ ]", r)[0].lower() for r in declared}
    page = (REPO / "docs" / "installing.md").read_text()
    table = page[page.index("## Licences"):]
    rows = {m.lower() for m in re.findall(r"^\| ([\w.-]+) \|", table, flags=re.M)}
    assert names <= rows, f"docs/installing.md licence table lacks {sorted(names - rows)}"
    gpl_rows = [line for line in table.splitlines() if "GPL-" in line and "LGPL" not in line and line.startswith("| ")]
    assert gpl_rows and all("gpl-protonation only" in line for line in gpl_rows)
