#!/usr/bin/env bash
# The second screen: variants aimed at #Circles, ref_neighbourhoods and chemotypes x seeds 0-1 at 10,000 oracle
# calls, against DAP. It ran in five rounds, each chosen from the results of the last (docs/measurements.md, "Variant screen");
# every round ran this command with the variants of the rounds so far (rounds 4-5 with WORKERS=1 beside the
# suite). Runs are independent and reused on an identical configuration, so running it with all rounds (the
# default) reproduces the whole screen; `ROUNDS=3 bash run_grid.sh` stops after round 3.
# Resumable: finished runs with the same configuration are skipped, an interrupted run resumes.
#   nohup nice -n 5 bash benchmarks/results/variant_screen/run_grid.sh >> benchmarks/results/variant_screen/grid.log 2>&1 &
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
ROUND_VARIANTS=(
    "dap ips_dap_scaffold_window ips_grpo_cluster_window ips_grpo_cluster04_window ips_dap_cluster04_window
     dap_sigma256 ips_dap_scaffold_window_sigma256"                                             # 1: outcomes, σ
    "dap_rate3e-4 ips_dap_scaffold_window_rate3e-4 ips_dap_cluster03_window ips_grpo_mara"     # 2: rate, circle-sized clusters
    "dap_rate2e-4 ips_dap_cluster03_window_rate2e-4 ips_dap_cluster03_window_rate3e-4"         # 3: clusters at higher rates
    "ips_dap_cluster03_window_rate3e-4_eps002 ips_dap_cluster03_memory_rate3e-4"                # 4: stronger rare-cluster pull
    "ips_dap_cluster03_window_rate2e-4_eps002 ips_dap_cluster03_window_rate3e-4_eps0005"       # 5: ε and rate
)
VARIANTS=()
for round in "${ROUND_VARIANTS[@]:0:${ROUNDS:-${#ROUND_VARIANTS[@]}}}"; do
    read -r -a names <<< "$(echo $round)"
    VARIANTS+=("${names[@]}")
done
PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --variants "${VARIANTS[@]}" \
    --tasks ref_neighbourhoods chemotypes --seeds 0 1 --workers "${WORKERS:-2}" \
    --runs benchmarks/results/variant_screen/runs --out benchmarks/results/variant_screen "$@"
