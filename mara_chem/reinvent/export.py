"""`mara-chem export-reinvent`: the REINVENT-valid subset of a mara-chem run file, and what was dropped.

The key sets below are REINVENT 4.8's (``reinvent/validation.py`` ``ReinventConfig``;
``reinvent/runmodes/RL/validation.py`` lines 10-81), hard-coded so that exporting needs no REINVENT. The
file is first validated by mara-chem (scoring includes resolved), so what is written is what mara-chem runs:
components REINVENT has under the same name with the same meaning keep their name; mara-chem components
REINVENT lacks, or has with another meaning (``TanimotoSimilarity`` on hashed Morgan bits with several
references), become mara-chem's REINVENT plugins (``MaraVinaDocking``, ``MaraQsar``, ...), which ship in
mara-chem's wheel. ``--keep-strategy`` keeps a mara-chem ``[learning_strategy]`` for ``mara-chem reinvent``.
"""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path
from typing import Any

from mara_chem.reinvent.components import plugin_class_name
from mara_chem.rl.config import load_run_config
from mara_chem.scoring.component import COMPONENTS

TOP_LEVEL = ("run_type", "device", "tb_logdir", "json_out_config", "seed")
PARAMETERS = ("prior_file", "agent_file", "summary_csv_prefix", "use_checkpoint", "purge_memories", "smiles_file",
              "sample_strategy", "distance_threshold", "batch_size", "randomize_smiles", "isomeric_smiles",
              "temperature", "tb_isim")
STRATEGY = ("type", "sigma", "rate")
REINVENT_STRATEGY_TYPES = ("dap", "sdap", "mascof", "mauli", "dap_reinforce", "mascof_reinforce", "mauli_reinforce")
DIVERSITY_FILTER = ("type", "bucket_size", "minscore", "minsimilarity", "penalty_multiplier")
INCEPTION = ("smiles_file", "memory_size", "sample_size", "deduplicate")
STAGE = ("max_steps", "max_score", "chkpt_file", "termination", "min_steps", "scoring", "diversity_filter")
ENDPOINT = ("name", "weight", "params", "transform")
#: mara-chem components REINVENT 4.8 has under the same (normalised) name, with the params it accepts
NATIVE_COMPONENTS: dict[str, tuple[str, ...]] = {
    **{name: () for name in ("qed", "sascore", "molecularweight", "tpsa", "slogp", "hbonddonors", "hbondacceptors",
                             "numrotbond", "numrings", "numaromaticrings", "numaliphaticrings", "numheavyatoms",
                             "numheteroatoms", "csp3", "numatomstereocenters")},
    "groupcount": ("smarts",), "matchingsubstructure": ("smarts", "use_chirality"), "customalerts": ("smarts",),
}


def _normalised(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


def _keep(table: dict[str, Any], allowed: tuple[str, ...], where: str, dropped: list[str]) -> dict[str, Any]:
    kept = {}
    for key, value in table.items():
        if key in allowed:
            kept[key] = value
        else:
            dropped.append(f"dropped {where}.{key} = {value!r}")
    return kept


def _component(name: str, spec: dict[str, Any], where: str, dropped: list[str]) -> tuple[str, dict[str, Any]] | None:
    """(REINVENT component name, its table) or None when REINVENT cannot run it at all."""
    canonical = COMPONENTS.get(name).name
    native = NATIVE_COMPONENTS.get(_normalised(canonical))
    if native is None:
        plugin = plugin_class_name(canonical)
        module = f"reinvent_plugins.components.comp_mara_{_snake(canonical)}"
        if importlib.util.find_spec(module) is None:
            dropped.append(f"dropped {where} (neither REINVENT nor a mara-chem plugin provides {name!r})")
            return None
        dropped.append(f"changed {where}: mara-chem's plugin {plugin} (REINVENT has no {name!r} with this meaning)")
        return plugin, {"endpoint": [_keep(ep, ENDPOINT, f"{where}.endpoint[{i}]", dropped)
                                     for i, ep in enumerate(spec["endpoint"])]}
    endpoints = []
    for i, ep in enumerate(spec["endpoint"]):
        ep = _keep(ep, ENDPOINT, f"{where}.endpoint[{i}]", dropped)
        if "params" in ep:
            ep["params"] = _keep(ep["params"], native, f"{where}.endpoint[{i}].params", dropped)
            if not ep["params"]:
                del ep["params"]
        endpoints.append(ep)
    return canonical, {"endpoint": endpoints}


def _snake(name: str) -> str:
    out = "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")
    return out.replace("__", "_")


def _scoring(spec: dict[str, Any], where: str, dropped: list[str]) -> dict[str, Any]:
    components = []
    for i, entry in enumerate(spec["component"]):
        (name, table), = entry.items()
        converted = _component(name, table, f"{where}.component[{i}].{name}", dropped)
        if converted is not None:
            components.append({converted[0]: converted[1]})
    return {"type": spec["type"], "component": components}


