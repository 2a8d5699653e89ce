"""Unit tests of the learning strategies: registry and options, MARA, IPS, estimators, DAP's log Z."""

from __future__ import annotations

import tomllib

import pytest
import torch
from mara_chem.rl.strategies import (
    StrategyBatch,
    build_strategy,
    dap_loss,
    grpo_advantages,
    ips_rewards,
    ips_weights,
    list_strategies,
    mara_rewards,
    outcome_counts,
    quantile_threshold,
    rloo_advantages,
    strategy_params_model,
)

ALL_TYPES = ["dap", "dmpo", "grpo", "ips_dap", "ips_grpo", "mara", "mips_grpo", "reinforce", "rloo"]
MINIMAL_OPTIONS = {"mara": {"tau": 0.5}}


def make_batch(
    scores, prior_logp=None, outcome_ids=None, is_replay=None, agent_logp=None, **extra
) -> StrategyBatch:
    scores = torch.as_tensor(scores, dtype=torch.float32)
    n = scores.numel()
    agent = torch.linspace(-3.0, -1.0, n) if agent_logp is None else torch.as_tensor(agent_logp, dtype=torch.float32)
    return StrategyBatch(
        agent_logp=agent.clone().requires_grad_(True),
        prior_logp=torch.linspace(-2.0, -4.0, n) if prior_logp is None else torch.as_tensor(prior_logp).float(),
        scores=scores,
        outcome_ids=torch.arange(n) if outcome_ids is None else torch.as_tensor(outcome_ids),
        is_replay=torch.zeros(n, dtype=torch.bool) if is_replay is None else torch.as_tensor(is_replay),
        **extra,
    )


# ------------------------------------------------------------------------------ registry and options
def test_registered_names_are_pinned():
    assert list_strategies() == ALL_TYPES


def test_unknown_strategy_lists_the_valid_names():
    with pytest.raises(ValueError, match="unknown learning strategy 'foo'.*dap.*ips_grpo.*rloo"):
        build_strategy(type="foo")
    with pytest.raises(ValueError, match="valid: dap"):
        strategy_params_model("bar")


def test_a_strategy_registers_only_with_its_own_options_model():
    """A named strategy declares ``Params`` (as components and filters do) whose ``type`` is its name; otherwise
    defining the class fails, before anything is registered."""
    from mara_chem.rl.strategies import LearningStrategy

    with pytest.raises(TypeError, match="NoOptions declares no Params"):
        class NoOptions(LearningStrategy):
            name = "test_no_options"
    with pytest.raises(TypeError, match=r"OtherType.Params declares type 'dap', registered as 'test_other_type'"):
        class OtherType(LearningStrategy):
            name = "test_other_type"
            Params = strategy_params_model("dap")
    assert "test_no_options" not in list_strategies() and "test_other_type" not in list_strategies()


@pytest.mark.parametrize(("type_", "key"), [("dap", "sgima"), ("grpo", "sigma"), ("mara", "bogus")])
def test_unknown_option_is_an_error_naming_the_key(type_: str, key: str):
    with pytest.raises(ValueError, match=key):
        build_strategy(type=type_, tau=0.5, **{key: 1}) if type_ == "mara" else build_strategy(type=type_, **{key: 1})


def test_missing_type_is_an_error():
    with pytest.raises(ValueError, match="needs a 'type'"):
        build_strategy({"sigma": 128})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (dict(type="mara"), "exactly one of 'tau' or 'tau_quantile'"),
        (dict(type="mara", tau=0.8, tau_quantile=0.9), "exactly one"),
        (dict(type="dap", tau=0.8), "tau given but mara = false"),
        (dict(type="grpo", ips_eps=0.1), "ips_eps given but ips = false"),
        (dict(type="dap", log_z_lr=1.0), "log_z_lr given but learn_log_z = false"),
        (dict(type="mara", tau=1.5), "tau"),
        (dict(type="ips_grpo", ips=False), "ips"),
        (dict(type="grpo", kl="both"), "kl"),
    ],
)
def test_invalid_option_values_are_rejected(options: dict, message: str):
    with pytest.raises(ValueError, match=message):
        build_strategy(**options)


