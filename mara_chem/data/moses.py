"""The MOSES data set, read out of the ``molsets==0.3.1`` wheel (the package itself is not installed).

``pip download --no-deps`` fetches the wheel from the package index; the gzip CSVs inside it are checked
against the SHA-256 recorded here and written under the data folder.
"""

from __future__ import annotations

import gzip
import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

WHEEL_SPEC = "molsets==0.3.1"
MEMBERS = {
    "train": ("moses/dataset/data/train.csv.gz", 1_584_663),
    "test": ("moses/dataset/data/test.csv.gz", 176_074),
}


class DatasetError(RuntimeError):
    pass


def _download_wheel(target: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d", str(target), WHEEL_SPEC]
    result = subprocess.run(cmd, capture_output=True, text=True)
    wheels = list(target.glob("molsets-0.3.1-*.whl"))
    if result.returncode != 0 or not wheels:
        raise DatasetError(f"could not download {WHEEL_SPEC} with pip: {result.stderr.strip()[-500:]}")
    return wheels[0]


def _count_rows(path: Path) -> int:
    with gzip.open(path, "rt") as handle:
        return sum(1 for _ in handle) - 1  # header


def fetch_moses(data_dir: str | Path, wheel: str | Path | None = None) -> dict[str, Path]:
    """Write ``moses_train.csv.gz`` and ``moses_test.csv.gz`` under data_dir; idempotent."""
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    wanted = {name: data_dir / f"moses_{name}.csv.gz" for name in MEMBERS}
    if all(p.exists() and _count_rows(p) == MEMBERS[n][1] for n, p in wanted.items()):
        return wanted
    with tempfile.TemporaryDirectory() as tmp:
        wheel_path = Path(wheel) if wheel else _download_wheel(Path(tmp))
        with zipfile.ZipFile(wheel_path) as archive:
            for name, (member, n_rows) in MEMBERS.items():
                with archive.open(member) as src, open(wanted[name].with_suffix(".tmp"), "wb") as dst:
                    shutil.copyfileobj(src, dst)
                rows = _count_rows(wanted[name].with_suffix(".tmp"))
                if rows != n_rows:
                    raise DatasetError(f"MOSES {name}: expected {n_rows} rows, found {rows}")
                wanted[name].with_suffix(".tmp").replace(wanted[name])
    return wanted


def sha256_of(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