def resolve_prior_path(path: str) -> Path:
    from mara_chem.models.prior_file import resolve_prior_path as resolve

    try:
        return resolve(path)
    except Exception:  # not found here: written as given, REINVENT reports it
        return Path(path)


def _is_reinvent_model(path: str) -> bool:
    from mara_chem.models.reinvent_prior import is_reinvent_payload, load_model_file

    try:
        return is_reinvent_payload(load_model_file(path))
    except Exception:  # unreadable here: REINVENT will say so itself
        return True


def export_run_file(source: str | Path, out: str | Path, keep_strategy: bool = False) -> list[str]:
    """Write the REINVENT run file for ``source``; returns one line per dropped, changed or added key."""
    source = Path(source)
    config = load_run_config(source)  # a mara-chem error is reported before anything is written
    raw = tomllib.loads(source.read_text())
    data = config.model_dump(mode="json", exclude_unset=True)
    dropped: list[str] = []
    result = _keep({k: v for k, v in data.items() if not isinstance(v, (dict, list))}, TOP_LEVEL, "", dropped)
    if result.get("device") == "auto":
        del result["device"]
        dropped.append("dropped device = 'auto' (REINVENT takes cpu or cuda[:N]; its default cpu applies)")
    result["parameters"] = _keep(data["parameters"], PARAMETERS, "parameters", dropped)
    for key in ("prior_file", "agent_file"):
        given = result["parameters"][key]
        resolved = str(resolve_prior_path(given))
        if resolved != given:  # a bundled prior by name: REINVENT needs the path
            result["parameters"][key] = resolved
            dropped.append(f"changed parameters.{key} {given!r} -> {resolved!r} (REINVENT takes a path)")
        if not _is_reinvent_model(resolved):
            dropped.append(f"note parameters.{key} {result['parameters'][key]!r} is a mara-chem prior: REINVENT reads "
                           "it after `mara-chem prior convert PRIOR --to reinvent --out NEW`")
    strategy = dict(raw.get("learning_strategy", {"type": "dap"}))
    if not keep_strategy:
        if strategy.get("type", "dap") not in REINVENT_STRATEGY_TYPES:
            dropped.append(f"changed learning_strategy.type {strategy['type']!r} -> 'dap' (a mara-chem type: "
                           "--keep-strategy keeps it for `mara-chem reinvent`)")
            strategy["type"] = "dap"
        strategy = _keep(strategy, STRATEGY, "learning_strategy", dropped)
        if "sigma" in strategy and float(strategy["sigma"]) != int(strategy["sigma"]):
            dropped.append(f"changed learning_strategy.sigma {strategy['sigma']!r} -> {round(strategy['sigma'])} "
                           "(REINVENT's sigma is an integer)")
        if "sigma" in strategy:
            strategy["sigma"] = int(round(strategy["sigma"]))
    result["learning_strategy"] = strategy
    for section, allowed in (("diversity_filter", DIVERSITY_FILTER), ("inception", INCEPTION)):
        if data.get(section):
            result[section] = _keep(data[section], allowed, section, dropped)
    if data.get("genetic"):
        dropped.append("dropped [genetic] (genetic exploration is mara-chem's own loop; REINVENT runs without it)")
    stages = []
    for n, stage in enumerate(data["stage"], start=1):
        where = f"stage[{n}]"
        kept = _keep({k: v for k, v in stage.items() if k != "scoring"}, STAGE, where, dropped)
        if kept.get("diversity_filter"):
            kept["diversity_filter"] = _keep(kept["diversity_filter"], DIVERSITY_FILTER, f"{where}.diversity_filter", dropped)
        if not kept.get("chkpt_file"):  # REINVENT's stage hand-over needs it
            kept["chkpt_file"] = str(config.run_dir / f"stage{n}.chkpt")
            dropped.append(f"added {where}.chkpt_file = {kept['chkpt_file']!r} (REINVENT's stage end needs it)")
        kept["scoring"] = _scoring(stage["scoring"], f"{where}.scoring", dropped)
        stages.append(kept)
    result["stage"] = stages
    Path(out).write_text(to_toml(result))
    return dropped


def to_toml(data: dict[str, Any]) -> str:
    """TOML for the run-file shapes above (tables, arrays of tables, scalars and scalar lists)."""
    lines: list[str] = []
    _emit(data, [], lines)
    return "\n".join(lines).strip() + "\n"


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} to TOML")


def _is_table_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _emit(table: dict[str, Any], path: list[str], lines: list[str]) -> None:
    for key, value in table.items():
        if value is not None and not isinstance(value, dict) and not _is_table_list(value):
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in table.items():
        if isinstance(value, dict):
            lines.extend(["", f"[{'.'.join(_key(p) for p in [*path, key])}]"])
            _emit(value, [*path, key], lines)
        elif _is_table_list(value):
            for item in value:
                lines.extend(["", f"[[{'.'.join(_key(p) for p in [*path, key])}]]"])
                _emit(item, [*path, key], lines)


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else _value(key)
