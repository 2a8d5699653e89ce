"""Same seed → same oracle log: a speed-up must not change a single oracle call (tests/golden_runs.py).

The pinned logs are compared bit for bit only on the platform that wrote them (``tests/data/golden/platform.json``);
the same-seed check runs on any machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import golden_runs


@pytest.mark.parametrize("name", ["dap", "ips_grpo", "mara_memory"])
def test_same_oracle_log_as_the_pinned_run(tmp_path: Path, name: str) -> None:
    mismatch = golden_runs.golden_platform_mismatch()
    if mismatch:
        pytest.skip(mismatch)
    log = golden_runs.run(name, tmp_path)
    assert log.read_bytes() == (golden_runs.GOLDEN / f"{name}_oracle_log.csv").read_bytes()


def test_same_seed_twice_gives_the_same_oracle_log(tmp_path: Path) -> None:
    """Portable: the run is a function of its seed on this machine (no unseeded randomness, no state carried over)."""
    first = golden_runs.run("mara_memory", tmp_path / "first").read_bytes()
    second = golden_runs.run("mara_memory", tmp_path / "second").read_bytes()
    assert first == second and first.count(b"\n") == golden_runs.BUDGET + 1
