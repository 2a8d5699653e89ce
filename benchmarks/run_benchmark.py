"""Multi-seed benchmark runner: tasks x variants x seeds, then tables and plots (the ``benchlab`` package).

    python benchmarks/run_benchmark.py --tasks ref_neighbourhoods chemotypes --variants dap mara ips_grpo \
        --seeds 0 1 2 --workers 1 --runs benchmarks/results/lab_screen/runs --out benchmarks/results/lab_screen

See ``benchmarks/README.md`` and ``python benchmarks/run_benchmark.py --help``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the benchlab package sits next to this file

from benchlab.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
