"""The hostile probe's broken run files as one table: file -> the key (or file) the one-line refusal names.

Each case goes through ``mara-chem run`` (in-process) and must be refused by the preflight (exit code 2, not the
catch-all 1 that wraps a library's own message), name the key, print no traceback, and leave its output folder
exactly as it was: no oracle call paid, nothing written. A few cases prepare a file first (an SDF of
20,000 atoms, a binary SMILES file, a text file where a cache should be).
"""

from __future__ import annotations

import gzip
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.hostile.conftest import PRIOR, folder_state, sampling, scoring, set_key, staged, to_toml, transfer

Case = tuple[str, Callable[[Path], dict[str, Any]], str]


def _st(key: str, value: Any) -> Callable[[Path], dict[str, Any]]:
    return lambda tmp: set_key(staged(tmp / "run"), key, value)


def _mode(base: Callable[[Path], dict[str, Any]], key: str, value: Any) -> Callable[[Path], dict[str, Any]]:
    return lambda tmp: set_key(base(tmp), key, value)


def _endpoint(**changes: Any) -> Callable[[Path], dict[str, Any]]:
    def build(tmp: Path) -> dict[str, Any]:
        cfg = staged(tmp / "run")
        cfg["stage"][0]["scoring"]["component"][0]["QED"]["endpoint"][0].update(changes)
        return cfg
    return build


def _component(name: str, params: dict[str, Any], transform: dict[str, Any] | None = None):
    def build(tmp: Path) -> dict[str, Any]:
        cfg = staged(tmp / "run")
        ep: dict[str, Any] = {"name": "x", "weight": 1, "params": params}
        if transform:
            ep["transform"] = transform
        cfg["stage"][0]["scoring"]["component"].append({name: {"endpoint": [ep]}})
        return cfg
    return build


def _file(writer: Callable[[Path], None], base=scoring, key="parameters.smiles_file", name="in.smi"):
    def build(tmp: Path) -> dict[str, Any]:
        cfg = base(tmp)
        path = tmp / name
        writer(path)
        return set_key(cfg, key, str(path))
    return build


def _folder_at(key: str, name: str, base=None):
    def build(tmp: Path) -> dict[str, Any]:
        (tmp / name).mkdir()
        return set_key(base(tmp) if base else staged(tmp / "run"), key, str(tmp / name))
    return build


def _text_file_at(key: str, name: str):
    def build(tmp: Path) -> dict[str, Any]:
        (tmp / name).write_text("not what it should be\n")
        return set_key(staged(tmp / "run"), key, str(tmp / name))
    return build


def _agent_copy(tmp: Path) -> str:
    shutil.copyfile(PRIOR, tmp / "agent.prior")
    return str(tmp / "agent.prior")


def _big_sdf(path: Path) -> None:
    n = 20_000
    atoms = "".join(f"M  V30 {i + 1} C 0 0 0 0\n" for i in range(n))
    bonds = "".join(f"M  V30 {i + 1} 1 {i + 1} {i + 2}\n" for i in range(n - 1))
    path.write_text(f"big\n  hostile\n\n  0  0  0     0  0            999 V3000\nM  V30 BEGIN CTAB\n"
                    f"M  V30 COUNTS {n} {n - 1} 0 0 0\nM  V30 BEGIN ATOM\n{atoms}M  V30 END ATOM\n"
                    f"M  V30 BEGIN BOND\n{bonds}M  V30 END BOND\nM  V30 END CTAB\nM  END\n$$$$\n")


def _docking(**params: Any):
    base = {"target": "DRD2", "center": [9.25, 6.167, -7.0], "size": [10.0, 10.0, 10.0], "executor": "serial"}
    return _component("vina_docking", {**base, **params},
                      {"type": "reverse_sigmoid", "low": -12.0, "high": -6.0, "k": 0.5})


