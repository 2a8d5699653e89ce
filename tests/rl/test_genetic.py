"""Genetic exploration and off-policy replay (``[genetic]``, mara_chem/rl/genetic.py): rank weights as stated,
offspring paid once and logged with their source, generations = 0 is the run without the table, and on a
categorical toy a strategy trained off-policy on a fixed buffer reaches its closed-form optimum."""

from __future__ import annotations

import csv
import math
import random
from pathlib import Path

import numpy as np
import pytest
import torch
from scipy.special import lambertw

from mara_chem.models.prior_file import load_prior
from mara_chem.rl import genetic
from mara_chem.rl.config import ConfigError, load_run_config
from mara_chem.rl.learning_step import LearningStep
from mara_chem.rl.loop import StagedLearning
from mara_chem.rl.strategies import build_strategy
from mara_chem.rl.strategy_inputs import OnPolicyRows, StrategyInputs
from mara_chem.run_folder.oracle_log import read_oracle_log
from mara_chem.scoring.scorer import Scorer

from tests import golden_runs


# ------------------------------------------------------------------------------------------- rank weights
@pytest.mark.parametrize("k", [0.01, 0.5])
def test_rank_probabilities_are_one_over_kn_plus_rank_normalised(k: float) -> None:
    n = 7
    raw = [1.0 / (k * n + r) for r in range(n)]
    expected = [w / sum(raw) for w in raw]
    assert genetic.rank_probabilities(n, k).tolist() == pytest.approx(expected, rel=1e-12)
    entries = [(f"m{r}", 1.0 - r / 10) for r in range(n)]  # best first, as a replay memory holds them
    draws = genetic.rank_sample(entries, 40_000, k, random.Random(0))
    counts = np.array([sum(1 for s, _ in draws if s == f"m{r}") for r in range(n)]) / len(draws)
    assert counts == pytest.approx(expected, abs=4 * math.sqrt(0.25 / len(draws)))


# -------------------------------------------------------------------------------------- runs of the loop
def _config(run_dir: Path, genetic_table: dict | None, budget: int = golden_runs.BUDGET, steps: int = 3) -> dict:
    config = golden_runs.config(run_dir, golden_runs.STRATEGIES["dap"])
    config["parameters"].update(batch_size=16)
    config["stage"][0].update(max_steps=steps, min_steps=steps, max_oracle_calls=budget)
    if genetic_table is not None:
        config["genetic"] = genetic_table
    return config


def test_each_offspring_is_paid_once_and_logged_with_its_source(tmp_path: Path, monkeypatch) -> None:
    """Every molecule the scorer sees is one log row (no molecule scored twice, none over the budget); the rows of
    source "genetic" are children Mol GA's operators made, the "agent" rows molecules the agent sampled."""
    scored: list[str] = []
    original = Scorer.__call__
    monkeypatch.setattr(Scorer, "__call__", lambda self, smiles, mols=None: (scored.extend(smiles),
                                                                              original(self, smiles, mols))[1])
    children: list[str] = []
    make = genetic.make_offspring
    monkeypatch.setattr(genetic, "make_offspring", lambda *a: (lambda out: (children.extend(out), out)[1])(make(*a)))
    budget = 70
    runner = StagedLearning(load_run_config(_config(tmp_path, {"generations": 2, "offspring": 8, "replay_loops": 1,
                                                               "replay_sample_size": 8}, budget=budget, steps=5)),
                            overwrite=True, quiet=True)
    result = runner.run()
    with open(tmp_path / "summary_1.csv", newline="") as handle:
        sampled = [row["SMILES"] for row in csv.DictReader(handle)]  # every row the agent sampled
    rows = runner.oracle_log.read()
    assert [r["smiles"] for r in rows] == scored and len(set(scored)) == len(scored)
    assert len(rows) == result.oracle_calls == budget and result.stop_reason == "oracle budget"
    by_source = {source: [r["smiles"] for r in rows if r["source"] == source] for source in ("agent", "genetic")}
    assert len(by_source["agent"]) + len(by_source["genetic"]) == len(rows)
    assert by_source["genetic"] and set(by_source["genetic"]) <= set(children)
    assert set(by_source["agent"]) <= set(sampled)
    table = read_oracle_log(tmp_path)
    assert table.endpoints == ["sim", "QED"] and (table.df["source"] == "genetic").sum() == len(by_source["genetic"])


