"""User errors that get one line naming what is wrong, and no traceback: a scoring run file without
`[scoring]`, a full disk while a run writes its checkpoint, `--data-dir` naming a file, and a corrupt
synthemol archive that pip cannot unpack (a real `pip download` from a local folder, no network)."""

from __future__ import annotations

import errno
import gzip
import os

from mara_chem.cli import main
from tests.reinvent.reinvent_toml import qed_stage
from tests.paths import BUNDLED_PRIOR

BUNDLED = BUNDLED_PRIOR


def error_line(capsys) -> str:
    """The error's line (the CLI adds "run again with -v" as a second line); asserts there is no traceback."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[0] if "with -v" in err else err.strip()


def test_a_scoring_run_file_without_its_scoring_table_names_it(tmp_path, capsys):
    (tmp_path / "in.smi").write_text("CCO\n")
    run_file = tmp_path / "score.toml"
    run_file.write_text(f'run_type = "scoring"\n[parameters]\nsmiles_file = "{tmp_path / "in.smi"}"\n'
                        f'output_csv = "{tmp_path / "out.csv"}"\n')
    assert main(["run", str(run_file)]) == 2
    err = capsys.readouterr().err
    assert "[scoring] required key is missing" in err and "(top level)" not in err


def test_a_full_disk_at_the_checkpoint_says_no_space_left_on_that_file(tmp_path, capsys, monkeypatch):
    """The disk fills up as the checkpoint is written (fsync is where a full disk reports, as on a real one)."""
    import mara_chem.atomic as atomic

    real_fsync = atomic.os.fsync

    def fsync(fd: int) -> None:
        if ".checkpoint.pt." in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    out = tmp_path / "run"
    run_file = tmp_path / "run.toml"
    run_file.write_text(f"""run_type = "staged_learning"
[parameters]
prior_file = "{BUNDLED}"
agent_file = "{BUNDLED}"
summary_csv_prefix = "{out}/summary"
batch_size = 4
""" + qed_stage(max_steps=1, max_score=1.0, min_steps=0, chkpt=str(out / "stage1.chkpt")))
    assert main(["run", str(run_file), "-q"]) == 1
    line = error_line(capsys)
    assert line.startswith(f"error: no space left on {out / 'checkpoint.pt'} ") and "enforce fail" not in line
    assert not list(out.glob(".checkpoint.pt.*"))  # the half-written temporary file is gone


def test_data_dir_naming_a_file_says_so(tmp_path, capsys):
    a_file = tmp_path / "zinc"
    a_file.write_text("not a folder")
    assert main(["data", "zinc", "--data-dir", str(a_file)]) == 1
    assert error_line(capsys) == f"error: --data-dir {a_file} is a file, not a folder; name a folder (it is created if missing)"
    assert a_file.read_text() == "not a folder"


def test_a_corrupt_synthemol_archive_is_one_line_naming_pips_error(tmp_path, capsys, monkeypatch):
    links = tmp_path / "links"
    links.mkdir()
    (links / "synthemol-1.0.4.tar.gz").write_bytes(gzip.compress(os.urandom(3000)))  # gzip, but no tar inside
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    assert main(["data", "building-blocks", "--data-dir", str(tmp_path / "data")]) == 1
    line = error_line(capsys)
    assert line.startswith("error: could not download synthemol==1.0.4 with pip: tarfile.ReadError")
    assert line.endswith("pass it with --sdist")
