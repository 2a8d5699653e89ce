#!/usr/bin/env bash
# PMO tuning screen (issue 19, item 3): every variant on PMO's two tuning objectives (zaleplon_mpo and
# perindopril_mpo, thresholds calibrated on the ZINC prior: benchmarks/tasks/pmo_zinc/) at 10,000 oracle calls,
# with the ZINC 250k prior, seeds 0-2, seed-major (a partial screen holds every variant at the first seeds).
# DAP is varied one or two factors at a time from PMO's REINVENT settings (pmo_dap); the other families run on
# that harness; `dap` is the lab's REINVENT-4-default harness for reference. Resumable: finished runs with the
# same configuration are skipped, an interrupted run resumes.
#   nohup nice -n 5 bash benchmarks/results/pmo_tuning/run_grid.sh >> benchmarks/results/pmo_tuning/grid.log 2>&1 &
# SEEDS="0 1" limits the seeds; extra arguments go to run_benchmark.py (e.g. --summarize-only).
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
VARIANTS=(pmo_dap pmo_dap_nopenalty pmo_dap_sigma250 pmo_dap_sigma1000 pmo_dap_rate1e-3 pmo_dap_rate2e-4
          pmo_dap_filter pmo_dap_replay10 dap
          pmo_ips_dap_scaffold_window pmo_ips_dap_cluster03_window pmo_mara pmo_ips_grpo_cluster04_window
          pmo_dap_aug2)
# shellcheck disable=SC2086
PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --tasks zaleplon_mpo_zinc perindopril_mpo_zinc \
    --seeds ${SEEDS:-0 1 2} --variants "${VARIANTS[@]}" --workers "${WORKERS:-2}" \
    --prior priors/zinc-gru-2x256.prior --runs benchmarks/results/pmo_tuning/runs \
    --out benchmarks/results/pmo_tuning "$@"