def test_rate_is_accepted_and_defaults_documented():
    dap = build_strategy(type="dap", rate=3e-4)
    assert dap.params.rate == 3e-4 and dap.params.sigma == 128.0 and dap.beta == pytest.approx(1 / 128)
    grpo = build_strategy(type="grpo")
    assert grpo.params.kl == "reverse" and grpo.params.beta == 0.05
    ips_grpo = build_strategy(type="ips_grpo")
    assert ips_grpo.params.ips and ips_grpo.params.kl == "none" and ips_grpo.params.ips_eps == 0.01
    assert build_strategy(type="ips_dap").params.learn_log_z


def test_toml_table_validates_through_its_type_s_own_model():
    table = tomllib.loads('[learning_strategy]\ntype = "mara"\nsigma = 128\nrate = 1e-4\ntau = 0.8\n')
    config = strategy_params_model("mara")(**table["learning_strategy"])
    assert type(config) is strategy_params_model("mara") and config.tau == 0.8
    strategy = build_strategy(config)
    assert strategy.name == "mara" and strategy.params is config
    with pytest.raises(ValueError, match="sgima"):
        strategy_params_model("dap")(type="dap", sgima=1)
    with pytest.raises(ValueError, match="nope"):
        strategy_params_model("nope")


def test_build_from_params_with_overrides_revalidates():
    base = strategy_params_model("grpo")(beta=0.1)
    strategy = build_strategy(base, kl="none")
    assert strategy.params.kl == "none" and strategy.params.beta == 0.1
    with pytest.raises(ValueError, match="tau given but mara = false"):
        build_strategy(base, tau=0.3)


def test_batch_shapes_are_checked():
    with pytest.raises(ValueError, match="scores has shape"):
        StrategyBatch(torch.zeros(3), torch.zeros(3), torch.zeros(2), torch.arange(3), torch.zeros(3, dtype=torch.bool))
    with pytest.raises(ValueError, match="given together"):
        make_batch([0.1, 0.2], anchor_pool_scores=torch.ones(2))


# ---------------------------------------------------------------------------- contract (every strategy)
@pytest.mark.parametrize("type_", ALL_TYPES)
def test_every_strategy_returns_a_finite_differentiable_loss(type_: str):
    strategy = build_strategy(type=type_, **MINIMAL_OPTIONS.get(type_, {}))
    batch = make_batch(
        [0.0, 0.3, 0.9, 0.9, 0.6], outcome_ids=[0, 1, 2, 2, 3], is_replay=[False, False, False, False, True]
    )
    out = strategy(batch)
    assert out.loss.ndim == 0 and torch.isfinite(out.loss)
    assert out.rewards.shape == (5,) and not out.rewards.requires_grad
    assert all(isinstance(v, float) for v in out.info.values())
    out.loss.backward()
    assert batch.agent_logp.grad is not None and torch.isfinite(batch.agent_logp.grad).all()


# ---------------------------------------------------------------------------------------------- MARA
def test_mara_with_empty_high_set_changes_nothing():
    scores = torch.tensor([0.1, 0.2, 0.3])
    prior = torch.tensor([-1.0, -2.0, -3.0])
    assert torch.equal(mara_rewards(scores, prior, tau=0.5, beta=0.1), scores)
    batch = make_batch([0.1, 0.2, 0.3])
    plain = build_strategy(type="dap", sigma=10)(batch)
    mara = build_strategy(type="mara", sigma=10, tau=0.5)(batch)
    assert torch.equal(mara.rewards, plain.rewards) and mara.loss.item() == plain.loss.item()


def test_mara_anchor_is_the_most_prior_likely_high_scorer():
    scores = torch.tensor([0.95, 0.80, 0.85, 0.40])
    prior = torch.tensor([-5.0, -2.0, -3.0, -1.0])  # row 3 is most likely but below τ; anchor z = row 1
    beta = 0.1
    got = mara_rewards(scores, prior, tau=0.75, beta=beta)
    expected = torch.tensor([0.80 + beta * (-2.0 + 5.0), 0.80, 0.80 + beta * (-2.0 + 3.0), 0.40])
    assert torch.allclose(got, expected)
    # the optimum π_0·exp(R̄/β) is the same on the whole of H
    level = prior[:3] + got[:3] / beta
    assert torch.allclose(level, level[1].expand(3))


