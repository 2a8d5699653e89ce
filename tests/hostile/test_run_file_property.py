"""Property test of the run-file validator: any single key of a good staged-learning file set to a
generated value (out of range, wrong type, a colliding name) is either accepted by `validate`, or refused in
lines naming keys, with exit code 2 and no traceback; and a refused file's `run` pays no oracle call and writes
nothing. Kept small (``max_examples``) so that it runs in the default suite."""

from __future__ import annotations

import os
from pathlib import Path

from tests.hostile.conftest import folder_state, set_key, staged, to_toml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mara_chem.scoring.spec import RESERVED_NAMES

KEYS = [
    "seed", "device", "tb_logdir", "json_out_config",
    "parameters.batch_size", "parameters.temperature", "parameters.hit_threshold", "parameters.checkpoint_every",
    "parameters.summary_csv_prefix", "parameters.purge_memories", "parameters.randomize_smiles",
    "parameters.unique_sequences", "parameters.prior_file",
    "learning_strategy.rate", "learning_strategy.sigma", "learning_strategy.type",
    "stage.0.max_steps", "stage.0.max_score", "stage.0.min_steps", "stage.0.max_oracle_calls", "stage.0.chkpt_file",
    "stage.0.scoring.type",
    "stage.0.scoring.component.0.QED.endpoint.0.name", "stage.0.scoring.component.0.QED.endpoint.0.weight",
    "stage.0.scoring.component.0.QED.endpoint.0.required",
    "stage.0.scoring.component.0.QED.endpoint.0.transform",
]

VALUES = st.one_of(
    st.booleans(),
    st.integers(min_value=-2**63, max_value=2**63 - 1),
    st.sampled_from([0, -1, 1, 2**31, 2**32, 2**63 - 1, 10**7]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-300, 1.7e308, -1.7e308, float("inf"), float("nan"), 1e3]),
    st.text(max_size=12),
    st.sampled_from(sorted(RESERVED_NAMES) + ["score ", " QED", "QED_raw", "x\ny", "", "yes", "true", "/", "."]),
    st.lists(st.floats(allow_nan=True), max_size=3),
    st.fixed_dictionaries({"type": st.sampled_from(["sigmoid", "reverse_sigmoid", "double_sigmoid", "step"]),
                           "low": st.floats(), "high": st.floats(), "k": st.floats()}),
)


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(key=st.sampled_from(KEYS), value=VALUES)
def test_any_generated_value_is_accepted_or_refused_cleanly_before_any_call(tmp_path_factory, cli, key, value):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    tmp = tmp_path_factory.mktemp("prop")
    cfg = set_key(staged(tmp / "run", steps=1, budget=8), key, value)
    toml = tmp / "run.toml"
    toml.write_text(to_toml(cfg))
    code, out = cli("validate", toml)
    assert "Traceback" not in out and "(run again with -v" not in out, out
    assert code in (0, 2), out
    if code == 0:
        return
    assert "[" in out or "run file" in out, out  # the refusal names a key (or the file)
    before = folder_state(tmp)
    code, out = cli("run", toml)
    assert code == 2 and "Traceback" not in out, out
    assert not (Path(tmp) / "run" / "oracle_log.csv").exists()  # no oracle call paid
    assert folder_state(tmp) == before  # nothing written
