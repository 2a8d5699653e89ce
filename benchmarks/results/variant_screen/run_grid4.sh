#!/usr/bin/env bash
# Screen 2, rounds 4 and 5 (after run_grid3.sh): stronger pulls to rare clusters (ε) at rates 2e-4 and 3e-4; the tables cover all
# rounds. Ran with one worker beside the suite's two (round 5 appended its two variants and ran it again).
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py \
    --variants dap ips_dap_scaffold_window ips_grpo_cluster_window ips_grpo_cluster04_window ips_dap_cluster04_window \
               dap_sigma256 ips_dap_scaffold_window_sigma256 \
               dap_rate3e-4 ips_dap_scaffold_window_rate3e-4 ips_dap_cluster03_window ips_grpo_mara \
               dap_rate2e-4 ips_dap_cluster03_window_rate2e-4 ips_dap_cluster03_window_rate3e-4 \
               ips_dap_cluster03_window_rate3e-4_eps002 ips_dap_cluster03_memory_rate3e-4 \
               ips_dap_cluster03_window_rate2e-4_eps002 ips_dap_cluster03_window_rate3e-4_eps0005 \
    --tasks ref_neighbourhoods chemotypes --seeds 0 1 --workers "${WORKERS:-1}" \
    --runs benchmarks/results/variant_screen/runs --out benchmarks/results/variant_screen