def test_mara_zero_scores_are_never_high():
    got = mara_rewards(torch.tensor([0.0, 0.0]), torch.tensor([-1.0, -2.0]), tau=0.0, beta=0.1)
    assert torch.equal(got, torch.zeros(2))


def test_mara_dap_targets_equal_anchor_target_on_high_set():
    sigma = 50.0
    batch = make_batch([0.9, 0.7, 0.95, 0.2], prior_logp=[-4.0, -1.0, -6.0, -0.5])
    out = build_strategy(type="mara", sigma=sigma, tau=0.8)(batch)
    anchor_target = -4.0 + sigma * 0.9
    assert out.targets[0].item() == pytest.approx(anchor_target)
    assert out.targets[2].item() == pytest.approx(anchor_target)
    assert out.targets[1].item() == pytest.approx(-1.0 + sigma * 0.7)
    assert out.info["mara_anchor_score"] == pytest.approx(0.9)


def test_mara_tau_quantile_sets_tau_from_on_policy_scores():
    scores = torch.tensor([0.1, 0.2, 0.3, 0.4, 0.5, 0.9])
    assert quantile_threshold(scores, 0.5) == pytest.approx(0.35)
    batch = make_batch([0.1, 0.2, 0.3, 0.4, 0.5, 0.99], is_replay=[False] * 5 + [True])
    out = build_strategy(type="mara", sigma=10, tau_quantile=0.5)(batch)
    assert out.info["mara_tau"] == pytest.approx(0.3)  # median of the 5 on-policy scores
    assert out.info["mara_high_fraction"] == pytest.approx(4 / 6)


def test_mara_anchor_pool_batch_ignores_replay_and_memory():
    scores = [0.9, 0.85, 0.95]
    prior = [-3.0, -4.0, -0.5]  # the replay row (last) is the most prior-likely high scorer
    pool = dict(anchor_pool_scores=torch.tensor([0.9]), anchor_pool_prior_logp=torch.tensor([-0.1]))
    batch = make_batch(scores, prior_logp=prior, is_replay=[False, False, True], **pool)
    out = build_strategy(type="rloo", beta=0.1, mara=True, tau=0.8)(batch)
    assert out.info["mara_anchor_prior_logp"] == pytest.approx(-3.0)
    # the replay row is in H and is rewritten with the batch anchor
    assert out.rewards[2].item() == pytest.approx(0.9 + 0.1 * (-3.0 + 0.5))


def test_mara_anchor_pool_batch_plus_memory_uses_replay_and_pool():
    pool = dict(anchor_pool_scores=torch.tensor([0.9, 0.5]), anchor_pool_prior_logp=torch.tensor([-0.1, 0.0]))
    batch = make_batch([0.9, 0.85, 0.95], prior_logp=[-3.0, -4.0, -0.5], is_replay=[False, False, True], **pool)
    out = build_strategy(type="rloo", beta=0.1, mara=True, tau=0.8, anchor_pool="batch+memory")(batch)
    assert out.info["mara_anchor_prior_logp"] == pytest.approx(-0.1)  # the pool's 0.5 entry is below τ
    assert out.rewards[0].item() == pytest.approx(0.9 + 0.1 * (-0.1 + 3.0))


# ----------------------------------------------------------------------------------------------- IPS
def test_ips_counts_exclude_replay_rows():
    ids = torch.tensor([7, 7, 3, 9, 7, 3])
    replay = torch.tensor([False, False, False, False, True, True])
    counts = outcome_counts(ids, ~replay)
    assert counts.tolist() == [2, 2, 1, 1, 2, 1]
    rewards = torch.ones(6)
    got = ips_rewards(rewards, ids, eps=0.01, mask=~replay)
    assert torch.allclose(got, torch.tensor([2.0, 2.0, 4.0, 4.0, 1.0, 1.0]))  # r/(n/G), G = 4; replay unchanged


