#!/usr/bin/env bash
# Train the full-size prior (3 x 512 LSTM, REINVENT 4 defaults) on a lent GPU machine in one call.
#
# The GPU machine has torch, numpy and tqdm but no RDKit and no internet, so two ignored folders travel
# with the call (prepare them here first; priors/moses-gru-2x256.md has the training record):
#   data/  <- `mara-chem data moses` (MOSES train, 10 MB)
#   .whl/  <- the RDKit wheel for CPython 3.12 (pip download --no-deps --only-binary=:all: ...)
# Device call:  run(command="bash scripts/device_full_prior.sh", carry=["data", ".whl"], timeout_s=600)
# What comes back under $OUT: the prior (fp16 weights, < 16 MiB), the training log, the sample report.
#
# Every figure is overridable for a CPU dry run, e.g.
#   OUT=/tmp/o DEVICE=cpu LIMIT=3000 HIDDEN=32 EMBEDDING=16 MAX_HOURS=0.01 N_SAMPLES=200 bash scripts/device_full_prior.sh
set -euo pipefail

OUT=${OUT:?set OUT to the folder for the results}
DEVICE=${DEVICE:-cuda}
LAYERS=${LAYERS:-3}
HIDDEN=${HIDDEN:-512}
EMBEDDING=${EMBEDDING:-256}
BATCH=${BATCH:-512}
LR=${LR:-1e-3}
EPOCHS=${EPOCHS:-30}
MAX_HOURS=${MAX_HOURS:-0.09}   # epoch time; the data preparation and the 10k-sample check come on top
N_SAMPLES=${N_SAMPLES:-10000}
LIMIT=${LIMIT:-}
NAME=${NAME:-moses-lstm-${LAYERS}x${HIDDEN}}

if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
mkdir -p "$OUT" /tmp/full_prior
${PY:-python3} - <<'EOF'
import torch, rdkit
print("torch", torch.__version__, "cuda", torch.cuda.is_available(),
      torch.cuda.get_device_name(0) if torch.cuda.is_available() else "-", "rdkit", rdkit.__version__)
EOF

${PY:-python3} -m mara_chem.cli -v prior train --smiles data/moses_train.csv.gz --out "/tmp/full_prior/$NAME.prior" \
    --cell lstm --layers "$LAYERS" --hidden "$HIDDEN" --embedding "$EMBEDDING" --batch-size "$BATCH" --lr "$LR" \
    --epochs "$EPOCHS" --patience 3 --max-hours "$MAX_HOURS" --device "$DEVICE" --seed 0 --half-precision \
    ${LIMIT:+--limit "$LIMIT"} 2>&1 | tr '\r' '\n' | tee "$OUT/train_$NAME.log"
cp "/tmp/full_prior/$NAME.prior" "$OUT/"
${PY:-python3} -m mara_chem.cli prior info "$OUT/$NAME.prior" | tee "$OUT/info_$NAME.txt"
${PY:-python3} -m mara_chem.cli prior sample "$OUT/$NAME.prior" -n "$N_SAMPLES" --seed 0 --device "$DEVICE" \
    --training-set data/moses_train.csv.gz | tee "$OUT/sample_$NAME.txt"