def test_children_over_the_heavy_atom_cap_are_remade_from_the_same_parents_or_dropped() -> None:
    """Crossover of two 30-atom parents makes children larger than either; under a cap of 28 none is kept, with a cap
    no child reaches the random stream and the children are those of the run without a cap."""
    parents = ["CC(C)Cc1ccc(cc1)C(C)C(=O)NCCc1ccc(OCc2ccccc2)c(OC)c1",
               "O=C(Nc1ccc(F)cc1)c1cc2ccccc2n1CC(=O)N1CCN(c2ncccn2)CC1"]
    sizes = [genetic.heavy_atoms(p) for p in parents]
    cap = 28
    uncapped = genetic.make_offspring(parents, 200, 0.01, random.Random(3))
    assert max(genetic.heavy_atoms(c) for c in uncapped) > max(sizes) > cap  # the cap binds here
    capped = genetic.make_offspring(parents, 200, 0.01, random.Random(3), max_heavy_atoms=cap)
    assert capped and max(genetic.heavy_atoms(c) for c in capped) <= cap
    assert len(capped) > len([c for c in uncapped if genetic.heavy_atoms(c) <= cap])  # remade, not only filtered
    assert genetic.make_offspring(parents, 200, 0.01, random.Random(3), max_heavy_atoms=1000) == uncapped


def test_a_capped_run_pays_for_no_child_over_the_cap(tmp_path: Path) -> None:
    cap = 14  # without it, this run's children reach twice that
    runner = StagedLearning(load_run_config(_config(tmp_path, {"generations": 2, "offspring": 8, "replay_loops": 1,
                                                               "replay_sample_size": 8, "max_heavy_atoms": cap},
                                                    budget=70, steps=5)), overwrite=True, quiet=True)
    runner.run()
    children = [r["smiles"] for r in runner.oracle_log.read() if r["source"] == "genetic"]
    assert children and max(genetic.heavy_atoms(c) for c in children) <= cap


def test_generations_zero_is_the_run_without_the_table(tmp_path: Path) -> None:
    """Both runs here, on this machine: the same oracle log byte for byte (no source column) and the same agent."""
    logs, agents = [], []
    for name, table in (("without", None), ("zero", {"generations": 0})):
        run_dir = tmp_path / name
        runner = StagedLearning(load_run_config(_config(run_dir, table)), overwrite=True, quiet=True)
        assert runner.genetic is None
        runner.run()
        logs.append((run_dir / "oracle_log.csv").read_bytes())
        agents.append(load_prior(run_dir / "agent_stage1.prior").network.state_dict())
    assert logs[0] == logs[1] and b"source" not in logs[0].split(b"\n")[0]
    for key, value in agents[0].items():
        assert torch.allclose(value, agents[1][key], rtol=0, atol=1e-7), key


def test_genetic_table_is_validated_once(tmp_path: Path) -> None:
    config = _config(tmp_path, {"generations": 0, "offspring": 16})
    with pytest.raises(ConfigError, match=r"offspring given but generations = 0"):
        load_run_config(config)
    config["genetic"] = {"generations": 0, "max_heavy_atoms": 50}
    with pytest.raises(ConfigError, match=r"max_heavy_atoms given but generations = 0"):
        load_run_config(config)
    config["genetic"] = {"generations": 0, "offspring": 8}  # the default, as a recorded run.json holds it
    assert not load_run_config(config).genetic_on
    for key, value, message in (("generations", -1, "greater than or equal to 0"),
                                ("rank_coefficient", 0.0, "greater than 0"),
                                ("mutation_rate", 1.5, "less than or equal to 1"),
                                ("offspring", 0, "greater than or equal to 1"),
                                ("population", 1, "greater than or equal to 2"),
                                ("replay_loops", True, "valid integer"),
                                ("buffer_size", 10**9, "less than or equal to"),
                                ("kl_coefficient", float("nan"), "finite"),
                                ("max_heavy_atoms", 0, "greater than or equal to 1"),
                                ("mutaton_rate", 0.1, "unknown key")):
        config["genetic"] = {"generations": 2, key: value}
        with pytest.raises(ConfigError, match=rf"\[genetic\.{key}\] .*{message}"):
            load_run_config(config)
    config["genetic"] = {"generations": 2, "kl_coefficient": 0.01}
    loaded = load_run_config(config)
    assert loaded.genetic_on and loaded.genetic.buffer_size == 1024 and loaded.genetic.kl_coefficient == 0.01
    for table, message in (({"mode": "scaffold"}, r"mode given but per_mode = 0"),
                           ({"mode_similarity": 0.6}, r"mode_similarity given but per_mode = 0"),
                           ({"per_mode": 2, "mode": "scaffold", "mode_similarity": 0.6},
                            r"mode_similarity given but mode is not 'cluster'"),
                           ({"per_mode": 2, "mode": "leader"}, r"\[genetic\.mode\]")):
        config["genetic"] = {"generations": 2, **table}
        with pytest.raises(ConfigError, match=message):
            load_run_config(config)