def test_ips_eps_clips_small_frequencies():
    ids = torch.tensor([0, 0, 0, 1])
    got = ips_rewards(torch.ones(4), ids, eps=0.5)
    assert torch.allclose(got, torch.tensor([1 / 0.75, 1 / 0.75, 1 / 0.75, 2.0]))


def test_ips_weights_count_each_distinct_outcome_once():
    ids = torch.tensor([5, 5, 5, 2, 8, 8])
    replay = torch.tensor([False, False, False, False, False, True])
    w = ips_weights(ids, eps=0.01, mask=~replay)
    assert torch.allclose(w, torch.tensor([1 / 3, 1 / 3, 1 / 3, 1.0, 1.0, 1.0]))


def test_ips_grpo_uses_on_policy_counts_only():
    batch = make_batch([0.5, 0.5, 0.5, 0.5], outcome_ids=[1, 1, 2, 1], is_replay=[False, False, False, True])
    out = build_strategy(type="ips_grpo")(batch)
    assert torch.allclose(out.rewards, torch.tensor([0.75, 0.75, 1.5, 0.5]))


# ---------------------------------------------------------------------------------- policy gradient
def test_rloo_and_grpo_advantages():
    r = torch.tensor([1.0, 2.0, 6.0])
    assert torch.allclose(rloo_advantages(r), torch.tensor([1 - 4.0, 2 - 3.5, 6 - 1.5]))
    a = grpo_advantages(r)
    assert a.mean().abs() < 1e-6 and a.std(unbiased=False).sub(1).abs() < 1e-5
    assert torch.equal(grpo_advantages(torch.ones(3)), torch.zeros(3))
    assert torch.equal(rloo_advantages(torch.ones(1)), torch.zeros(1))


def test_reverse_kl_reinforce_loss_by_hand():
    beta = 0.2
    batch = make_batch([0.5, 1.0], prior_logp=[-1.0, -2.0], agent_logp=[-1.5, -1.0])
    out = build_strategy(type="reinforce", beta=beta)(batch)
    shaped = torch.tensor([0.5 - beta * (-1.5 + 1.0), 1.0 - beta * (-1.0 + 2.0)])
    assert out.loss.item() == pytest.approx(-(shaped * torch.tensor([-1.5, -1.0])).mean().item())
    out.loss.backward()
    assert torch.allclose(batch.agent_logp.grad, -shaped / 2)


def test_forward_kl_adds_prior_sample_likelihood_and_requires_samples():
    batch = make_batch([0.5, 1.0])
    with pytest.raises(ValueError, match="prior_sample_agent_logp"):
        build_strategy(type="rloo", kl="forward")(batch)
    prior_samples = torch.tensor([-2.0, -4.0], requires_grad=True)
    batch = make_batch([0.5, 1.0], prior_sample_agent_logp=prior_samples)
    none = build_strategy(type="rloo", kl="none")(batch).loss
    fwd = build_strategy(type="rloo", kl="forward", beta=0.3)(batch)
    assert fwd.loss.item() == pytest.approx(none.item() + 0.3 * 3.0)
    fwd.loss.backward()
    assert torch.allclose(prior_samples.grad, torch.tensor([-0.15, -0.15]))


@pytest.mark.parametrize("type_", ["reinforce", "rloo", "grpo", "ips_grpo"])
def test_policy_gradient_ignores_replay_rows(type_: str):
    on_policy = make_batch([0.2, 0.9, 0.4], outcome_ids=[0, 1, 1])
    with_replay = make_batch(
        [0.2, 0.9, 0.4, 1.0, 0.8], outcome_ids=[0, 1, 1, 1, 4], is_replay=[False, False, False, True, True],
        agent_logp=[*torch.linspace(-3.0, -1.0, 3).tolist(), -0.1, -0.2],
        prior_logp=[*torch.linspace(-2.0, -4.0, 3).tolist(), -0.3, -0.4],
    )
    strategy = build_strategy(type=type_)
    assert strategy(with_replay).loss.item() == pytest.approx(strategy(on_policy).loss.item())


