#!/usr/bin/env bash
# Fetch, here, the wheels the GPU machine lacks (its image has torch, numpy, pandas, scipy, scikit-learn,
# matplotlib, tqdm, pyyaml, but no RDKit, pydantic, Vina or Meeko) into .whl/ for CPython 3.12 x86-64.
# .whl/ is git-ignored; the device call names it in `carry`. Versions are the ones this project tests with.
# gemmi and dockstring stay behind (the 64 MiB limit on what travels): docking uses the ClpP PDBQT, which
# this script copies into data/receptors/ (data/ travels too; ../shared does not).
set -euo pipefail
cd "$(dirname "$0")/.."
PLATFORMS=""
for p in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64; do
    PLATFORMS="$PLATFORMS --platform $p"
done
WHEELS=(rdkit==2026.9.1 pydantic==2.14.4 pydantic_core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5
        typing_extensions==4.16.0 vina==1.2.7 meeko==0.8.0 dimorphite_dl==2.1.0)
mkdir -p .whl
for w in "${WHEELS[@]}"; do
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp $PLATFORMS -d .whl "$w" \
        || python3 -m pip download -q --no-deps --python-version 3.12 --implementation cp --platform any -d .whl "$w"
done
mkdir -p data/receptors && cp "${SHARED:-../shared}"/data/receptors/clpp_7uvu/7uvu-2-monomers-pdbfixer.pdbqt data/receptors/
du -sh .whl data/moses_train.csv.gz data/receptors
