#!/usr/bin/env bash
# Screen 2, round 2 (after run_grid.sh): learning rate pair and circle-sized clusters, same tasks and seeds;
# the tables then cover both rounds.
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py \
    --variants dap ips_dap_scaffold_window ips_grpo_cluster_window ips_grpo_cluster04_window ips_dap_cluster04_window \
               dap_sigma256 ips_dap_scaffold_window_sigma256 \
               dap_rate3e-4 ips_dap_scaffold_window_rate3e-4 ips_dap_cluster03_window ips_grpo_mara \
    --tasks ref_neighbourhoods chemotypes --seeds 0 1 --workers 2 \
    --runs benchmarks/results/variant_screen/runs --out benchmarks/results/variant_screen
