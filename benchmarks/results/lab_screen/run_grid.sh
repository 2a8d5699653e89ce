#!/usr/bin/env bash
# The first lab screen: 2 tasks x variants x 3 seeds at 10,000 oracle calls, one worker process.
# Resumable: run it again and finished runs (same configuration) are skipped, an interrupted run resumes.
#   cd REPO && nohup nice -n 5 bash benchmarks/results/lab_screen/run_grid.sh >> benchmarks/results/lab_screen/grid.log 2>&1 &
# First the four core variants (all seeds), then the new variants appended (the core runs are then skipped);
# each command rebuilds the tables in benchmarks/results/lab_screen/ from every finished run it covers.
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
COMMON=(--tasks ref_neighbourhoods chemotypes --seeds 0 1 2 --workers 1
        --runs benchmarks/results/lab_screen/runs --out benchmarks/results/lab_screen)
CORE=(dap mara ips_grpo ips_dap)
NEW=(ips_grpo_scaffold_window ips_dap_scaffold_window mara_memory mara_ips_scaffold_memory)
PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --variants "${CORE[@]}" "${COMMON[@]}"
PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --variants "${CORE[@]}" "${NEW[@]}" "${COMMON[@]}"