def test_a_mode_capped_buffer_keeps_the_c_best_of_each_mode() -> None:
    """per_mode = c: of each scaffold's molecules the c best stay (the rest ranked below the cut), ranked by score
    with the other modes; a molecule better than one kept takes its place."""
    from mara_chem.chem.smiles import canonicalize, murcko_scaffold
    from mara_chem.rl.config import Genetic
    from mara_chem.rl.replay import ModeReplayMemory

    options = Genetic(generations=2, per_mode=2, mode="scaffold", buffer_size=5)
    benzamides = [canonicalize("NC(=O)c1ccccc1" + tail) for tail in ("", "C", "CC", "O", "F")]
    others = [canonicalize(s) for s in ("Cc1c[nH]c2ccccc12", "OCc1c[nH]c2ccccc12", "CC1CCCCC1", "OC1CCNCC1")]
    scores = [0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.4]
    buffer = ModeReplayMemory(options.buffer_size, options.replay_sample_size, options.mode,
                              options.mode_similarity, per_mode=options.per_mode)
    buffer.add(benzamides + others, scores)
    expected = sorted(zip(benzamides + others, scores), key=lambda e: -e[1])
    held: dict[str, int] = {}
    brute = []
    for smiles, score in expected:  # the definition, counted here by scaffold
        scaffold = murcko_scaffold(smiles) or smiles
        if held.get(scaffold, 0) < 2:
            held[scaffold] = held.get(scaffold, 0) + 1
            brute.append((smiles, score))
    assert buffer.entries == brute[:5]
    assert [s for s, _ in buffer.entries] == [benzamides[0], benzamides[1], others[0], others[1], others[2]]
    buffer.add([canonicalize("NC(=O)c1ccccc1Cl")], [0.92])  # displaces the second benzamide
    assert [s for s, _ in buffer.entries][:3] == [benzamides[0], canonicalize("NC(=O)c1ccccc1Cl"), others[0]]


# ------------------------------------------------------------------ off-policy replay on a categorical toy
PRIOR = torch.tensor([0.30, 0.25, 0.18, 0.12, 0.10, 0.05])
REWARD = torch.tensor([0.60, 0.70, 0.80, 0.80, 0.78, 0.85])
SIGMA, TAU, RANK_K = 20.0, 0.78, 0.5
#: the fixed buffer, best first (as the harness's memory orders it): every outcome once, with its reward
BUFFER = sorted(((f"o{j}", float(REWARD[j])) for j in range(len(PRIOR))), key=lambda e: (-e[1], e[0]))


def _q() -> torch.Tensor:
    """The rank sampler's distribution over the outcomes, from 1/(kN + rank) (computed here, not by the module)."""
    n = len(BUFFER)
    weights = torch.tensor([1.0 / (RANK_K * n + r) for r in range(n)], dtype=torch.float64)
    q = torch.zeros(n, dtype=torch.float64)
    for rank, (name, _) in enumerate(BUFFER):
        q[int(name[1:])] = weights[rank] / weights.sum()
    return q


def train_off_policy(options: dict, kl_coefficient: float = 0.0, steps: int = 800, sample: int = 512,
                     lr: float = 0.05) -> torch.Tensor:
    """softmax θ from log π_0, trained only by :class:`genetic.OffPolicyReplay` on BUFFER (Adam, cosine decay)."""
    strategy = build_strategy(**options)
    theta = PRIOR.log().clone().requires_grad_(True)
    optimiser = torch.optim.Adam([{"params": [theta], "lr": lr}, *strategy.optimizer_param_groups()])
    base = [group["lr"] for group in optimiser.param_groups]

    def rows_of(drawn):
        if not drawn:
            return None
        idx = torch.tensor([int(s[1:]) for s, _ in drawn])
        return OnPolicyRows(torch.log_softmax(theta, 0)[idx], PRIOR.log()[idx], REWARD[idx],
                            canonical=[s for s, _ in drawn])

    replay = genetic.OffPolicyReplay(1, sample, RANK_K, kl_coefficient, StrategyInputs(strategy),
                                     LearningStep(strategy, optimiser), random.Random(0), rows_of)
    for step in range(steps):
        frac = max(0.0, 2.0 * step / steps - 1.0)
        for group, lr0 in zip(optimiser.param_groups, base):
            group["lr"] = lr0 * 0.5 * (1.0 + math.cos(math.pi * frac))
        assert len(replay(BUFFER)) == 1
    return torch.softmax(theta.detach(), 0)


