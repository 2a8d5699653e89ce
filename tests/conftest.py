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
