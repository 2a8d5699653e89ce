"""Every registered strategy (built-in or plugin) gets the same batch and gives the same loss whether mara-chem's
loop or REINVENT's (through the adapter's reward) feeds it the same rows: one invalid row, an in-batch
duplicate and a valid row the oracle budget left unscored included. The REINVENT side is skipped without
REINVENT 4.8 (scripts/setup_venv.sh installs it). Augmented memory is the third caller: a round on copies spelt
as the sampled rows rebuilds the loop's batch exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from tests.contracts.contract_helpers import build_example, implementations

from mara_chem.chem.smiles import SmilesState
from mara_chem.plugins import STRATEGIES
from mara_chem.rl.config import load_run_config
from mara_chem.rl.loop import StagedLearning
from mara_chem.rl.oracle import Scored
from mara_chem.rl.step_samples import StepSamples, batch_states
from mara_chem.rl.strategies import build_strategy
from tests.paths import REPO

PRIOR = REPO / "priors" / "moses-gru-2x256.prior"

# raw SMILES as sampled; row 2 repeats row 0's molecule, row 4 is invalid (ring left open), row 5 is unscored
RAW = ["CCOc1ccccc1C(N)=O", "Cc1ccc(S(=O)(=O)N2CCCC2)cc1", "CCOc1ccccc1C(N)=O", "O=C(O)c1ccc(Cl)cc1",
       "CC1CCN(C", "c1ccc2[nH]ccc2c1", "CCN(CC)C(=O)c1ccccc1", "OCC1CCCCC1"]
SCORES = {0: 0.91, 1: 0.35, 3: 0.62, 6: 0.74, 7: 0.12}  # the oracle's totals by first row of each scored molecule

#: extra option sets (built-in types) whose batch depends on the outcome tracker
OPTION_CASES = [
    pytest.param("ips_dap", {"outcome": "scaffold"}, id="ips_dap-scaffold"),
    pytest.param("ips_dap", {"outcome": "cluster", "cluster_similarity": 0.2}, id="ips_dap-cluster"),
    pytest.param("ips_grpo", {"frequency": "window", "frequency_window": 3}, id="ips_grpo-window"),
    pytest.param("grpo", {"ips": True, "outcome": "scaffold"}, id="grpo-ips-scaffold"),
]


def _cases() -> list:
    cases = []
    for case in implementations(STRATEGIES):
        cls = case.values[0]
        cases.append(pytest.param(cls.name, dict(cls.example_params), id=case.id, marks=case.marks))
    return cases + OPTION_CASES


def _loop(tmp_path: Path, table: dict, augmentation_rounds: int = 0) -> StagedLearning:
    return StagedLearning(load_run_config({
        "run_type": "staged_learning", "device": "cpu", "seed": 1,
        "parameters": {"prior_file": str(PRIOR), "agent_file": str(PRIOR),
                       "summary_csv_prefix": str(tmp_path / "run" / "summary"), "batch_size": len(RAW),
                       "augmentation_rounds": augmentation_rounds},
        "learning_strategy": table,
        "stage": [{"max_steps": 1, "scoring": {"type": "geometric_mean", "component": [
            {"QED": {"endpoint": [{"name": "QED", "weight": 1}]}}]}}],
    }), quiet=True)


def _samples(learning: StagedLearning) -> StepSamples:
    from mara_chem.chem.smiles import canonicalize

    canonical = [canonicalize(s) for s in RAW]
    samples = StepSamples(raw=list(RAW), tokens=learning.agent.vocabulary.encode_batch(RAW), sampled_logp=None,
                          canonical=canonical, states=batch_states(canonical))
    samples.take_scores({canonical[i]: Scored(total=v, scores={"QED": v}, raw={"QED": v}, reason=None, call=i + 1)
                         for i, v in SCORES.items()})
    return samples


def _loop_update(tmp_path: Path, table: dict, learning: StagedLearning | None = None):
    """The loop's own filter and update on the rows above; (batch the strategy saw, loss)."""
    learning = learning or _loop(tmp_path, table)
    seen = []
    learning.strategy.register_forward_hook(lambda module, args, out: seen.append(args[0]))
    samples = _samples(learning)
    learning._filter(samples)
    loss = learning.update(samples, learning.memory)
    assert len(seen) == 1
    return seen[0], loss, samples