def g_beta(log_prior: torch.Tensor) -> torch.Tensor:
    return torch.softmax(log_prior.double() + SIGMA * REWARD.double(), 0).float()


def g_mara() -> torch.Tensor:
    high = REWARD >= TAU
    z = int(torch.argmax(torch.where(high, PRIOR, torch.zeros_like(PRIOR))))
    log_w = PRIOR.double().log() + SIGMA * REWARD.double()
    return torch.softmax(torch.where(high, log_w[z], log_w), 0).float()


def tb_with_prior_kl(c: float, q: torch.Tensor) -> torch.Tensor:
    """Stationary point of E_q[(log Z + log π − σR)²] + c·E_q[log π − log π0] over softmax π and log Z: with
    u_k = log Z + log π_k − σR_k the conditions are Σ q u = 0 and q_k(2u_k + c) = c·π_k, i.e.
    log π_k − b_k·π_k = σR_k − log Z − c/2 with b_k = c/(2q_k): π_k = −W(−b_k e^{a_k})/b_k (Lambert W, principal
    branch), log Z found by bisection so that Σ π = 1."""
    reward = REWARD.double()
    b = c / (2 * q)

    def pi(log_z: float) -> torch.Tensor:
        a = SIGMA * reward - log_z - c / 2
        return torch.as_tensor(-lambertw((-b * torch.exp(a)).numpy()).real) / b

    lo, hi = float(SIGMA * reward.max()) - 5, float(SIGMA * reward.max()) + 5
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if float(pi(mid).sum()) > 1 else (lo, mid)
    out = pi(0.5 * (lo + hi))
    assert bool((b * out < 1).all())  # the principal branch is the minimum here
    return out.float()


def l1(p: torch.Tensor, q: torch.Tensor) -> float:
    return float((p - q).abs().sum())


@pytest.fixture(autouse=False)
def one_thread():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def test_reference_optima_are_far_apart() -> None:
    """The tolerances below discriminate: the off-policy optima differ by far more."""
    prior_free = g_beta(torch.zeros(len(PRIOR)))
    assert l1(g_beta(PRIOR.log()), prior_free) > 0.3
    assert l1(g_beta(PRIOR.log()), g_mara()) > 0.15
    assert l1(tb_with_prior_kl(0.5, _q()), prior_free) > 0.03


@pytest.mark.usefixtures("one_thread")
def test_dap_with_log_z_off_policy_reaches_g_beta() -> None:
    """Trajectory balance is minimised by its target under any full-support sampling: rank sampling included."""
    p = train_off_policy(dict(type="dap", sigma=SIGMA, learn_log_z=True, log_z_lr=1.0))
    assert l1(p, g_beta(PRIOR.log())) < 2e-3


@pytest.mark.usefixtures("one_thread")
def test_mara_with_log_z_off_policy_reaches_the_mara_optimum() -> None:
    p = train_off_policy(dict(type="mara", sigma=SIGMA, tau=TAU, learn_log_z=True, log_z_lr=1.0))
    assert l1(p, g_mara()) < 2e-3


@pytest.mark.usefixtures("one_thread")
def test_trajectory_balance_without_the_prior_off_policy_reaches_exp_sigma_r() -> None:
    p = train_off_policy(dict(type="dap", sigma=SIGMA, learn_log_z=True, log_z_lr=1.0, prior_in_target=False))
    assert l1(p, g_beta(torch.zeros(len(PRIOR)))) < 2e-3


@pytest.mark.usefixtures("one_thread")
def test_the_prior_kl_term_moves_the_optimum_where_the_sampling_weights_say() -> None:
    """Off-policy, c·mean(log π − log π0) is no longer zero in expectation: its fixed point depends on the rank
    sampler's q exactly as the stationarity conditions predict (Lambert W)."""
    p = train_off_policy(dict(type="dap", sigma=SIGMA, learn_log_z=True, log_z_lr=1.0, prior_in_target=False),
                         kl_coefficient=0.5)
    assert l1(p, tb_with_prior_kl(0.5, _q())) < 3e-3


