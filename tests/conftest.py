import random
from pathlib import Path

import pytest
import torch

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[1]

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def moses_sample() -> list[str]:
    """500 SMILES from the MOSES test split (committed, so tests need no download)."""
    return [line.strip() for line in (DATA / "moses_sample.smi").read_text().splitlines() if line.strip()]


@pytest.fixture()
def seeded() -> None:
    random.seed(0)
    torch.manual_seed(0)


@pytest.fixture(scope="session")
def reinvent_rl():
    """REINVENT 4.8's RL run mode, or a skip naming why it is not importable (see scripts/setup_venv.sh).
    torchvision (TensorBoard images only) is replaced by mara-chem's one-function stub when absent."""
    from mara_chem.reinvent.compat import stub_torchvision

    stub_torchvision()
    try:
        import reinvent.runmodes.RL as rl
    except ImportError as exc:
        pytest.skip(f"REINVENT 4 is not importable ({exc}); scripts/setup_venv.sh installs it from "
                    "../shared/vendor/REINVENT4-4.8.tar.gz when that archive is present")
    return rl
