import random
from pathlib import Path

import pytest
import torch

from tests.paths import REPO, TEST_DATA

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def moses_sample() -> list[str]:
    """500 SMILES from the MOSES test split (committed, so tests need no download)."""
    return [line.strip() for line in (TEST_DATA / "moses_sample.smi").read_text().splitlines() if line.strip()]


@pytest.fixture()
def seeded() -> None:
    random.seed(0)
    torch.manual_seed(0)


#: the test environment's torchvision stand-in (tests/stand_ins/torchvision: REINVENT's one torchvision function),
#: put on the path only where torchvision is absent
STAND_INS = REPO / "tests" / "stand_ins"


def torchvision_stand_in() -> list[str]:
    """[the stand-in folder] when torchvision is not importable, else []: for sys.path or a child's PYTHONPATH."""
    import importlib.util

    spec = importlib.util.find_spec("torchvision")
    real = spec is not None and STAND_INS not in Path(spec.origin or STAND_INS).parents
    return [] if real else [str(STAND_INS)]


@pytest.fixture(scope="session")
def torchvision_path() -> list[str]:
    """What a child process needs on PYTHONPATH for torchvision: the stand-in folder where it is absent, else []."""
    return torchvision_stand_in()


@pytest.fixture(scope="session")
def reinvent_rl():
    """REINVENT 4.8's RL run mode, or a skip naming why it is not importable (see scripts/setup_venv.sh).
    Where torchvision is absent, the test set-up's stand-in (tests/stand_ins) goes on the path first."""
    import sys

    for folder in torchvision_stand_in():
        if folder not in sys.path:
            sys.path.insert(0, folder)
    try:
        import reinvent.runmodes.RL as rl
    except ImportError as exc:
        pytest.skip(f"REINVENT 4 is not importable ({exc}); scripts/setup_venv.sh installs it from "
                    "../shared/vendor/REINVENT4-4.8.tar.gz when that archive is present")
    return rl