def _every_strategy() -> list[dict]:
    from mara_chem.plugins import STRATEGIES
    from mara_chem.rl.strategies import list_strategies

    return [{"type": name, **STRATEGIES.get(name).example_params} for name in list_strategies()] + [
        {"type": "dap", "learn_log_z": True}, {"type": "dap", "learn_log_z": True, "prior_in_target": False},
        {"type": "ips_dap", "outcome": "scaffold", "frequency": "window"}, {"type": "reinforce", "kl": "forward"}]


@pytest.mark.parametrize("strategy", _every_strategy(), ids=lambda s: "-".join(f"{v}" for v in s.values()))
def test_genetic_exploration_composes_with_every_strategy(tmp_path: Path, strategy: dict) -> None:
    """Two steps of batch 16, one generation, one off-policy update: every strategy takes its two optimiser steps a
    step and its finite losses, within the budget."""
    config = golden_runs.config(tmp_path, strategy)
    config["parameters"].update(batch_size=16)
    config["stage"][0].update(max_steps=2, min_steps=2)
    config["genetic"] = {"generations": 1, "offspring": 4, "replay_loops": 1, "replay_sample_size": 8,
                         "kl_coefficient": 0.01}
    runner = StagedLearning(load_run_config(config), overwrite=True, quiet=True)
    losses = []
    learn = runner.update.learn.__call__
    runner.update.learn = lambda batch, extra=None: (lambda out: (losses.append(float(out.loss.detach())), out)[1])(
        learn(batch, extra))
    runner.genetic.replay.learn = runner.update.learn
    result = runner.run()
    assert result.steps == 2 and len(losses) == 4 and all(math.isfinite(v) for v in losses)
    assert len(runner.oracle_log.read()) == result.oracle_calls <= golden_runs.BUDGET


