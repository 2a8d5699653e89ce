"""MOSES fetch: members of the wheel are checked by SHA-256 and row count before anything is written."""

from __future__ import annotations

import gzip
import hashlib
import zipfile

import pytest

from mara_chem.data import moses


def _fake_wheel(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _csv_gz(n_rows: int) -> bytes:
    return gzip.compress(("SMILES,SPLIT\n" + "CCO,train\n" * n_rows).encode(), mtime=0)


def test_tampered_member_is_refused_by_sha256(tmp_path):
    train, test = _csv_gz(3), _csv_gz(2)
    wheel = _fake_wheel(tmp_path / "molsets.whl", {moses.MEMBERS["train"][0]: train, moses.MEMBERS["test"][0]: test})
    with pytest.raises(moses.DatasetError, match=r"MOSES train: SHA-256 of moses/dataset/data/train.csv.gz is [0-9a-f]{64}, expected 786f03"):
        moses.fetch_moses(tmp_path / "data", wheel=wheel)
    assert not list((tmp_path / "data").iterdir())  # nothing written, no temp file left


def test_matching_members_are_written_and_kept(tmp_path, monkeypatch):
    train, test = _csv_gz(3), _csv_gz(2)
    monkeypatch.setattr(moses, "MEMBERS", {
        "train": ("d/train.csv.gz", 3, hashlib.sha256(train).hexdigest()),
        "test": ("d/test.csv.gz", 2, hashlib.sha256(test).hexdigest()),
    })
    wheel = _fake_wheel(tmp_path / "molsets.whl", {"d/train.csv.gz": train, "d/test.csv.gz": test})
    out = moses.fetch_moses(tmp_path / "data", wheel=wheel)
    assert out["train"].read_bytes() == train and out["test"].read_bytes() == test
    # present and matching: kept without opening the wheel again
    assert moses.fetch_moses(tmp_path / "data", wheel=tmp_path / "absent.whl") == out
