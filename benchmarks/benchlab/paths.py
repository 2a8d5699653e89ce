"""Where the lab's files are: the lab works on the checkout it is installed from (``pip install -e benchmarks``).

Task files, the variants file, the bundled prior and the results folders are the repository's own files,
edited and committed with the code, so the package finds them beside itself instead of carrying copies.
"""

from __future__ import annotations

import os
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1]
REPO = BENCHMARKS.parent
TASK_DIR = BENCHMARKS / "tasks"
VARIANTS_FILE = BENCHMARKS / "variants.toml"
RESULTS = BENCHMARKS / "results"
DEFAULT_PRIOR = REPO / "priors" / "moses-gru-2x256.prior"
#: 500 SMILES of the MOSES test split, committed with the package's tests
MOSES_SAMPLE = REPO / "tests" / "data" / "moses_sample.smi"


def child_pythonpath() -> str:
    """``PYTHONPATH`` for a child process that must run this process's mara_chem and benchlab (a REINVENT peer
    runs in its run folder, where a relative path, or another installed copy, would give it other code)."""
    import mara_chem

    roots = [str(Path(mara_chem.__file__).resolve().parents[1]), str(BENCHMARKS)]
    return os.pathsep.join(dict.fromkeys([*roots, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]))


def read_smiles(path: Path = MOSES_SAMPLE) -> list[str]:
    """The SMILES of a one-per-line file, blank lines left out."""
    return [s.strip() for s in path.read_text().split() if s.strip()]