def test_without_the_on_policy_update_the_agent_learns_only_off_policy(tmp_path: Path) -> None:
    """Genetic GFN's scheme (``on_policy_update = false``): every optimiser step of a step is an off-policy one (its
    rows drawn from the buffer, none marked as replay), the summary's likelihood columns are empty, and the
    combination with augmented memory is refused."""
    config = golden_runs.config(tmp_path, {"type": "dap", "sigma": 50, "learn_log_z": True, "prior_in_target": False,
                                           "log_z_init": 5.0, "log_z_lr": 0.1})
    config["parameters"].update(batch_size=16)
    config["stage"][0].update(max_steps=2, min_steps=2)
    config["genetic"] = {"generations": 1, "offspring": 4, "replay_loops": 3, "replay_sample_size": 8,
                         "kl_coefficient": 0.01, "on_policy_update": False}
    runner = StagedLearning(load_run_config(config), overwrite=True, quiet=True)
    batches = []
    runner.strategy.register_forward_pre_hook(lambda module, args: batches.append(args[0]))
    buffered: list[set[str]] = []
    replay = runner.genetic.replay.__call__
    runner.genetic.replay = lambda buffer: (buffered.append({s for s, _ in buffer}), replay(buffer))[1]
    result = runner.run()
    assert result.steps == 2 and len(batches) == 6 and len(buffered) == 2
    assert all(len(b.agent_logp) == 8 and not b.is_replay.any() for b in batches)
    with open(tmp_path / "summary_1.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows and all(row["Agent"] in ("", "nan") for row in rows)
    config["parameters"]["augmentation_rounds"] = 1
    with pytest.raises(ConfigError, match="on_policy_update = false with .*augmentation_rounds"):
        load_run_config(config)


@pytest.mark.parametrize("cap", [{}, {"per_mode": 2, "mode_similarity": 0.5}], ids=["ranked", "per-mode"])
def test_a_resumed_genetic_run_is_the_uninterrupted_run(tmp_path: Path, cap: dict) -> None:
    """The buffer (with its mode clusters) and the random streams are in the checkpoint: 2 steps, then a resume
    to 4, write the oracle log (sources included) that 4 steps in one go write."""
    table = {"generations": 1, "offspring": 6, "replay_loops": 1, "replay_sample_size": 8, **cap}

    def config(run_dir: Path, steps: int) -> dict:
        out = _config(run_dir, table, steps=steps)
        out["stage"][0]["min_steps"] = 4  # a resume may raise max_steps only
        return load_run_config(out)

    StagedLearning(config(tmp_path / "whole", 4), overwrite=True, quiet=True).run()
    StagedLearning(config(tmp_path / "parts", 2), overwrite=True, quiet=True).run()
    resumed = StagedLearning(config(tmp_path / "parts", 4), quiet=True)
    assert len(resumed.genetic.buffer.entries) > 0  # restored from the checkpoint
    resumed.run()
    if cap:
        modes = resumed.genetic.buffer.modes
        assert max(modes.count(m) for m in modes) <= 2
    whole = (tmp_path / "whole" / "oracle_log.csv").read_bytes()
    assert b",genetic," in whole and (tmp_path / "parts" / "oracle_log.csv").read_bytes() == whole


def test_the_prior_runs_once_per_replayed_molecule_and_its_cached_values_are_the_priors(tmp_path: Path) -> None:
    """The prior is fixed: a molecule replayed again takes its stored log-likelihood, which is the prior's own."""
    table = {"generations": 1, "offspring": 6, "replay_loops": 2, "replay_sample_size": 8}
    runner = StagedLearning(load_run_config(_config(tmp_path / "run", table, steps=2)), overwrite=True, quiet=True)
    runner.run()
    exploration = runner.genetic
    cached = dict(exploration.prior_logp)
    assert cached and set(cached) <= {s for s, _ in exploration.buffer.entries}
    smiles = list(cached)[:5]
    with torch.no_grad():
        fresh = runner.prior.log_likelihood(smiles).tolist()
    assert np.allclose([cached[s] for s in smiles], fresh, rtol=0, atol=1e-4)

    rows_seen: list[int] = []
    real = exploration.prior.sequence_log_likelihood
    exploration.prior.sequence_log_likelihood = lambda tokens, **kw: (rows_seen.append(len(tokens)), real(tokens, **kw))[1]
    drawn = [(s, 0.5) for s in smiles] + [("CCOC(=O)c1ccc(N)cc1", 0.2), ("CCOC(=O)c1ccc(N)cc1", 0.2)]
    first = exploration._rows(drawn)
    second = exploration._rows(drawn)
    assert rows_seen == [1]  # only the one new molecule, once
    assert torch.equal(first.prior_logp, second.prior_logp)
    assert exploration.state_dict()["prior_logp"]["CCOC(=O)c1ccc(N)cc1"] == pytest.approx(
        float(real(runner.prior.vocabulary.encode_batch(["CCOC(=O)c1ccc(N)cc1"]))[0]), abs=1e-4)


def test_replayed_rows_run_each_molecule_once_and_equal_the_full_batch(tmp_path: Path) -> None:
    """A drawn molecule repeated in the batch is one row through the agent, repeated: every row's log-likelihood and
    the agent's gradient of a loss over the rows are those of the padded full batch (every row its own pass)."""
    table = {"generations": 1, "offspring": 6, "replay_loops": 1, "replay_sample_size": 8}
    runner = StagedLearning(load_run_config(_config(tmp_path / "run", table, steps=1)), overwrite=True, quiet=True)
    runner.run()
    exploration = runner.genetic
    names = [s for s, _ in exploration.buffer.entries[:4]]
    drawn = [(s, 0.5) for s in names + names[:2] + names[:1]]  # repeats, as rank draws with replacement give
    seen: list[int] = []
    real = exploration.agent.sequence_log_likelihood
    exploration.agent.sequence_log_likelihood = lambda tokens, **kw: (seen.append(len(tokens)), real(tokens, **kw))[1]
    rows = exploration._rows(drawn)
    exploration.agent.sequence_log_likelihood = real
    assert seen == [len(names)] and list(rows.canonical) == [s for s, _ in drawn]
    weights = torch.arange(1.0, len(drawn) + 1)
    params = list(runner.agent.network.parameters())
    grads = torch.autograd.grad((rows.agent_logp * weights).sum(), params)
    full = real(runner.agent.vocabulary.encode_batch([s for s, _ in drawn]))  # the padded pass, row by row
    assert torch.allclose(rows.agent_logp.detach(), full.detach(), rtol=0, atol=1e-4)
    for got, expected in zip(grads, torch.autograd.grad((full * weights).sum(), params)):
        assert torch.allclose(got, expected, rtol=1e-3, atol=1e-5 * float(expected.abs().max()))
    fresh = runner.prior.sequence_log_likelihood(runner.prior.vocabulary.encode_batch(names))
    assert np.allclose(rows.prior_logp[:len(names)].tolist(), fresh.tolist(), rtol=0, atol=1e-4)