CASES: list[Case] = [
    # --- wrong answers (the probe's "Wrong") ---------------------------------------------------------------
    ("json_out_config is the oracle log", lambda t: set_key(staged(t / "run"), "json_out_config",
                                                            str(t / "run" / "oracle_log.csv")), "[json_out_config]"),
    ("json_out_config is run.json", lambda t: set_key(staged(t / "run"), "json_out_config",
                                                      str(t / "run" / "run.json")), "[json_out_config]"),
    ("json_out_config is the run file", lambda t: set_key(staged(t / "run"), "json_out_config",
                                                          str(t / "run.toml")), "[json_out_config]"),
    ("json_out_config is the prior", _st("json_out_config", str(PRIOR)), "[json_out_config]"),
    ("json_out_config is a directory", _folder_at("json_out_config", "somewhere"), "[json_out_config]"),
    ("weight 1.7e308", _endpoint(weight=1.7e308), "[stage.0.scoring.component.0.QED.endpoint.0.weight]"),
    ("sigmoid k = 0", _endpoint(transform={"type": "sigmoid", "low": 0.2, "high": 0.8, "k": 0.0}), "transform: k:"),
    ("sigmoid k < 0", _endpoint(transform={"type": "sigmoid", "low": 0.2, "high": 0.8, "k": -0.5}), "transform: k:"),
    ("window overflows", _endpoint(transform={"type": "sigmoid", "low": -1.7e308, "high": 1.7e308}), "high - low"),
    ("double_sigmoid coef_div < 0", _endpoint(transform={"type": "double_sigmoid", "low": 0.2, "high": 0.8,
                                                         "coef_div": -100.0}), "transform: coef_div:"),
    ("objective constant", _endpoint(transform={"type": "sigmoid", "low": 50.0, "high": 60.0}),
     "same total score"),
    ("endpoint NLL", _endpoint(name="NLL"), "endpoint name 'NLL'"),
    ("endpoint valid", _endpoint(name="valid"), "endpoint name 'valid'"),
    ("endpoint id", _endpoint(name="id"), "endpoint name 'id'"),
    ("endpoint row", _endpoint(name="row"), "endpoint name 'row'"),
    ("endpoint input_SMILES", _endpoint(name="input_SMILES"), "endpoint name 'input_SMILES'"),
    ("endpoint Prior", _endpoint(name="Prior"), "endpoint name 'Prior'"),
    ("endpoint score (other case)", _endpoint(name="SCORE"), "endpoint name 'SCORE'"),
    ("endpoint trailing space", _endpoint(name="score "), "endpoint name 'score '"),
    ("endpoint _raw", _endpoint(name="QED_raw"), "endpoint name 'QED_raw'"),
    ("chkpt_file is the prior", lambda t: set_key(set_key(staged(t / "run"), "parameters.agent_file", _agent_copy(t)),
                                                  "stage.0.chkpt_file", str(PRIOR)), "[stage.0.chkpt_file]"),
    ("chkpt_file is the agent", _st("stage.0.chkpt_file", str(PRIOR)), "[stage.0.chkpt_file]"),
    ("TL output is its input", _mode(transfer, "parameters.output_model_file", str(PRIOR)),
     "[parameters.output_model_file]"),
    ("TL output is its SMILES", lambda t: set_key(transfer(t), "parameters.output_model_file", str(t / "train.smi")),
     "[parameters.output_model_file]"),
    ("scoring output is its input", lambda t: set_key(scoring(t), "parameters.output_csv", str(t / "in.smi")),
     "[parameters.output_csv]"),
    ("sampling output is its model", _mode(sampling, "parameters.output_file", str(PRIOR)),
     "[parameters.output_file]"),
    ("tb_logdir is a file", _text_file_at("tb_logdir", "tb.txt"), "[tb_logdir]"),
    ("SDF of 20,000 atoms", _file(_big_sdf, name="big.sdf"), "[parameters.smiles_file]"),
    ("pose_sdf is a directory", lambda t: (t / "poses").mkdir() or _docking(pose_sdf=str(t / "poses"))(t), "params: pose_sdf:"),
    # --- unclear errors (the probe's "Unclear") ------------------------------------------------------------
    ("temperature 1e-300", _st("parameters.temperature", 1e-300), "[parameters.temperature]"),
    ("temperature inf", _st("parameters.temperature", float("inf")), "[parameters.temperature]"),
    ("sampling temperature 1e-300", _mode(sampling, "parameters.temperature", 1e-300), "[parameters.temperature]"),
    ("sampling temperature inf", _mode(sampling, "parameters.temperature", float("inf")), "[parameters.temperature]"),
    ("seed -1", _st("seed", -1), "[seed]"),
    ("seed 2**63-1", _st("seed", 2**63 - 1), "[seed]"),
    ("TL seed -1", _mode(transfer, "seed", -1), "[seed]"),
    ("sampling seed 2**63-1", _mode(sampling, "seed", 2**63 - 1), "[seed]"),
    ("TL lr inf", _mode(transfer, "scheduler", {"lr": float("inf")}), "[scheduler.lr]"),
    ("max_steps = true", _st("stage.0.max_steps", True), "[stage.0.max_steps]"),
    ("batch_size = true", _st("parameters.batch_size", True), "[parameters.batch_size]"),
    ("purge_memories = 'yes'", _st("parameters.purge_memories", "yes"), "[parameters.purge_memories]"),
    ("trusted = 'yes'", _component("qsar", {"model_file": "brenk_alert_logreg", "trusted": "yes"}), "params: trusted:"),
    ("positive_class not a class", _component("qsar", {"model_file": "brenk_alert_logreg", "positive_class": 7}),
     "positive_class 7 is not one of the model's classes [0, 1]"),
    ("rate = 1e3", _st("learning_strategy.rate", 1e3), "[learning_strategy] rate"),
    ("summary_csv_prefix ends in /", lambda t: set_key(staged(t / "run"), "parameters.summary_csv_prefix",
                                                       str(t / "run") + "/"), "[parameters.summary_csv_prefix]"),
    ("summary_csv_prefix under a file", lambda t: (t / "afile").write_text("x") and set_key(
        staged(t / "run"), "parameters.summary_csv_prefix", str(t / "afile" / "run" / "summary")),
     "[parameters.summary_csv_prefix]"),
    ("binary SMILES file", _file(lambda p: p.write_bytes(bytes(range(256)) * 4)), "[parameters.smiles_file]"),
    ("plain file named .gz", _file(lambda p: p.write_text("CCO\n"), name="in.smi.gz"), "[parameters.smiles_file]"),
    ("TL binary SMILES file", _file(lambda p: p.write_bytes(b"\x00\x01\x02" * 100), base=transfer),
     "[parameters.smiles_file]"),
    ("TL plain file named .gz", _file(lambda p: p.write_text("CCO\n"), base=transfer, name="t.smi.gz"),
     "[parameters.smiles_file]"),
    ("200,000-character CSV field", _file(lambda p: p.write_text("SMILES\n" + "C" * 200_000 + "\n"), name="in.csv"),
     "[parameters.smiles_file]"),
    ("CSV without the SMILES column", _file(lambda p: p.write_text("smi\nCCO\n"), name="in.csv"),
     "[parameters.smiles_column]"),
    ("docking size inf", _docking(size=[float("inf"), 10.0, 10.0]), "params: size:"),
    ("docking cache_path a text file", lambda t: (t / "cache.db").write_text("hello\n") and _docking(
        cache_path=str(t / "cache.db"))(t), "params: cache_path:"),
    ("docking timeout inf", _docking(timeout_s=float("inf")), "params: timeout_s:"),
]


