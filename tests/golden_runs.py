"""The runs whose oracle logs are pinned in ``tests/data/golden/`` (same seed → same oracle log).

    PYTHONPATH=. python tests/golden_runs.py tests/data/golden     # (re)writes the golden logs and platform.json

``test_same_oracle_log`` reruns the same configurations and requires byte-identical oracle logs, so that a
speed-up cannot change results. Bit-identical floats are a property of one platform (another CPU, or another
torch, picks other kernels), so the logs are pinned together with the platform that wrote them
(``platform.json``) and that comparison skips, saying why, anywhere else; the portable checks (same seed twice in
one process gives the same log) run everywhere. Re-pin only when a change of results is intended (a different
numerical path), and say so in the commit.
"""

from __future__ import annotations

import json
import platform
import shutil
import sys
import tempfile
from pathlib import Path

import torch

from tests.paths import REPO

GOLDEN = REPO / "tests" / "data" / "golden"
PLATFORM_FILE = GOLDEN / "platform.json"
PRIOR = REPO / "priors" / "moses-gru-2x256.prior"
SCORING = {"type": "geometric_mean", "component": [
    {"TanimotoSimilarity": {"endpoint": [{"name": "sim", "weight": 1, "params": {
        "smiles": ["CCN(CC)CC(=O)Nc1c(C)cccc1C", "CCCCNC(=O)NS(=O)(=O)c1ccc(C)cc1"], "radius": 2, "n_bits": 2048,
        "aggregate": "max"}, "transform": {"type": "sigmoid", "low": 0.13, "high": 0.43, "k": 0.5}}]}},
    {"QED": {"endpoint": [{"name": "QED", "weight": 1}]}},
]}
STRATEGIES = {
    "dap": {"type": "dap", "sigma": 128},
    "ips_grpo": {"type": "ips_grpo"},
    "mara_memory": {"type": "mara", "sigma": 128, "tau": 0.6, "anchor_pool": "batch+memory"},
}
BUDGET = 256


def this_platform() -> dict[str, str]:
    """What decides the last bits of a float here: the CPU (model and the kernels torch picks for it) and torch."""
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        model = next((line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                      if line.startswith("model name")), "")
    return {"machine": platform.machine(), "cpu_model": model or platform.processor(),
            "cpu_capability": torch.backends.cpu.get_cpu_capability(), "torch": torch.__version__}


def golden_platform_mismatch() -> str | None:
    """Why the pinned logs cannot be compared bit for bit on this machine, or None where they can."""
    pinned = json.loads(PLATFORM_FILE.read_text())
    here = this_platform()
    differ = [f"{key} {pinned.get(key)!r} there, {here[key]!r} here" for key in here if pinned.get(key) != here[key]]
    return f"golden oracle logs were written on another platform ({'; '.join(differ)})" if differ else None


def config(run_dir: Path, strategy: dict) -> dict:
    """The benchmark harness at a small budget: batch 64, scaffold filter, replay memory, one stage."""
    return {
        "run_type": "staged_learning", "device": "cpu", "seed": 0,
        "parameters": {"prior_file": str(PRIOR), "agent_file": str(PRIOR), "summary_csv_prefix": str(run_dir / "summary"),
                       "batch_size": 64, "hit_threshold": 0.6, "checkpoint_every": 2},
        "learning_strategy": {**strategy, "rate": 1e-4},
        "diversity_filter": {"type": "IdenticalMurckoScaffold", "bucket_size": 2, "minscore": 0.5},
        "inception": {"memory_size": 20, "sample_size": 10},
        "stage": [{"max_steps": 100, "min_steps": 100, "max_score": 1.0, "max_oracle_calls": BUDGET,
                   "scoring": SCORING}],
    }


def run(name: str, run_dir: Path) -> Path:
    """Run one golden configuration in ``run_dir`` (one torch thread); returns its oracle log."""
    from mara_chem.rl.config import load_run_config
    from mara_chem.rl.loop import StagedLearning

    torch.set_num_threads(1)
    StagedLearning(load_run_config(config(run_dir, STRATEGIES[name])), overwrite=True, quiet=True).run()
    return run_dir / "oracle_log.csv"


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name in STRATEGIES:
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(run(name, Path(tmp)), out / f"{name}_oracle_log.csv")
        print(name, "written")
    (out / PLATFORM_FILE.name).write_text(json.dumps(this_platform(), indent=2) + "\n")
    print("platform:", this_platform())
