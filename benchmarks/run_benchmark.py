"""Multi-seed benchmark runner: tasks x variants x seeds, then tables and plots (the ``benchlab`` package).

    python benchmarks/run_benchmark.py --tasks ref_neighbourhoods chemotypes --variants dap mara ips_grpo \
        --seeds 0 1 2 --workers 1 --runs benchmarks/results/lab_screen/runs --out benchmarks/results/lab_screen

The same as ``mara-chem-bench`` (the lab's entry point, ``pip install -e benchmarks``). See
``benchmarks/README.md`` and ``mara-chem-bench --help``.
"""

from __future__ import annotations

from benchlab.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
