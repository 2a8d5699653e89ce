"""Docking that cannot give a meaningful score is refused when the component is built, before any call."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mara_chem.scoring.docking import targets
from mara_chem.scoring.docking.targets import ReceptorError, map_memory_bytes
from tests.paths import REPO

# three receptor atoms around (10, 10, 10), in PDBQT fixed columns
ATOMS = "".join(
    f"ATOM  {i:5d}  C   ALA A   1    {x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00     0.000 {t}\n"
    for i, (x, y, z, t) in enumerate([(10.0, 10.0, 10.0, "C "), (11.2, 10.4, 9.1, "OA"), (9.1, 11.0, 10.6, "N ")], 1)
)


def _build(receptor: Path, center=(10.0, 10.0, 10.0), size=(20.0, 20.0, 20.0)):
    from mara_chem.scoring.components.docking import VinaDocking

    return VinaDocking({"receptor": str(receptor), "center": center, "size": size, "executor": "serial"})


def test_empty_receptor_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.pdbqt"
    empty.write_text("REMARK prepared by nobody\n")
    with pytest.raises(ReceptorError, match="empty.pdbqt.*no ATOM/HETATM"):
        _build(empty)


def test_box_away_from_every_atom_refused(tmp_path: Path) -> None:
    rec = tmp_path / "rec.pdbqt"
    rec.write_text(ATOMS)
    with pytest.raises(ReceptorError, match=r"holds no atom of receptor .*rec.pdbqt.*nearest atom 15\d\.\d A"):
        _build(rec, center=(100.0, 100.0, 100.0))


def test_garbled_coordinates_name_file_and_line(tmp_path: Path) -> None:
    rec = tmp_path / "bad.pdbqt"
    rec.write_text(ATOMS + "ATOM      4  C   ALA A   1      xx.xxx  10.000  10.000  1.00  0.00     0.000 C \n")
    with pytest.raises(ReceptorError, match="bad.pdbqt' line 4"):
        _build(rec)


def test_box_too_large_for_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    rec = tmp_path / "rec.pdbqt"
    rec.write_text(ATOMS)
    assert 40 * 2**30 < map_memory_bytes((200.0, 200.0, 200.0), 0.375) < 50 * 2**30  # 535^3 points x 330 B
    monkeypatch.setattr(targets, "available_memory_bytes", lambda: 8 * 2**30)
    with pytest.raises(ReceptorError, match=r"too large for the memory: .* 4\d\.\d GiB per worker, 8\.0 GiB"):
        _build(rec, size=(200.0, 200.0, 200.0))


def test_receptor_vina_cannot_read_is_named(tmp_path: Path) -> None:
    pytest.importorskip("vina")
    rec = tmp_path / "odd_types.pdbqt"
    rec.write_text(ATOMS.replace(" OA\n", " Qq\n"))
    with pytest.raises(ValueError, match="Vina cannot read receptor .*odd_types.pdbqt.*Qq"):
        _build(rec)


def test_real_target_builds() -> None:
    pytest.importorskip("dockstring")
    pytest.importorskip("vina")
    from mara_chem.scoring.components.docking import VinaDocking

    VinaDocking({"target": "DRD2"}).close()


def test_pool_from_script_without_main_guard_fails_fast(tmp_path: Path) -> None:
    """Spawned workers re-run the script; this used to block forever writing the settings to a dead child."""
    pytest.importorskip("vina")
    pytest.importorskip("dockstring")
    script = tmp_path / "no_guard.py"
    script.write_text(textwrap.dedent("""
        from mara_chem.scoring.components.docking import VinaDocking
        c = VinaDocking({"target": "DRD2", "executor": "pool", "n_workers": 1, "exhaustiveness": 1})
        print(c(["CCO"]).values)
    """))
    repo = REPO
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180,
                          env={"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"})
    assert done.returncode != 0
    assert 'if __name__ == "__main__":' in done.stderr
