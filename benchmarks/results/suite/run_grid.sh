#!/usr/bin/env bash
# The committed suite of issue 9 at 10,000 oracle calls: the three project tasks and four PMO objectives, DAP as
# REINVENT runs it (rate 1e-4), DAP at rate 3e-4 (the rate-matched control), and the two IPS-DAP variants of the
# screen (benchmarks/results/variant_screen/). Seeds 0-2 on every task, then seeds 3-4 on the project tasks.
# Resumable: finished runs with the same configuration are skipped (the run folders are shared with the screen,
# so its seed 0-1 runs of these variants are reused), an interrupted run resumes.
#   nohup nice -n 5 bash benchmarks/results/suite/run_grid.sh >> benchmarks/results/suite/grid.log 2>&1 &
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
RUNNER=(env PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py)
VARIANTS=(dap ips_dap_scaffold_window dap_rate3e-4 ips_dap_cluster03_window_rate3e-4)
PMO=(celecoxib_rediscovery albuterol_similarity osimertinib_mpo median1)
COMMON=(--variants "${VARIANTS[@]}" --workers 2 --runs benchmarks/results/variant_screen/runs
        --out benchmarks/results/suite)
"${RUNNER[@]}" --tasks project "${PMO[@]}" --seeds 0 1 2 "${COMMON[@]}"
"${RUNNER[@]}" --tasks project --seeds 3 4 "${COMMON[@]}"
# the tables over everything that finished (the PMO tasks have seeds 0-2 only)
"${RUNNER[@]}" --tasks project "${PMO[@]}" --seeds 0 1 2 3 4 "${COMMON[@]}" --summarize-only
