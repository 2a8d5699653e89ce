#!/usr/bin/env bash
# Creates (or reuses) .venv in the repo root and installs mara-chem with a CPU PyTorch.
#   scripts/setup_venv.sh demo   the package alone: what `make demo` needs (run, metrics, report)
#   scripts/setup_venv.sh test   plus the extras the test suite exercises: docking, ray, retro, tensorboard, peers, test,
#                                and the benchmark lab (benchmarks/: the mara-chem-bench distribution, editable)
# Safe to run twice: a stamp keyed on the mode and both pyproject.toml files skips the install when nothing changed.
# A GPU host that already has torch in .venv keeps it. TORCH_SPEC overrides the torch requirement.
# The GPL protonation tools (extra "gpl-protonation") are never installed here; see docs/installing.md, "Licences".
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-test}"
case "$MODE" in
    demo) SPEC="." ;;
    test) SPEC=".[docking,ray,retro,tensorboard,peers,test]" ;;
    *) echo "usage: $0 [demo|test]" >&2; exit 2 ;;
esac
PYTHON="${PYTHON:-python3}"
TORCH_SPEC="${TORCH_SPEC:-torch==2.13.0}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
stamp=".venv/.mara-chem-installed-$MODE-$(cat pyproject.toml benchmarks/pyproject.toml | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    # torch first and pinned: an open range would pull a multi-GB CUDA build.
    .venv/bin/python -c "import torch" 2>/dev/null || .venv/bin/python -m pip install -q "$TORCH_SPEC"
    .venv/bin/python -m pip install -q -e "$SPEC"
    if [ "$MODE" = test ]; then
        # the benchmark lab, editable: it reads its task files, variants and results beside itself
        .venv/bin/python -m pip install -q -e "benchmarks[peers,test]"
        # rxn-insight ships the retrosynthesis templates; only its data file is read, not its heavy dependencies
        .venv/bin/python -m pip install -q --no-deps "rxn-insight>=0.1.3"
    fi
    rm -f ".venv/.mara-chem-installed-$MODE-"*
    touch "$stamp"
fi
# (test mode only) REINVENT 4.8 for the tests that run mara-chem inside REINVENT (those in tests/reinvent/ skip without it):
# installed from ../shared/vendor/REINVENT4-4.8.tar.gz (relative to the repo) when that archive is there,
# without its dependencies (it pins another torch) plus the few packages it imports, torch held as it is.
# (No command substitution that can fail here: under `set -e` it would end the script where the archive is absent.)
reinvent_archive="../shared/vendor/REINVENT4-4.8.tar.gz"
reinvent_stamp=""
if [ -f "$reinvent_archive" ]; then
    reinvent_stamp=".venv/.reinvent-installed-$(sha256sum "$reinvent_archive" | cut -c1-16)"
fi
if [ "$MODE" = test ] && [ -n "$reinvent_stamp" ] && [ ! -f "$reinvent_stamp" ]; then
    constraint="$(mktemp)"
    .venv/bin/python -c "import torch; print(f'torch=={torch.__version__}')" > "$constraint"
    .venv/bin/python -m pip install -q --no-deps "$reinvent_archive"
    .venv/bin/python -m pip install -q -c "$constraint" "xxhash<4" python-dotenv pyyaml requests "molvs<0.2" pumas "mmpdb<3" tomli
    rm -f "$constraint" .venv/.reinvent-installed-*
    touch "$reinvent_stamp"
fi
# (test mode only) guacamol (the Guacamol scoring component, PMO objectives): --no-deps, because its pinned FCD==1.1 pulls
# TensorFlow, which goal-directed scoring never uses (mara_chem/scoring/components/guacamol.py has the shims).
if [ "$MODE" = test ]; then
    .venv/bin/python -c "import guacamol" 2>/dev/null || .venv/bin/python -m pip install -q --no-deps "guacamol==0.5.5"
fi