@pytest.mark.parametrize("name,build,expected", CASES, ids=[c[0] for c in CASES])
def test_a_broken_run_file_is_refused_in_one_line_naming_the_key_before_anything_is_written(
        tmp_path: Path, cli, name: str, build, expected: str) -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    cfg = build(tmp_path)
    toml = tmp_path / "run.toml"
    toml.write_text(to_toml(cfg))
    before = folder_state(tmp_path)
    for command in ("validate", "run"):  # validate says what run would refuse
        code, out = cli(command, toml)
        assert code == 2, out
        assert expected in out, out
        assert "Traceback" not in out and "(run again with -v" not in out
        assert folder_state(tmp_path) == before  # nothing written: no log, no record, no JSON copy, no output


@pytest.mark.parametrize("build,key", [
    (lambda t: set_key(transfer(t), "parameters.output_model_file", str(t / "train.smi")),
     "[parameters.output_model_file]"),
    (lambda t: set_key(scoring(t), "parameters.output_csv", str(t / "in.smi")), "[parameters.output_csv]"),
    (lambda t: set_key(sampling(t), "parameters.output_file", str(PRIOR)), "[parameters.output_file]"),
], ids=["TL output = its SMILES", "scoring output = its input", "sampling output = its model"])
def test_overwrite_never_deletes_an_input(tmp_path: Path, cli, build, key: str) -> None:
    """``--overwrite`` deletes a run's earlier output first: an output path that is an input is refused before."""
    toml = tmp_path / "run.toml"
    toml.write_text(to_toml(build(tmp_path)))
    before = folder_state(tmp_path) | {"prior": folder_state(PRIOR.parent)["moses-gru-2x256.prior"]}
    code, out = cli("run", toml, "--overwrite")
    assert code == 2 and key in out, out
    assert folder_state(tmp_path) | {"prior": folder_state(PRIOR.parent)["moses-gru-2x256.prior"]} == before


def test_gzip_content_in_a_plain_name_is_read_as_gzip(tmp_path: Path, cli) -> None:
    """Gzipped SMILES under a plain name: read by their bytes, not refused (and scored as the same molecules)."""
    cfg = scoring(tmp_path)
    path = Path(cfg["parameters"]["smiles_file"])
    data = path.read_bytes()
    path.write_bytes(gzip.compress(data))
    toml = tmp_path / "run.toml"
    toml.write_text(to_toml(cfg))
    code, out = cli("run", toml)
    assert code == 0, out
    rows = (tmp_path / "out" / "scores.csv").read_text().splitlines()
    assert len(rows) == 1 + len(data.decode().split())
