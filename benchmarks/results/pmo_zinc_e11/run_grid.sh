#!/usr/bin/env bash
# PMO grid on the converged ZINC prior (priors/zinc-gru-2x256-e11.md) at 10,000 oracle calls, in resumable parts.
# A finished run is skipped, an interrupted one starts again; the last step rebuilds each part's table from the
# runs there are, so a part stopped early still says which runs it holds.
#   PART=parity  nohup bash benchmarks/results/pmo_zinc_e11/run_grid.sh >> benchmarks/results/pmo_zinc_e11/grid.log 2>&1 &
#   PART=genetic nohup bash benchmarks/results/pmo_zinc_e11/run_grid.sh >> ... &
# Parts:
# - parity: mara-chem's DAP configured as the REINVENT 4.8 peer's PMO preset (pmo_dap_parity) against that peer,
#   on zaleplon, perindopril, troglitazone and mestranol, seed-major over SEEDS (default "0 1 2").
# - genetic: the genetic harness (Graph GA offspring as paid calls, rank-based off-policy replay) for DAP, MARA,
#   cluster IPS-DAP and Genetic GFN's recipe, and tuned DAP without it, on PMO's two tuning objectives, seed-major.
# TABLE_ONLY=1 only rebuilds the tables. One thread per stream (OMP_NUM_THREADS=1): two parts fill the two cores.
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
OUT=benchmarks/results/pmo_zinc_e11
RUNS="${RUNS:-$OUT/runs}"
PRIOR=priors/zinc-gru-2x256-e11.prior
PART="${PART:-parity}"
read -r -a SEED_LIST <<< "${SEEDS:-0 1 2}"
export OMP_NUM_THREADS=1
. benchmarks/peers/run_peer.sh

case "$PART" in
    parity) TASKS=(zaleplon_mpo_zinc perindopril_mpo_zinc troglitazone_rediscovery_zinc mestranol_similarity_zinc)
            VARIANTS=(pmo_dap_parity) ;;
    genetic) TASKS=(zaleplon_mpo_zinc perindopril_mpo_zinc)
             VARIANTS=(pmo_dap_genetic pmo_genetic_tb_recipe pmo_mara_genetic pmo_ips_dap_cluster03_window_genetic
                       pmo_dap_rate1e-3) ;;
    *) echo "PART must be parity or genetic, got $PART" >&2; exit 2 ;;
esac

if [ -z "${TABLE_ONLY:-}" ]; then
    for seed in "${SEED_LIST[@]}"; do
        if [ "$PART" = parity ]; then
            for task in "${TASKS[@]}"; do
                run_peer reinvent "$task" "$seed" "$RUNS/$task/reinvent_pmo/seed$seed" --preset pmo
                PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --tasks "$task" --seeds "$seed" \
                    --variants "${VARIANTS[@]}" --workers 1 --prior "$PRIOR" --runs "$RUNS" --out "$RUNS/_suite_$PART"
            done
        else
            PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --tasks "${TASKS[@]}" --seeds "$seed" \
                --variants "${VARIANTS[@]}" --workers 1 --prior "$PRIOR" --runs "$RUNS" --out "$RUNS/_suite_$PART"
        fi
    done
fi
M=()
for v in "${VARIANTS[@]}"; do M+=(--method "$v=$RUNS:$v"); done
[ "$PART" = parity ] && M+=(--method "REINVENT 4.8 (PMO settings)=$RUNS:reinvent_pmo")
mkdir -p "$OUT/$PART"
PYTHONPATH="$PWD" "$PY" benchmarks/pmo_table.py --tasks "${TASKS[@]}" --budget 10000 --out "$OUT/$PART" "${M[@]}"
