#!/usr/bin/env bash
# The committed suite at 10,000 oracle calls: the three project tasks and four PMO objectives × DAP as
# REINVENT runs it (rate 1e-4), DAP at rate 3e-4 (the rate-matched control) and three IPS-DAP variants of the
# screen (benchmarks/results/variant_screen/), seeds 0-4, seed-major (a partial grid holds every task × variant
# at the first seeds). Resumable: finished runs with the same configuration are skipped (the run folders are
# shared with the screen, so its seed 0-1 runs are reused), an interrupted run resumes.
#   nohup nice -n 5 bash benchmarks/results/suite/run_grid.sh >> benchmarks/results/suite/grid.log 2>&1 &
# On 2026-12-01 it was run in parts as the screen went on (README, "Benchmark suite"): seeds 0-2 of the first four
# variants, then seeds 3-4 on the project tasks, the ε 0.0005 variant (from screen round 5) on everything in a
# second process with one worker, then what was left; the last command rebuilds the tables from all of it.
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
VARIANTS=(dap ips_dap_scaffold_window dap_rate3e-4 ips_dap_cluster03_window_rate3e-4
          ips_dap_cluster03_window_rate3e-4_eps0005)
PMO=(celecoxib_rediscovery albuterol_similarity osimertinib_mpo median1)
PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --tasks project "${PMO[@]}" --seeds 0 1 2 3 4 \
    --variants "${VARIANTS[@]}" --workers "${WORKERS:-2}" --runs benchmarks/results/variant_screen/runs \
    --out benchmarks/results/suite "$@"
