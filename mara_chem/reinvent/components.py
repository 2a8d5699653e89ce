"""mara-chem scoring components as REINVENT 4 scoring plugins, from one generic adapter.

REINVENT (``reinvent/scoring/importer.py``) imports every ``reinvent_plugins.components.comp_*`` module,
takes the classes tagged ``__component`` and the one dataclass tagged ``__parameters`` per module, and keys
components by lower-cased class name. Endpoint parameters arrive as lists, one value per endpoint (None
where an endpoint leaves a key out). A plugin module is then two lines::

    from mara_chem.reinvent.components import reinvent_plugin
    Parameters, MaraQsar = reinvent_plugin("qsar", "MaraQsar")

Each endpoint gets its own mara-chem component, validated by that component's pydantic model (unknown or
bad keys are errors naming the key). Failures are NaN (REINVENT's convention, never 0); worker pools and
caches are closed at interpreter exit, since REINVENT never calls ``close()``. Class names carry the
``Mara`` prefix so they cannot collide with REINVENT's own (``SAScore``, ``TanimotoSimilarity``...).
"""

from __future__ import annotations

import atexit
import dataclasses
import sys
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

import mara_chem.scoring.components  # noqa: F401  (registers the built-in components)
from mara_chem.rl.config import _describe as describe_errors
from mara_chem.scoring.component import COMPONENTS, ScoringComponent
from mara_chem.text import first_line

PLUGIN_PREFIX = "Mara"


def plugin_class_name(component: str) -> str:
    """``vina_docking`` -> ``MaraVinaDocking``; REINVENT then matches ``MaraVinaDocking``/``mara_vina_docking``."""
    name = COMPONENTS.get(component).name
    return PLUGIN_PREFIX + "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_"))


def reinvent_plugin(component: str, class_name: str | None = None) -> tuple[type, type]:
    """(parameter dataclass, component class) for REINVENT, adapting mara-chem component ``component``.
    An unknown component raises ImportError, which REINVENT's importer logs and skips (anything else would
    stop every REINVENT run)."""
    if component not in COMPONENTS:
        raise ImportError(f"mara-chem has no scoring component {component!r} (installed: {COMPONENTS.names()})")
    mara_cls: type[ScoringComponent] = COMPONENTS.get(component)
    class_name = class_name or plugin_class_name(component)
    if not class_name.startswith(PLUGIN_PREFIX):
        raise ValueError(f"REINVENT plugin class names start with {PLUGIN_PREFIX!r} (got {class_name!r})")
    fields = [(key, list, dataclasses.field(default=None)) for key in mara_cls.Params.model_fields]
    module = sys._getframe(1).f_globals.get("__name__", __name__)  # the plugin module that asked
    params_cls = dataclasses.make_dataclass(f"{class_name}Parameters", fields, namespace={"__module__": module})
    setattr(params_cls, "__parameters", "True")  # REINVENT's add_tag("__parameters")

    def __init__(self, params: Any) -> None:
        values = dataclasses.asdict(params) if params is not None else {}
        n_endpoints = max((len(v) for v in values.values() if v is not None), default=1)
        self.components = []
        for i in range(n_endpoints):
            endpoint = {k: v[i] for k, v in values.items() if v is not None and v[i] is not None}
            self.components.append(mara_cls(mara_cls.Params(**endpoint)))
        for instance in self.components:
            atexit.register(instance.close)

    def __call__(self, smilies: list[str]):
        from reinvent_plugins.components.component_results import ComponentResults

        return ComponentResults([np.asarray(instance(list(smilies)).values, dtype=float) for instance in self.components])

    component_cls = type(class_name, (), {
        "__init__": __init__, "__call__": __call__, "__module__": module,
        "__doc__": f"mara-chem's {mara_cls.name!r} component as a REINVENT scoring plugin (raw values; NaN on failure).",
    })
    setattr(component_cls, "__component", "True")  # REINVENT's add_tag("__component"): a scoring component
    return params_cls, component_cls


def _lookup_key(name: str) -> str:
    """REINVENT's key of a component name (``reinvent/scoring/config.py``: lower case, ``-`` and ``_`` dropped)."""
    return name.lower().replace("-", "").replace("_", "")


def plugin_components() -> dict[str, str]:
    """REINVENT's lookup key of every mara-chem plugin class -> the mara-chem component it adapts."""
    return {_lookup_key(plugin_class_name(name)): name for name in COMPONENTS.names()}


def check_plugin_components(scoring: dict[str, Any]) -> list[str]:
    """Build each mara-chem plugin component of a REINVENT ``[stage.scoring]`` table (inline, or its
    ``filename``) now, as REINVENT would once its models are loaded, and close it again: a missing package
    (guacamol, vina) or a bad parameter is one line naming the component, before any model loads."""
    components = scoring.get("component")
    if components is None and scoring.get("filename"):
        from reinvent.utils import config_parse

        path = Path(scoring["filename"])
        if not path.is_file():
            return []  # REINVENT names a missing scoring file itself
        fmt = path.suffix[1:] if path.suffix[1:] in config_parse.INPUT_FORMAT_CHOICES else scoring.get("filetype", "toml")
        components = config_parse.read_config(path, fmt).get("component")
    problems = []
    ours = plugin_components()
    for component in components or []:
        if not isinstance(component, dict) or len(component) != 1:
            continue
        (class_name, table), = component.items()
        name = ours.get(_lookup_key(class_name))
        if name is None or not isinstance(table, dict):
            continue
        shared = table.get("params") or {}
        mara_cls = COMPONENTS.get(name)
        for number, endpoint in enumerate(table.get("endpoint") or [], start=1):
            try:
                instance = mara_cls(mara_cls.Params(**{**shared, **(endpoint.get("params") or {})}))
            except ValidationError as exc:  # a key misspelt or out of range: each named
                problems.append(f"{class_name} endpoint {number}: params {describe_errors(exc).replace(chr(10), '; ')}")
                continue
            except Exception as exc:  # noqa: BLE001  (a package missing, a file refused)
                problems.append(f"{class_name} endpoint {number}: {first_line(str(exc), type(exc).__name__)}")
                continue
            instance.close()
    return problems
