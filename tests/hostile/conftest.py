"""Shared parts of the hostile suite: base run files of the four run types, a TOML writer that
spells what a hostile file holds (inf, nan, huge integers), and the CLI called in-process."""

from __future__ import annotations

import copy
import hashlib
import math
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.paths import REPO

# a copy: a case that (before its fix) wrote over the prior must not destroy the repository's bundled file
PRIOR = Path(tempfile.mkdtemp(prefix="hostile-prior-")) / "moses-gru-2x256.prior"
shutil.copyfile(REPO / "priors" / "moses-gru-2x256.prior", PRIOR)
QED = {"type": "geometric_mean", "component": [{"QED": {"endpoint": [{"name": "QED", "weight": 1}]}}]}
SMILES = ["CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "CCN(CC)CC", "OC(=O)c1ccccc1O", "c1ccncc1", "CCOC(=O)C",
          "CC(C)Cc1ccc(cc1)C(C)C(=O)O"]


def staged(run_dir: Path, steps: int = 3, budget: int | None = 24, batch: int = 8) -> dict[str, Any]:
    return {
        "run_type": "staged_learning", "device": "cpu", "seed": 5,
        "parameters": {"prior_file": str(PRIOR), "agent_file": str(PRIOR),
                       "summary_csv_prefix": str(run_dir / "summary"), "batch_size": batch},
        "learning_strategy": {"type": "dap", "sigma": 64, "rate": 1e-4},
        "stage": [{"max_steps": steps, "max_oracle_calls": budget, "min_steps": 1000, "scoring": copy.deepcopy(QED)}],
    }


def transfer(tmp: Path) -> dict[str, Any]:
    smi = tmp / "train.smi"
    smi.write_text("\n".join(SMILES) + "\n")
    return {"run_type": "transfer_learning", "device": "cpu",
            "parameters": {"input_model_file": str(PRIOR), "smiles_file": str(smi),
                           "output_model_file": str(tmp / "out" / "tuned.prior"), "num_epochs": 1}}


def sampling(tmp: Path) -> dict[str, Any]:
    return {"run_type": "sampling", "device": "cpu",
            "parameters": {"model_file": str(PRIOR), "num_smiles": 4, "output_file": str(tmp / "out" / "samples.csv")}}


def scoring(tmp: Path) -> dict[str, Any]:
    smi = tmp / "in.smi"
    smi.write_text("\n".join(SMILES) + "\n")
    return {"run_type": "scoring",
            "parameters": {"smiles_file": str(smi), "output_csv": str(tmp / "out" / "scores.csv")},
            "scoring": copy.deepcopy(QED)}


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, int):
        return str(v) if -2**63 <= v < 2**63 else f'"{v}"'  # TOML integers are 64-bit
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f'"{k}" = {_value(x)}' for k, x in v.items()) + "}"
    raise TypeError(type(v))


def to_toml(cfg: dict[str, Any]) -> str:
    """Tables and arrays of tables as TOML sections; inline tables below them (endpoints, transforms)."""
    lines: list[str] = []

    def table(prefix: str, d: dict[str, Any]) -> None:
        nested = {k: v for k, v in d.items() if isinstance(v, dict) and prefix.count(".") < 1
                  or isinstance(v, list) and v and all(isinstance(x, dict) for x in v) and k == "stage"}
        for k, v in d.items():
            if k not in nested and v is not None:
                lines.append(f'"{k}" = {_value(v)}')
        for k, v in nested.items():
            if isinstance(v, dict):
                lines.append(f"[{prefix}{k}]")
                table(f"{prefix}{k}.", v)
            else:
                for item in v:
                    lines.append(f"[[{prefix}{k}]]")
                    table(f"{prefix}{k}.", item)

    table("", cfg)
    return "\n".join(lines) + "\n"


def set_key(cfg: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    """A copy of ``cfg`` with ``a.b.0.c`` set (list indices as numbers); ``...`` deletes the key."""
    out = copy.deepcopy(cfg)
    node: Any = out
    parts = dotted.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    last = parts[-1]
    if value is ...:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


def folder_state(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its SHA-256: what "nothing was written" is compared against."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture()
def cli(capsys):
    """``mara-chem ARGS`` in-process: (exit code, stdout + stderr)."""
    from mara_chem.cli import main

    def run(*args: str) -> tuple[int, str]:
        code = main([str(a) for a in args])
        out = capsys.readouterr()
        return code, out.out + out.err

    return run
