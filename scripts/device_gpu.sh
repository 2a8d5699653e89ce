#!/usr/bin/env bash
# The GPU measurements in one device call (<= 10 min): full-size prior, sampling throughput, RL step time GPU vs CPU,
# a 10,000-call benchmark run on the GPU, docking scaling on the machine's cores.
#
# Prepare here:   bash scripts/device_wheels.sh          (.whl/: RDKit, pydantic, Vina, Meeko for cp312; ClpP receptor)
#                 rm data/moses_test.csv.gz              (what travels must stay under 64 MiB)
#                 .venv/bin/mara-chem data moses         (data/: MOSES train, 10 MB)
# Device call:    run(command="bash scripts/device_gpu.sh", carry=["data", ".whl"], timeout_s=600)
# CPU dry run:    OUT=/tmp/o DRY=1 bash scripts/device_gpu.sh   (tiny sizes, CPU, same code paths)
# Every part has its own time limit, so one slow part cannot take the others' results with it; each part's
# output lands in $OUT as it finishes (at most 8 files come back: the prior, and seven logs).
set -uo pipefail
OUT=${OUT:?set OUT to the folder for the results}
DRY=${DRY:-0}
mkdir -p "$OUT"
if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
PY=${PY:-python3}
if [ "$DRY" = 1 ]; then
    DEV=cpu; PRIOR_ENV="DEVICE=cpu LIMIT=3000 LAYERS=1 HIDDEN=32 EMBEDDING=16 MAX_HOURS=0.005 N_SAMPLES=200"
    BATCHES="256 1024"; STEP_BATCHES="16"; BUDGET=200; LIGANDS=2; WORKERS=1,2; T=1200
else
    DEV=cuda; PRIOR_ENV="MAX_HOURS=0.05"; BATCHES="1024 4096 16384"; STEP_BATCHES="64 512"; BUDGET=10000
    LIGANDS=30; WORKERS=1,4,8,15; T=600
fi
RECEPTOR=""
[ -f data/receptors/7uvu-2-monomers-pdbfixer.pdbqt ] && RECEPTOR="--receptor data/receptors/7uvu-2-monomers-pdbfixer.pdbqt"
log() { echo "== $(date +%T) $*" | tee -a "$OUT/device_gpu.log"; }
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null || echo "no nvidia-smi";
  nproc; $PY -c "import torch, rdkit; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'rdkit', rdkit.__version__)"; } \
  2>&1 | tee "$OUT/device_gpu.log"

# 1 + 5 at once: the prior trains on the GPU (one core feeds it) while docking scales on the other cores
# (1, 4 and 8 workers); 15 workers run alone afterwards.
log "1. full-size prior (3x512 LSTM, fp16) + 5. docking scaling"
( env OUT="$OUT/prior" $PRIOR_ENV timeout $((T * 45 / 100)) bash scripts/device_full_prior.sh > "$OUT/prior.log" 2>&1 ) &
PRIOR_PID=$!
timeout $((T * 40 / 100)) $PY benchmarks/docking_throughput.py --ligands "$LIGANDS" --workers "${WORKERS%,15}" \
    --exhaustiveness 1 $RECEPTOR --json "$OUT/docking.json" > "$OUT/docking.log" 2>&1 || log "docking (1-8 workers) failed or timed out"
wait $PRIOR_PID || log "prior training failed or timed out"
case "$WORKERS" in *,15) timeout $((T * 10 / 100)) $PY benchmarks/docking_throughput.py --ligands "$LIGANDS" --workers 15 \
    --exhaustiveness 1 $RECEPTOR >> "$OUT/docking.log" 2>&1 || log "docking (15 workers) failed or timed out";; esac
PRIOR=$(ls "$OUT"/prior/*.prior 2>/dev/null | head -1)
[ -n "$PRIOR" ] && cp "$PRIOR" "$OUT/" && cat "$OUT"/prior/sample_*.txt >> "$OUT/prior.log" 2>/dev/null
PRIOR=${PRIOR:-priors/moses-gru-2x256.prior}
[ "$DRY" = 1 ] && PRIOR=priors/moses-gru-2x256.prior  # a seconds-trained prior makes only invalid SMILES

log "2. sampling throughput of $PRIOR"
timeout $((T * 8 / 100)) $PY benchmarks/sampling_throughput.py --prior "$PRIOR" --batch-sizes $BATCHES --device "$DEV" \
    > "$OUT/sampling.log" 2>&1 || log "sampling failed or timed out"

log "3. RL step time, $DEV and cpu side by side"
for d in "$DEV" cpu; do
    timeout $((T * 8 / 100)) $PY benchmarks/step_time.py --prior "$PRIOR" --batch-sizes $STEP_BATCHES --steps 6 \
        --device "$d" --strategies dap mara ips_grpo >> "$OUT/step_time.log" 2>&1 || log "step time on $d failed or timed out"
done

log "4. a ${BUDGET}-call run of ref_neighbourhoods on $DEV, DAP and IPS-GRPO at once"
for s in dap ips_grpo; do
    $PY - "$s" "$BUDGET" "$DEV" "$PRIOR" <<'PYEOF' > "$OUT/run_$s.toml"
import re, sys
strategy, budget, device, prior = sys.argv[1:]
task = open("benchmarks/tasks/ref_neighbourhoods.toml").read()
scoring = task[task.index("\n[scoring]"):]
scoring = re.sub(r"^\[(\[?)scoring", r"[\1stage.scoring", scoring, flags=re.M)
options = {"dap": 'type = "dap"\nsigma = 128', "ips_grpo": 'type = "ips_grpo"'}[strategy]
print(f'''run_type = "staged_learning"
device = "{device}"
seed = 0
[parameters]
prior_file = "{prior}"
agent_file = "{prior}"
summary_csv_prefix = "/tmp/gpu_runs/{strategy}/summary"
batch_size = 64
hit_threshold = 0.85
[learning_strategy]
{options}
rate = 1e-4
[diversity_filter]
type = "IdenticalMurckoScaffold"
bucket_size = 10
[inception]
memory_size = 100
sample_size = 10
[[stage]]
max_steps = 1000
min_steps = 1000
max_oracle_calls = {budget}
{scoring}''')
PYEOF
    ( /usr/bin/time -f "$s wall %e s" timeout $((T * 25 / 100)) $PY -m mara_chem.cli run "$OUT/run_$s.toml" --overwrite \
        > "$OUT/run_$s.log" 2>&1; $PY -m mara_chem.cli metrics "/tmp/gpu_runs/$s" --threshold 0.8 0.85 >> "$OUT/run_$s.log" 2>&1 ) &
done
wait
cat "$OUT"/run_dap.log "$OUT"/run_ips_grpo.log > "$OUT/benchmark_run.log"; rm -f "$OUT"/run_*.log
rm -rf "$OUT/prior"
log "done"
