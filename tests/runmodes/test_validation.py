"""`mara-chem validate` refuses every run file that `run` would die on or silently get wrong.

One parametrised test: each case breaks one thing in an otherwise valid run file (or one file it opens)
and names the key or file the one-line message must contain. No case may print a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from mara_chem.cli import main
from tests.paths import REPO

PRIOR = REPO / "priors" / "moses-gru-2x256.prior"
DRD2_CENTER = "[9.93, 5.85, -9.58]"

BASE = """
run_type = "staged_learning"
device = "cpu"
[parameters]
prior_file = "{prior}"
agent_file = "{prior}"
summary_csv_prefix = "{run}/summary"
batch_size = 8
temperature = 1.0
[learning_strategy]
type = "dap"
sigma = 128
rate = 1e-4
[[stage]]
max_steps = 2
[stage.scoring]
type = "geometric_mean"
[[stage.scoring.component]]
[stage.scoring.component.QED]
[[stage.scoring.component.QED.endpoint]]
name = "qed"
weight = 1.0
"""


def _endpoint(component: str, body: str) -> str:
    return (f"[[stage.scoring.component]]\n[stage.scoring.component.{component}]\n"
            f"[[stage.scoring.component.{component}.endpoint]]\n{body}\n")


def _with(old: str, new: str) -> Callable[[str, Path], str]:
    def edit(text: str, tmp: Path) -> str:
        assert old in text, old
        return text.replace(old, new, 1)
    return edit


def _append(extra: str) -> Callable[[str, Path], str]:
    return lambda text, tmp: text + extra


def _file(name: str, content: bytes | None, then: Callable[[str, Path], str]) -> Callable[[str, Path], str]:
    """Write a side file into the temp folder (a folder when content is None), then edit the run file."""
    def edit(text: str, tmp: Path) -> str:
        path = tmp / name
        if content is None:
            path.mkdir()
        else:
            path.write_bytes(content)
        return then(text, tmp)
    return edit


def _truncated_prior(name: str) -> Callable[[str, Path], str]:
    def edit(text: str, tmp: Path) -> str:
        data = PRIOR.read_bytes()
        (tmp / name).write_bytes(data[: len(data) // 2])
        return text
    return edit


def _corrupt_checkpoint(text: str, tmp: Path) -> str:
    (tmp / "run").mkdir()
    (tmp / "run" / "checkpoint.pt").write_bytes(PRIOR.read_bytes()[:5000])
    return text


def _flip_byte_in_checkpoint(text: str, tmp: Path) -> str:
    """A checkpoint of full length whose data was damaged in the middle (the zip directory is intact)."""
    (tmp / "run").mkdir()
    data = bytearray(PRIOR.read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp / "run" / "checkpoint.pt").write_bytes(bytes(data))
    return text


def _dock(receptor: str) -> Callable[[str, Path], str]:
    params = f'params = {{{{ receptor = "{receptor}", center = [0, 0, 0], size = [20, 20, 20] }}}}'
    transform = 'transform = { type = "reverse_sigmoid", low = -12, high = 0, k = 0.2 }'
    return _append(_endpoint("vina_docking", f'name = "dock"\n{params}\n{transform}'))


def _qsar(model: str) -> Callable[[str, Path], str]:
    return _append(_endpoint("qsar", f'name = "act"\nparams = {{{{ model_file = "{model}" }}}}'))


def _transform(component: str, transform: str) -> Callable[[str, Path], str]:
    return _append(_endpoint(component, f'name = "x"\ntransform = {{ {transform} }}'))


def _parameter(line: str) -> Callable[[str, Path], str]:
    return _with("batch_size = 8", f"batch_size = 8\n{line}")


def _prior(key: str, path: str) -> Callable[[str, Path], str]:
    return _with(f'{key} = "{{prior}}"', f'{key} = "{path}"')


def _scoring_file(name: str) -> Callable[[str, Path], str]:
    return _with('type = "geometric_mean"', f'type = "geometric_mean"\nfilename = "{{tmp}}/{name}"')


def _both(first: Callable[[str, Path], str], then: Callable[[str, Path], str]) -> Callable[[str, Path], str]:
    return lambda text, tmp: then(first(text, tmp), tmp)


CASES = [
    ("sigmoid low == high", _transform("TPSA", 'type = "sigmoid", low = 60, high = 60'), "low < high"),
    ("sigmoid low > high", _transform("TPSA", 'type = "sigmoid", low = 90, high = 60'), "low < high"),
    ("double_sigmoid low > high", _transform("MolecularWeight", 'type = "double_sigmoid", low = 500, high = 200'),
     "low <= high"),
    ("step low > high", _transform("NumRings", 'type = "step", low = 4, high = 1'), "low <= high"),
    ("transform low nan", _transform("TPSA", 'type = "sigmoid", low = nan, high = 60'), "finite"),
    ("weight inf", _with("weight = 1.0", "weight = inf"), "weight"),
    ("all weights zero", _with("weight = 1.0", "weight = 0.0"), "weight 0"),
    ("endpoint name with newline", _with('name = "qed"', 'name = "qed\\nscore"'), "control character"),
    ("endpoint name shadows a log column", _with('name = "qed"', 'name = "score"'), "clashes"),
    ("raw molecular weight without transform", _append(_endpoint("MolecularWeight", 'name = "mw"')),
     "Add a transform"),
    ("raw SA score without transform", _append(_endpoint("SAScore", 'name = "sa"')), "Add a transform"),
    ("rate inf", _with("rate = 1e-4", "rate = inf"), "rate"),
    ("temperature inf", _with("temperature = 1.0", "temperature = inf"), "temperature"),
    ("batch size 10^7", _with("batch_size = 8", "batch_size = 10000000"), "batch_size"),
    ("missing prior", _prior("prior_file", "{tmp}/nope.prior"), "parameters.prior_file"),
    ("prior is a folder", _file("dir.prior", None, _prior("prior_file", "{tmp}/dir.prior")), "is not a file"),
    ("truncated agent", _both(_truncated_prior("half.prior"), _prior("agent_file", "{tmp}/half.prior")),
     "parameters.agent_file"),
    ("prior is text", _file("text.prior", b"not a model\n", _prior("prior_file", "{tmp}/text.prior")),
     "text.prior"),
    ("truncated checkpoint", _corrupt_checkpoint, "checkpoint.pt"),
    ("damaged checkpoint", _flip_byte_in_checkpoint, "checkpoint.pt' is corrupt"),
    ("missing receptor", _dock("{tmp}/none.pdbqt"), "none.pdbqt"),
    ("empty receptor", _file("empty.pdbqt", b"REMARK no atoms\n", _dock("{tmp}/empty.pdbqt")), "empty.pdbqt"),
    ("missing qsar model", _qsar("{tmp}/none.joblib"), "none.joblib"),
    ("qsar model not a joblib", _file("model.joblib", b"#!/bin/sh\necho hi\n", _qsar("{tmp}/model.joblib")),
     "not a scikit-learn joblib"),
    ("unavailable CUDA device", _with('device = "cpu"', 'device = "cuda:99"'), "device"),
    ("scoring filename is a folder", _file("scoring_dir", None, _scoring_file("scoring_dir")), "is not a file"),
    ("scoring filename is binary", _file("scoring.toml", bytes(range(256)), _scoring_file("scoring.toml")),
     "not a text file"),
    ("scoring parallel", _with('type = "geometric_mean"', 'type = "geometric_mean"\nparallel = 4'), "parallel"),
    ("use_checkpoint = true", _parameter("use_checkpoint = true"), "use_checkpoint"),
    ("tb_isim = true", _parameter("tb_isim = true"), "not supported by mara-chem"),
    ("parameters smiles_file", _parameter('smiles_file = "x.smi"'), "smiles_file"),
    ("inception smiles_file", _append('[inception]\nsmiles_file = "seeds.smi"\n'), "not supported by mara-chem"),
    ("REINVENT responder section", _append('[responder]\nendpoint = "http://x"\n'), "[responder]"),
    ("IPS memory frequency without inception", _with('type = "dap"', 'type = "ips_dap"\nfrequency = "memory"'),
     'frequency = "memory" read(s) the replay memory'),
    ("MARA memory anchor without inception",
     _with('type = "dap"', 'type = "mara"\ntau = 0.6\nanchor_pool = "batch+memory"'),
     'anchor_pool = "batch+memory" read(s) the replay memory'),
    ("IPS memory frequency with an empty memory",
     _both(_with('type = "dap"', 'type = "ips_dap"\nfrequency = "memory"'), _append("[inception]\nmemory_size = 0\n")),
     "memory_size > 0"),
    ("300-character run folder", _with('summary_csv_prefix = "{run}/summary"', 'summary_csv_prefix = "{tmp}/' + "d" * 300 + '/summary"'),
     "at most 255"),
    ("likelihood_penalty 1e308", _with("rate = 1e-4", "rate = 1e-4\nlikelihood_penalty = 1e308"), "likelihood_penalty"),
]


def _write(tmp: Path, edit: Callable[[str, Path], str]) -> Path:
    text = edit(BASE, tmp).replace("{prior}", str(PRIOR)).replace("{run}", str(tmp / "run"))
    text = text.replace("{tmp}", str(tmp)).replace("{{", "{").replace("}}", "}")
    path = tmp / "run.toml"
    path.write_text(text)
    return path


def test_base_file_is_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(_write(tmp_path, lambda t, tmp: t))]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("edit,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_validate_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str], edit, expected: str) -> None:
    if torch.cuda.device_count() > 99:
        pytest.skip("a machine with 100 CUDA devices")
    path = _write(tmp_path, edit)
    code = main(["validate", str(path)])
    err = capsys.readouterr().err
    assert code != 0, f"accepted: {path.read_text()}"
    assert expected in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("content,expected", [(None, "is not a file"), (b"\x00\xff\xfe" * 50, "not a text file")])
def test_run_file_folder_or_binary(tmp_path: Path, capsys: pytest.CaptureFixture[str], content, expected) -> None:
    path = tmp_path / "run.toml"
    path.mkdir() if content is None else path.write_bytes(content)
    assert main(["validate", str(path)]) == 2
    assert expected in capsys.readouterr().err


def test_run_refuses_before_any_call_and_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`run` checks the same things before creating anything; the error is one short message, no traceback."""
    path = _write(tmp_path, _with('prior_file = "{prior}"', 'prior_file = "{tmp}/nope.prior"'))
    assert main(["run", str(path), "-q"]) == 2
    err = capsys.readouterr().err
    assert "nope.prior" in err and "Traceback" not in err and len(err.strip().splitlines()) <= 3
    assert not (tmp_path / "run" / "oracle_log.csv").exists()


def test_cli_version_help_defaults_and_flags_after_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.startswith("mara-chem ")
    with pytest.raises(SystemExit):
        main(["prior", "train", "--help"])
    help_text = capsys.readouterr().out
    assert "default: 512" in help_text and "default: 0.001" in help_text  # --hidden, --lr
    assert main(["validate", str(REPO / "configs" / "demo.toml"), "-v"]) == 0
    assert main(["validate", str(REPO / "configs" / "demo.toml"), "-q"]) == 0


def test_unexpected_error_is_one_line_unless_verbose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no_run_here"
    assert main(["metrics", str(missing)]) != 0
    err = capsys.readouterr().err
    assert "no_run_here" in err and "Traceback" not in err


def test_a_tilde_in_summary_csv_prefix_is_the_home_folder(tmp_path: Path, monkeypatch) -> None:
    from mara_chem.rl.config import load_run_config

    monkeypatch.setenv("HOME", str(tmp_path))
    text = _write(tmp_path, _with('summary_csv_prefix = "{run}/summary"', 'summary_csv_prefix = "~/runs/summary"'))
    assert load_run_config(text).run_dir == tmp_path / "runs"
