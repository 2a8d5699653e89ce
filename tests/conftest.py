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


def _stub_torchvision() -> None:
    """REINVENT's runmodes import torchvision for TensorBoard images only; a stub keeps the tests free of it."""
    import importlib.util
    import sys
    import types

    if importlib.util.find_spec("torchvision") is not None or "torchvision" in sys.modules:
        return
    transforms = types.ModuleType("torchvision.transforms")
    transforms.ToTensor = type("ToTensor", (), {"__call__": lambda self, pic: torch.as_tensor(pic)})
    torchvision = types.ModuleType("torchvision")
    torchvision.transforms = transforms
    sys.modules["torchvision"], sys.modules["torchvision.transforms"] = torchvision, transforms


@pytest.fixture(scope="session")
def reinvent_rl():
    """REINVENT 4.8's RL run mode, or a skip naming why it is not importable (see scripts/setup_venv.sh)."""
    _stub_torchvision()
    try:
        import reinvent.runmodes.RL as rl
    except ImportError as exc:
        pytest.skip(f"REINVENT 4 is not importable ({exc}); scripts/setup_venv.sh installs it from "
                    "../shared/vendor/REINVENT4-4.8.tar.gz when that archive is present")
    return rl