# ----------------------------------------------------------------------------------------------- DAP
def test_dap_loss_by_hand_includes_replay_rows():
    sigma = 10.0
    batch = make_batch([0.5, 0.0, 1.0], prior_logp=[-2.0, -3.0, -4.0], agent_logp=[-1.0, -2.0, -3.0],
                       is_replay=[False, False, True])
    out = build_strategy(type="dap", sigma=sigma)(batch)
    targets = torch.tensor([-2.0 + 5.0, -3.0, -4.0 + 10.0])
    assert torch.allclose(out.targets, targets)
    assert out.loss.item() == pytest.approx(((targets - torch.tensor([-1.0, -2.0, -3.0])) ** 2).mean().item())


def test_dap_loss_function_with_log_z_and_weights():
    agent, prior, r = torch.tensor([-1.0, -2.0]), torch.tensor([-1.0, -1.0]), torch.tensor([0.1, 0.2])
    got = dap_loss(agent, prior, r, sigma=10.0, log_z=0.5, weights=torch.tensor([1.0, 3.0]))
    residual = torch.tensor([-1 + 1 + 1 - 0.5, -1 + 2 + 2 - 0.5])
    assert got.item() == pytest.approx(((residual**2) * torch.tensor([1.0, 3.0])).sum().item() / 4)


def test_dap_log_z_is_a_parameter_with_its_own_lr_and_checkpoints():
    strategy = build_strategy(type="dap", sigma=20, learn_log_z=True, rate=2e-4)
    params = list(strategy.parameters())
    assert len(params) == 1 and params[0] is strategy.log_z
    (group,) = strategy.optimizer_param_groups()
    assert group["lr"] == pytest.approx(2e-2) and group["params"] == [strategy.log_z]
    assert build_strategy(type="dap", learn_log_z=True, log_z_lr=0.5).optimizer_param_groups()[0]["lr"] == 0.5
    assert build_strategy(type="dap").optimizer_param_groups() == []

    batch = make_batch([0.5, 0.1], prior_logp=[-2.0, -3.0], agent_logp=[-1.0, -4.0])
    out = strategy(batch)  # first batch: log Z starts at the closed-form estimate (mean residual)
    expected = ((torch.tensor([-2.0 + 10.0, -3.0 + 2.0]) - torch.tensor([-1.0, -4.0])).mean()).item()
    assert strategy.log_z.item() == pytest.approx(expected) and out.info["log_z"] == pytest.approx(expected)
    out.loss.backward()
    assert strategy.log_z.grad is not None

    restored = build_strategy(type="dap", sigma=20, learn_log_z=True, rate=2e-4)
    restored.load_state_dict(strategy.state_dict())
    assert restored.log_z.item() == pytest.approx(expected) and bool(restored.log_z_initialised)
    restored(make_batch([0.0, 0.0]))
    assert restored.log_z.item() == pytest.approx(expected)  # not re-initialised after loading


def test_dap_log_z_init_is_respected():
    strategy = build_strategy(type="dap", learn_log_z=True, log_z_init=3.0)
    strategy(make_batch([0.5, 0.1]))
    assert strategy.log_z.item() == 3.0


def test_dap_batch_log_z_estimate_is_the_residual_variance():
    batch = make_batch([0.5, 0.1, 0.3], prior_logp=[-2.0, -3.0, -1.0], agent_logp=[-1.0, -4.0, -2.0])
    strategy = build_strategy(type="dap", sigma=20, learn_log_z=True, log_z_estimate="batch")
    assert list(strategy.parameters()) == []
    residual = torch.tensor([-2.0 + 10.0 + 1.0, -3.0 + 2.0 + 4.0, -1.0 + 6.0 + 2.0])
    assert strategy(batch).loss.item() == pytest.approx(residual.var(unbiased=False).item(), rel=1e-5)


