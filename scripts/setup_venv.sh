#!/usr/bin/env bash
# Creates (or reuses) .venv in the repo root and installs mara-chem with a CPU PyTorch.
# Safe to run twice: a stamp keyed on pyproject.toml skips the install when nothing changed.
# A GPU host that already has torch in .venv keeps it. TORCH_SPEC overrides the torch requirement.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
TORCH_SPEC="${TORCH_SPEC:-torch==2.13.0}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
stamp=".venv/.mara-chem-installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    # torch first and pinned: an open range would pull a multi-GB CUDA build.
    .venv/bin/python -c "import torch" 2>/dev/null || .venv/bin/python -m pip install -q "$TORCH_SPEC"
    .venv/bin/python -m pip install -q -e ".[docking,retro,test]"
    # rxn-insight ships the retrosynthesis templates; only its data file is read, so not its heavy dependencies
    .venv/bin/python -m pip install -q --no-deps "rxn-insight>=0.1.3"
    rm -f .venv/.mara-chem-installed-*
    touch "$stamp"
fi