@pytest.mark.parametrize(("type_", "options"), _cases())
def test_loop_and_reinvent_feed_a_strategy_the_same_batch(tmp_path, type_, options, request):
    table = build_example(STRATEGIES.get(type_), lambda: {**build_strategy(type=type_, **options).params.model_dump(
        exclude_unset=True), "type": type_})
    batch, loop_loss, samples = _loop_update(tmp_path, table)
    rows = np.flatnonzero(samples.in_update)
    assert batch.agent_logp.shape[0] == len(rows) == len(RAW) - 1  # the unscored row left out
    assert bool(torch.isfinite(batch.agent_logp).all())
    request.getfixturevalue("reinvent_rl")  # skips here without REINVENT

    from mara_chem.reinvent.learning import MaraReward, StepContext

    # REINVENT's view of the same step: NLLs for every row, NaN for the unscored row, 1e-8 for the invalid one
    # (its geometric mean's floor), 0 for the duplicate (REINVENT zeroes in-batch duplicates)
    agent_ll = batch.agent_logp.detach().clone().requires_grad_(True)
    idx = torch.as_tensor(rows)
    agent_nlls = torch.zeros(len(RAW)).index_copy(0, idx, -agent_ll)
    prior_nlls = torch.zeros(len(RAW)).index_copy(0, idx, -batch.prior_logp.detach())
    totals = np.array([np.nan if not samples.has_score[i] else 1e-8 if samples.canonical[i] is None
                       else 0.0 if samples.states[i] == SmilesState.DUPLICATE else samples.totals[i]
                       for i in range(len(RAW))])
    reward = MaraReward(torch.optim.SGD([agent_ll], lr=0.0), build_strategy(table))
    reward.context = StepContext([c or r for c, r in zip(samples.canonical, RAW)], samples.states, prior=None)
    seen = []
    MaraReward.step_hooks.append(seen.append)
    try:
        *_, reinvent_loss = reward(RAW, totals, agent_nlls, prior_nlls, None, None, None)
    finally:
        MaraReward.step_hooks.remove(seen.append)
    got = seen[0].batch
    for name in ("agent_logp", "prior_logp", "scores", "is_replay"):
        assert torch.equal(getattr(got, name).detach(), getattr(batch, name).detach()), name
    assert torch.equal(got.outcome_ids, batch.outcome_ids)
    assert (got.outcome_freq is None) == (batch.outcome_freq is None)
    if got.outcome_freq is not None:
        assert torch.equal(got.outcome_freq, batch.outcome_freq)
    assert float(reinvent_loss) == loop_loss


@pytest.mark.parametrize(("type_", "options"), _cases())
def test_augmented_memory_rebuilds_the_loops_batch(tmp_path, type_, options, monkeypatch):
    """Augmented memory as a caller of the one builder: with the copies spelt as the sampled rows and the optimiser
    at rate 0, its round's batch is the loop's batch field for field (its MARA anchor the step's), and its loss the
    loop's (forward KL aside: a round draws new prior samples)."""
    from mara_chem.rl import augmentation

    table = build_example(STRATEGIES.get(type_), lambda: {**build_strategy(type=type_, **options).params.model_dump(
        exclude_unset=True), "type": type_})
    learning = _loop(tmp_path, table, augmentation_rounds=1)
    for group in learning.optimizer.param_groups:
        group["lr"] = 0.0
    seen = []
    learning.strategy.register_forward_hook(lambda module, args, out: seen.append((args[0], out)))
    batch, loop_loss, samples = _loop_update(tmp_path, table, learning)
    monkeypatch.setattr(augmentation, "respelt_rows", lambda canonical, tokens, rng, vocabulary: (tokens, list(canonical)))
    losses = learning.augmentation(learning.update.last, None, [])
    assert len(seen) == 2 and len(losses) == 1
    (step_batch, step_out), (rebuilt, round_out) = seen
    for name in ("agent_logp", "prior_logp"):
        assert torch.allclose(getattr(rebuilt, name).detach(), getattr(step_batch, name).detach(), atol=1e-5), name
    for name in ("scores", "is_replay", "outcome_ids"):
        assert torch.equal(getattr(rebuilt, name), getattr(step_batch, name)), name
    assert (rebuilt.outcome_freq is None) == (step_batch.outcome_freq is None)
    if rebuilt.outcome_freq is not None:
        assert torch.equal(rebuilt.outcome_freq, step_batch.outcome_freq)
    if "mara_anchor_score" in step_out.info:
        assert rebuilt.mara_anchor is not None
        assert float(rebuilt.mara_anchor[1]) == pytest.approx(step_out.info["mara_anchor_prior_logp"])
    if not learning.strategy.needs_prior_samples:
        assert losses[0] == pytest.approx(loop_loss, rel=1e-5, abs=1e-6)
