"""Same seed → same oracle log: the throughput work must not change a single oracle call (tests/golden_runs.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "data" / "golden"


def _golden_runs():
    spec = importlib.util.spec_from_file_location("golden_runs", HERE / "golden_runs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["golden_runs"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["dap", "ips_grpo", "mara_memory"])
def test_same_oracle_log(tmp_path: Path, name: str) -> None:
    log = _golden_runs().run(name, tmp_path)
    assert log.read_bytes() == (GOLDEN / f"{name}_oracle_log.csv").read_bytes()
