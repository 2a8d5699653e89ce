"""Same seed → same oracle log: the throughput work must not change a single oracle call (tests/golden_runs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import golden_runs  # tests/golden_runs.py, beside this file

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "data" / "golden"


@pytest.mark.parametrize("name", ["dap", "ips_grpo", "mara_memory"])
def test_same_oracle_log(tmp_path: Path, name: str) -> None:
    log = golden_runs.run(name, tmp_path)
    assert log.read_bytes() == (GOLDEN / f"{name}_oracle_log.csv").read_bytes()
