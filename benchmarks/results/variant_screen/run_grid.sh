#!/usr/bin/env bash
# Screen 2 of issue 9: candidate variants aimed at #Circles, 2 tasks x 2 seeds at 10,000 oracle calls, against DAP.
# Resumable: finished runs with the same configuration are skipped, an interrupted run resumes.
#   nohup nice -n 5 bash benchmarks/results/variant_screen/run_grid.sh >> benchmarks/results/variant_screen/grid.log 2>&1 &
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py \
    --variants dap ips_dap_scaffold_window ips_grpo_cluster_window ips_grpo_cluster04_window ips_dap_cluster04_window \
               dap_sigma256 ips_dap_scaffold_window_sigma256 \
    --tasks ref_neighbourhoods chemotypes --seeds 0 1 --workers 2 \
    --runs benchmarks/results/variant_screen/runs --out benchmarks/results/variant_screen