def test_ips_dap_weights_duplicates_down():
    batch = make_batch([0.5, 0.5, 0.2], outcome_ids=[4, 4, 1], prior_logp=[-2.0, -2.0, -3.0],
                       agent_logp=[-1.0, -1.0, -2.0])
    out = build_strategy(type="ips_dap", sigma=10, learn_log_z=False)(batch)
    sq = torch.tensor([(-2.0 + 5.0 + 1.0) ** 2, (-2.0 + 5.0 + 1.0) ** 2, (-3.0 + 2.0 + 2.0) ** 2])
    w = torch.tensor([0.5, 0.5, 1.0])
    assert out.loss.item() == pytest.approx(((w * sq).sum() / w.sum()).item())
    assert out.info["ips_distinct_fraction"] == pytest.approx(2 / 3)


def test_nan_scores_are_rejected():
    with pytest.raises(ValueError, match="NaN"):
        build_strategy(type="dap")(make_batch([0.5, float("nan")]))


CUDA_OPTIONS = {
    "dap": {"learn_log_z": True, "mara": True, "tau": 0.5, "anchor_pool": "batch+memory"},
    "mara": {"tau_quantile": 0.5, "anchor_pool": "batch+memory"},
    "ips_dap": {},
    "reinforce": {"kl": "forward", "mara": True, "tau": 0.5, "anchor_pool": "batch+memory"},
    "rloo": {"ips": True},
    "grpo": {"mara": True, "tau": 0.5, "anchor_pool": "batch+memory"},
    "ips_grpo": {"kl": "reverse"},
    "mips_grpo": {"ips_eps": 0.001},
    "dmpo": {"kl": "forward"},
}


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("type_", ALL_TYPES)
def test_every_strategy_runs_on_cuda(type_: str):
    strategy = build_strategy(type=type_, **CUDA_OPTIONS[type_]).to("cuda")
    cpu = make_batch([0.0, 0.3, 0.9, 0.9, 0.6], outcome_ids=[0, 1, 2, 2, 3], is_replay=[False] * 4 + [True])
    batch = StrategyBatch(
        agent_logp=cpu.agent_logp.detach().cuda().requires_grad_(True),
        prior_logp=cpu.prior_logp.cuda(),
        scores=cpu.scores.cuda(),
        outcome_ids=cpu.outcome_ids.cuda(),
        is_replay=cpu.is_replay.cuda(),
        prior_sample_agent_logp=torch.tensor([-2.0, -3.0], device="cuda"),
        anchor_pool_prior_logp=torch.tensor([-0.5, -1.0], device="cuda"),
        anchor_pool_scores=torch.tensor([0.8, 0.2], device="cuda"),
    )
    out = strategy(batch)
    out.loss.backward()
    assert out.loss.device.type == "cuda" and torch.isfinite(batch.agent_logp.grad).all()


@pytest.mark.parametrize(("options", "zero"), [
    (dict(type="dap"), True), (dict(type="mara", tau=0.5), True), (dict(type="grpo"), True),
    (dict(type="ips_grpo"), False), (dict(type="ips_dap"), False), (dict(type="rloo", ips=True), False),
])
def test_ips_strategies_ask_the_loop_not_to_zero_duplicates(options: dict, zero: bool):
    assert build_strategy(**options).zero_batch_duplicates is zero


def test_ips_distinct_fraction_is_reported_only_where_it_is_one() -> None:
    """With batch frequencies DAP-IPS's mean weight is the share of distinct outcomes (2 of 4 here); with a
    window's p̂ it is no fraction (above 1 here) and is logged as ``ips_mean_weight``."""
    from mara_chem.rl.strategies import StrategyBatch, build_strategy

    ids = torch.tensor([0, 0, 1, 1])
    rows = dict(agent_logp=torch.full((4,), -20.0), prior_logp=torch.full((4,), -20.0),
                scores=torch.tensor([0.2, 0.2, 0.6, 0.6]), outcome_ids=ids, is_replay=torch.zeros(4, dtype=torch.bool))
    strategy = build_strategy(type="ips_dap", sigma=64)
    batch_info = strategy(StrategyBatch(**rows)).info
    assert batch_info["ips_distinct_fraction"] == pytest.approx(0.5)
    window = strategy(StrategyBatch(**rows, outcome_freq=torch.full((4,), 0.1))).info
    assert "ips_distinct_fraction" not in window
    assert window["ips_mean_weight"] == pytest.approx(0.25 / 0.1)  # max(1/G, ε) / p̂ with G = 4
