"""The one builder of a strategy's batch (mara_chem/rl/strategy_inputs.py): it asks for what the strategy
declares it needs, and for nothing else."""

from __future__ import annotations

import pytest
import torch

from mara_chem.rl.strategies import build_strategy
from mara_chem.rl.strategy_inputs import AnchorPool, OnPolicyRows, Rows, StrategyInputs

TOLUENE, PHENOL, ANILINE = "Cc1ccccc1", "Oc1ccccc1", "Nc1ccccc1"


def rows(canonical: list[str | None]) -> OnPolicyRows:
    n = len(canonical)
    return OnPolicyRows(-torch.arange(1.0, n + 1), -torch.arange(2.0, n + 2), torch.linspace(0.1, 0.9, n),
                        canonical=canonical)


def never(*args):
    raise AssertionError("asked for something the strategy does not need")


def test_without_options_nothing_extra_is_asked_for_and_molecules_are_outcomes():
    inputs = StrategyInputs(build_strategy(type="reinforce"))
    assert inputs.outcomes is None and inputs.state_dict() is None
    batch = inputs.build(rows([TOLUENE, None, TOLUENE, PHENOL]), Rows(torch.zeros(2), torch.zeros(2), torch.ones(2)),
                         prior_samples=never, anchor_pool=never, memory_smiles=never)
    ids = batch.outcome_ids.tolist()
    assert ids[0] == ids[2] and len(set(ids)) == 5  # toluene twice; the invalid row and the 2 replay rows distinct
    assert batch.is_replay.tolist() == [False] * 4 + [True] * 2 and batch.outcome_freq is None
    assert batch.prior_sample_agent_logp is None and batch.anchor_pool_scores is None


def test_forward_kl_asks_for_prior_samples_of_the_batch_size_and_needs_a_source():
    inputs = StrategyInputs(build_strategy(type="reinforce", kl="forward"))
    asked = []
    batch = inputs.build(rows([TOLUENE, PHENOL, None]), prior_samples=lambda n: asked.append(n) or -torch.ones(n))
    assert asked == [3] and batch.prior_sample_agent_logp.shape == (3,)
    with pytest.raises(ValueError, match="needs prior samples"):
        inputs.build(rows([TOLUENE]))


def test_mara_anchors_on_the_pool_only_with_batch_plus_memory():
    pool = AnchorPool(torch.tensor([-1.0]), torch.tensor([0.95]))
    on_memory = StrategyInputs(build_strategy(type="mara", tau=0.5, anchor_pool="batch+memory"))
    assert on_memory.build(rows([TOLUENE, PHENOL]), anchor_pool=lambda: pool).anchor_pool_scores.tolist() == pytest.approx([0.95])
    on_batch = StrategyInputs(build_strategy(type="mara", tau=0.5))
    assert on_batch.build(rows([TOLUENE, PHENOL]), anchor_pool=never).anchor_pool_scores is None


def test_ips_window_counts_across_builds_and_its_state_round_trips():
    strategy = build_strategy(type="ips_grpo", outcome="scaffold", frequency="window", frequency_window=2)
    inputs = StrategyInputs(strategy)
    inputs.build(rows([TOLUENE, PHENOL]))  # two molecules, one scaffold (benzene)
    batch = inputs.build(rows([ANILINE, None]), Rows(torch.zeros(1), torch.zeros(1), torch.ones(1)))
    assert batch.outcome_freq.tolist() == pytest.approx([3 / 4, 1 / 4, 1.0])  # pooled over 4 samples; replay 1
    again = StrategyInputs(strategy)
    again.load_state_dict(inputs.state_dict())
    assert again.build(rows([TOLUENE])).outcome_freq.tolist() == pytest.approx([2 / 3])  # window: last 2 steps


def test_ips_memory_frequency_reads_the_memory_only_then():
    inputs = StrategyInputs(build_strategy(type="ips_dap", frequency="memory"))
    batch = inputs.build(rows([TOLUENE, PHENOL]), memory_smiles=lambda: [TOLUENE, TOLUENE])
    assert batch.outcome_freq.tolist() == pytest.approx([3 / 4, 1 / 4])


def test_run_file_strategy_errors_list_the_types_and_name_beta():
    from mara_chem.rl.config import ConfigError, load_run_config

    def table(strategy: dict) -> dict:
        return {"run_type": "staged_learning", "learning_strategy": strategy,
                "parameters": {"prior_file": "moses-gru-2x256", "agent_file": "moses-gru-2x256"},
                "stage": [{"max_steps": 1, "scoring": {"type": "geometric_mean", "component": [
                    {"QED": {"endpoint": [{"name": "QED"}]}}]}}]}

    with pytest.raises(ConfigError, match=r"unknown learning strategy 'MARA'; valid: .*ips_dap.*mara"):
        load_run_config(table({"type": "MARA", "tau": 0.5}))
    with pytest.raises(ConfigError, match=r"type 'rloo' takes beta.*sigma = 128 is beta = 0\.007812"):
        load_run_config(table({"type": "rloo", "sigma": 128}))
