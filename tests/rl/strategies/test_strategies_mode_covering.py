"""Closed-form checks of the mode-covering strategies: MIPS, DMPO and Re:Max replay (docs/strategies.md).

The toy has outcomes reached by several trajectories, as a molecule is by its spellings: a two-token
autoregressive policy over V = 4 tokens, π(a, b) = softmax(θ₁)_a · softmax(θ₂[a])_b, whose outcome is the
unordered pair {a, b}. Its 10 outcomes are the 4 doubles (one trajectory each) and the 6 mixed pairs (two:
ab and ba). Batches are sampled from the policy and fed through the one strategy-input builder, the outcome's
key standing in for a canonical SMILES. Reference optima are computed here from their formulas:

- MIPS: p(o) ∝ R(o), with a group of G = 4 < 10 outcomes, where frequency IPS (p̂ = n_o/G) is far off it;
- DMPO: π(τ) ∝ R(τ) per trajectory, so p(o) ∝ |T(o)|·R(o) (|T| = 1 for a double, 2 for a mixed pair);
- Re:Max: each stored mode is replayed equally often, however often it was found.
"""

from __future__ import annotations

import itertools
import random

import pytest
import torch

from mara_chem.rl.marginal import extra_spellings, spelling_marginal
from mara_chem.rl.replay import ModeReplayMemory, ReplayMemory
from mara_chem.rl.strategies import build_strategy, dmpo_loss, dmpo_targets, trajectory_marginal
from mara_chem.rl.strategy_inputs import OnPolicyRows, StrategyInputs
from tests.paths import BUNDLED_PRIOR

V = 4
PAIRS = [(a, b) for a in range(V) for b in range(V)]  # trajectories, index a·V + b
OUTCOMES = sorted({tuple(sorted(t)) for t in PAIRS})  # 10 unordered pairs
OUTCOME_OF = torch.tensor([OUTCOMES.index(tuple(sorted(t))) for t in PAIRS])
N_TRAJ = torch.bincount(OUTCOME_OF, minlength=len(OUTCOMES)).double()  # |T(o)|: 1 or 2
REWARD = torch.tensor([0.9, 0.2, 0.5, 0.3, 1.0, 0.1, 0.6, 0.4, 0.8, 0.7], dtype=torch.float64)  # per outcome


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


class TwoTokenPolicy(torch.nn.Module):
    """π(a, b) = softmax(θ₁)_a·softmax(θ₂[a])_b, started uniform; and a learned backward model
    P_B(first token = a | {a, b}) (a logit per trajectory, normalised over the outcome's trajectories)."""

    def __init__(self) -> None:
        super().__init__()
        self.first = torch.nn.Parameter(torch.zeros(V))
        self.second = torch.nn.Parameter(torch.zeros(V, V))
        self.backward_logits = torch.nn.Parameter(torch.zeros(V * V))

    def trajectory_logp(self) -> torch.Tensor:
        """log π(τ) of the V² trajectories."""
        return (torch.log_softmax(self.first, 0)[:, None] + torch.log_softmax(self.second, 1)).reshape(-1)

    def outcome_probability(self) -> torch.Tensor:
        """Exact p(o) = Σ_{τ → o} π(τ)."""
        p = self.trajectory_logp().detach().double().exp()
        return torch.zeros(len(OUTCOMES), dtype=torch.float64).index_add_(0, OUTCOME_OF, p)

    def backward_logp(self) -> torch.Tensor:
        """log P_B(τ | o(τ)) of the V² trajectories."""
        logits = self.backward_logits
        norm = torch.zeros(len(OUTCOMES)).index_add_(0, OUTCOME_OF, logits.exp()).log()
        return logits - norm[OUTCOME_OF]


def l1(p: torch.Tensor, q: torch.Tensor) -> float:
    return float((p.double() - q.double()).abs().sum())


def train(strategy_options: dict, group: int, steps: int, marginal: str | None = None, lr: float = 0.05,
          seed: int = 0) -> torch.Tensor:
    """Train the toy through ``build_strategy`` and ``StrategyInputs``; return its exact p(o).

    ``marginal``: MIPS's estimate p̂(o) per row, ``"backward"`` (π(τ)/P_B(τ | o), P_B fitted by maximum
    likelihood on the sampled trajectories) or ``"spellings"`` (Σ π over every trajectory of o, through
    :func:`spelling_marginal` with every spelling in the batch's set)."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    policy = TwoTokenPolicy()
    strategy = build_strategy(**strategy_options)
    inputs = StrategyInputs(strategy)
    optimiser = torch.optim.Adam(policy.parameters(), lr=lr)
    keys = [f"{a}{b}" for a, b in OUTCOMES]
    score = (REWARD / REWARD.max()).float()
    for _ in range(steps):
        logp_all = policy.trajectory_logp()
        tau = torch.multinomial(logp_all.detach().exp(), group, replacement=True, generator=gen)
        outcome = OUTCOME_OF[tau]
        logp = logp_all[tau]
        backward = policy.backward_logp()[tau]

        def estimate() -> torch.Tensor:
            if marginal == "backward":
                return trajectory_marginal(logp, backward)
            spelt = {f"{a}{b}": float(logp_all[a * V + b].detach()) for a, b in PAIRS}
            return spelling_marginal([keys[o] for o in outcome.tolist()], [f"{t // V}{t % V}" for t in tau.tolist()],
                                     logp, lambda spellings: torch.tensor([spelt[s] for s in spellings]),
                                     lambda m: [m, m[::-1]])

        rows = OnPolicyRows(logp, torch.zeros_like(logp), score[outcome], canonical=[keys[o] for o in outcome.tolist()])
        batch = inputs.build(rows, marginal_probability=estimate if marginal else None)
        loss = strategy(batch).loss
        if marginal == "backward":
            loss = loss - backward.mean()  # the backward model's maximum likelihood on the sampled trajectories
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return policy.outcome_probability()


TARGET = REWARD / REWARD.sum()
PER_TRAJECTORY = N_TRAJ * REWARD / (N_TRAJ * REWARD).sum()  # DMPO's fixed point at the outcome level


def test_the_reference_optima_are_far_apart():
    assert l1(TARGET, PER_TRAJECTORY) > 0.3


# ---------------------------------------------------------------------------------------------------- MIPS
def test_mips_with_a_learned_backward_model_reaches_p_proportional_to_r_where_frequency_ips_does_not():
    """Group G = 4 against 10 outcomes: n_o/G cannot see p(o) (almost every outcome is seen once); the
    marginal π(τ)/P_B(τ | o) can."""
    mips = train({"type": "mips_grpo", "ips_eps": 1e-3}, group=4, steps=2000, marginal="backward", lr=0.02)
    frequency = train({"type": "ips_grpo", "ips_eps": 1e-3}, group=4, steps=2000, lr=0.02)
    assert l1(mips, TARGET) < 0.06
    assert l1(frequency, TARGET) > 0.5


def test_mips_with_every_spelling_summed_reaches_p_proportional_to_r():
    p = train({"type": "mips_grpo", "ips_eps": 1e-3}, group=4, steps=2000, marginal="spellings", lr=0.02)
    assert l1(p, TARGET) < 0.06


def test_the_trajectory_marginal_is_exact_with_the_posterior_as_backward_model():
    policy = TwoTokenPolicy()
    with torch.no_grad():
        policy.first.copy_(torch.tensor([0.3, -1.0, 0.8, 0.1]))
        policy.second.copy_(torch.randn(V, V, generator=torch.Generator().manual_seed(3)))
    logp = policy.trajectory_logp().detach()
    p_outcome = policy.outcome_probability()
    posterior = logp.double() - p_outcome[OUTCOME_OF].log()  # log π(τ | o)
    assert torch.allclose(trajectory_marginal(logp, posterior.float()).double(), p_outcome[OUTCOME_OF], rtol=1e-5)
    # any other backward model is off, too high on average in log space (by KL(π(·|o) ‖ P_B))
    uniform = -N_TRAJ[OUTCOME_OF].log().float()
    estimate = trajectory_marginal(logp, uniform).double()
    mixed = N_TRAJ[OUTCOME_OF] > 1
    weights = posterior.exp()[mixed]
    gap = (estimate[mixed].log() - p_outcome[OUTCOME_OF][mixed].log())
    assert float((weights * gap).sum()) > 0 and not torch.allclose(estimate[mixed], p_outcome[OUTCOME_OF][mixed])


def test_mips_without_an_estimate_uses_the_sampled_trajectory_alone():
    strategy = build_strategy(type="mips_grpo", ips_eps=1e-3)
    logp = torch.log(torch.tensor([0.5, 0.2, 0.05, 0.25]))
    rows = OnPolicyRows(logp, torch.zeros(4), torch.tensor([1.0, 0.5, 0.5, 0.2]), canonical=["a", "b", "c", "d"])
    batch = StrategyInputs(strategy).build(rows, marginal_probability=lambda: logp.exp())
    with_estimate = strategy(batch).rewards
    batch.outcome_freq = None
    assert torch.allclose(strategy(batch).rewards, with_estimate)
    assert torch.allclose(with_estimate, torch.tensor([2.0, 2.5, 10.0, 0.8]))


def test_mips_refuses_what_its_marginal_cannot_mean():
    with pytest.raises(ValueError, match="outcome = 'scaffold'"):
        build_strategy(type="mips_grpo", outcome="scaffold")
    with pytest.raises(ValueError, match="frequency"):
        build_strategy(type="mips_grpo", frequency="window")
    strategy = build_strategy(type="mips_grpo")
    rows = OnPolicyRows(torch.zeros(2), torch.zeros(2), torch.ones(2), canonical=["a", "b"])
    with pytest.raises(ValueError, match="marginal outcome probability"):
        StrategyInputs(strategy).build(rows)


@pytest.fixture(scope="module")
def prior():
    from mara_chem.models.prior_file import load_prior

    return load_prior("moses-gru-2x256")


def test_spelling_marginal_sums_the_distinct_spellings_and_is_a_lower_bound(prior):
    from mara_chem.chem.smiles import canonicalize

    def logp_of(smiles: list[str]) -> torch.Tensor:
        with torch.no_grad():
            return prior.sequence_log_likelihood(prior.vocabulary.encode_batch(smiles)).float()

    molecule = canonicalize("CCOc1ccccc1C(N)=O")
    other = "O=C(N)c1ccccc1OCC"
    assert canonicalize(other) == molecule and other != molecule
    raw = [molecule, molecule, other, "c1ccc2[nH]ccc2c1", "CC1CCN(C"]
    canonical = [molecule, molecule, molecule, canonicalize(raw[3]), None]
    sampled = logp_of(raw)
    batch_only = spelling_marginal(canonical, raw, sampled, logp_of, lambda m: extra_spellings(m, 0))
    assert torch.allclose(batch_only[:3], torch.logsumexp(sampled[[0, 2]].double(), 0).exp().float().expand(3))
    assert batch_only[3] == pytest.approx(float(sampled[3].exp()), rel=1e-5)
    assert batch_only[4] == pytest.approx(float(sampled[4].exp()), rel=1e-5)  # an invalid row: its own outcome
    spellings = extra_spellings(molecule, 6)
    assert spellings[0] == molecule and all(canonicalize(s) == molecule for s in spellings)
    assert spellings == extra_spellings(molecule, 6)  # seeded by the molecule
    wider = spelling_marginal(canonical, raw, sampled, logp_of, lambda m: extra_spellings(m, 6))
    distinct = sorted(set(spellings) | {other})
    assert wider[0] == pytest.approx(float(torch.logsumexp(logp_of(distinct).double(), 0).exp()), rel=1e-4)
    assert bool((wider >= batch_only * (1 - 1e-6)).all()) and bool((wider <= 1).all())


# ---------------------------------------------------------------------------------------------------- DMPO
def test_dmpo_group_target_is_reward_proportional_and_its_gradient_is_p_minus_q():
    rewards = torch.tensor([0.2, 0.6, 0.0, 0.2, 0.9, 0.4])
    assert torch.allclose(dmpo_targets(rewards[:4]), torch.tensor([0.2, 0.6, 0.0, 0.2]))
    assert torch.allclose(dmpo_targets(rewards[:4], temperature=0.5), torch.tensor([0.04, 0.36, 0.0, 0.04]) / 0.44)
    assert torch.equal(dmpo_targets(torch.zeros(3)), torch.zeros(3))
    agent_logp = torch.tensor([-3.0, -1.0, -2.0, -4.0, -0.5, -1.5], requires_grad=True)
    is_replay = torch.tensor([False] * 4 + [True] * 2)  # replay rows: neither target nor gradient
    strategy = build_strategy(type="dmpo")
    rows = OnPolicyRows(agent_logp[:4], torch.zeros(4), rewards[:4], canonical=["a", "b", "c", "a"])
    from mara_chem.rl.strategy_inputs import Rows

    batch = StrategyInputs(strategy).build(rows, Rows(agent_logp[4:], torch.zeros(2), rewards[4:]))
    assert torch.equal(batch.is_replay, is_replay)
    out = strategy(batch)
    q = torch.tensor([0.2, 0.6, 0.0, 0.2])
    p = torch.softmax(agent_logp.detach()[:4], 0)
    assert float(out.loss.detach()) == pytest.approx(float(-(q * p.log()).sum()), rel=1e-6)
    out.loss.backward()
    assert torch.allclose(agent_logp.grad[:4], p - q, atol=1e-6)
    assert torch.equal(agent_logp.grad[4:], torch.zeros(2))
    zero = dmpo_loss(agent_logp.detach().requires_grad_(True), torch.zeros(6))
    assert float(zero) == 0.0


def test_dmpo_matches_rewards_per_trajectory_not_per_outcome():
    """Mode-covering over trajectories: a mixed pair (two spellings) ends with twice the mass of a double of
    the same reward, p(o) ∝ |T(o)|·R(o)."""
    p = train({"type": "dmpo"}, group=16, steps=1000)
    assert l1(p, PER_TRAJECTORY) < 0.02
    assert l1(p, TARGET) > 0.3


def test_dmpo_temperature_sharpens_the_fixed_point():
    p = train({"type": "dmpo", "temperature": 0.5}, group=16, steps=1000)
    sharp = N_TRAJ * REWARD**2
    assert l1(p, sharp / sharp.sum()) < 0.03


def test_dmpo_refuses_beta_without_its_kl_term():
    with pytest.raises(ValueError, match="beta given but kl = 'none'"):
        build_strategy(type="dmpo", beta=0.1)
    assert build_strategy(type="dmpo", kl="forward", beta=0.1).needs_prior_samples


# -------------------------------------------------------------------------------------------------- Re:Max
# two scaffolds: benzamides (mode A, eight molecules found five times over, high scores) and an indole (mode B, once)
MODE_A = ["NC(=O)c1ccccc1" + tail for tail in ("", "C", "CC", "O", "F", "Cl", "N", "OC")]
MODE_B = "Cc1c[nH]c2ccccc12"


def test_remax_keeps_one_example_per_mode_and_replays_the_modes_uniformly():
    from mara_chem.chem.smiles import canonicalize

    remax = ModeReplayMemory(memory_size=10, sample_size=1, mode="scaffold")
    ranked = ReplayMemory(memory_size=10, sample_size=1)
    a_mols = [canonicalize(s) for s in MODE_A]
    b_mol = canonicalize(MODE_B)
    for memory in (remax, ranked):
        for round_ in range(5):
            memory.add(a_mols, [0.9 - 0.01 * i - 0.001 * round_ for i in range(len(a_mols))])
        memory.add([b_mol], [0.6])
    assert [s for s, _ in remax.entries] == [a_mols[0], b_mol]  # the best example of each mode
    assert len(set(remax.modes)) == 2
    rng = random.Random(0)
    draws = 4000
    counts = {s: 0 for s, _ in remax.entries}
    for _ in range(draws):
        (picked, _), = remax.sample(rng)
        counts[picked] += 1
    for count in counts.values():  # each of the M = 2 modes with probability k/M = 1/2 (4σ ≈ 0.032)
        assert abs(count / draws - 0.5) < 0.032
    hits_b = sum(rng_pick[0] == b_mol for rng_pick in (ranked.sample(rng)[0] for _ in range(draws)))
    assert hits_b / draws < 0.15  # the score-ranked memory replays the indole 1 time in 9 at most


def test_remax_sampling_without_replacement_gives_every_mode_k_over_m():
    remax = ModeReplayMemory(memory_size=10, sample_size=2, mode="scaffold")
    molecules = ["c1ccccc1C", "C1CCCCC1C", "c1ccncc1C", "C1CCOC1C"]  # four scaffolds
    remax.add(molecules, [0.9, 0.5, 0.4, 0.3])
    rng = random.Random(1)
    counts = dict.fromkeys((s for s, _ in remax.entries), 0)
    for _ in range(3000):
        picked = [s for s, _ in remax.sample(rng)]
        assert len(set(picked)) == 2
        for s in picked:
            counts[s] += 1
    assert all(abs(c / 3000 - 0.5) < 0.04 for c in counts.values())


def test_remax_min_score_cap_and_state():
    remax = ModeReplayMemory(memory_size=2, sample_size=1, mode="cluster", cluster_similarity=0.4, min_score=0.5)
    remax.add(["c1ccccc1CCO", "c1ccccc1CCN", "C1CCNCC1", "CCCCCCO"], [0.7, 0.8, 0.4, 0.6])
    assert [v for _, v in remax.entries] == [0.8, 0.6]  # 0.4 is below min_score; one example per cluster
    again = ModeReplayMemory(memory_size=2, sample_size=1, mode="cluster", cluster_similarity=0.4, min_score=0.5)
    again.load_state_dict(remax.state_dict())
    assert again.entries == remax.entries and again.modes == remax.modes
    again.add(["c1ccccc1CCC"], [0.9])  # the benzene cluster's leader persists: it replaces that mode's example
    assert [s for s, _ in again.entries] == ["c1ccccc1CCC", "CCCCCCO"]


@pytest.mark.parametrize(("inception", "message"), [
    ({"mode": "cluster"}, "mode given but replay = 'score'"),
    ({"replay": "remax", "mode_similarity": 0.5}, "mode_similarity given but mode is not 'cluster'"),
    ({"replay": "remax", "deduplicate": False}, "deduplicate = false"),
    ({"replay": "modes"}, "replay"),
])
def test_remax_run_file_options_are_validated(inception, message):
    from mara_chem.rl.config import ConfigError, load_run_config

    table = {"run_type": "staged_learning", "parameters": {"prior_file": "p", "agent_file": "a"},
             "inception": inception,
             "stage": [{"max_steps": 1, "scoring": {"type": "geometric_mean", "component": [
                 {"QED": {"endpoint": [{"name": "QED", "weight": 1}]}}]}}]}
    with pytest.raises(ConfigError, match=message):
        load_run_config(table)
    table["inception"] = {"replay": "remax", "mode": "cluster", "mode_similarity": 0.5, "min_score": 0.7}
    assert load_run_config(table).inception.mode_similarity == 0.5


# ------------------------------------------------------------------------------------------ through the loop
def _loop(tmp_path, table: dict, inception: dict | None = None):
    from mara_chem.rl.config import load_run_config
    from mara_chem.rl.loop import StagedLearning

    prior_file = BUNDLED_PRIOR
    config = {"run_type": "staged_learning", "device": "cpu", "seed": 1,
              "parameters": {"prior_file": str(prior_file), "agent_file": str(prior_file),
                             "summary_csv_prefix": str(tmp_path / "run" / "summary"), "batch_size": 8},
              "learning_strategy": table,
              "stage": [{"max_steps": 1, "scoring": {"type": "geometric_mean", "component": [
                  {"QED": {"endpoint": [{"name": "QED", "weight": 1}]}}]}}]}
    if inception is not None:
        config["inception"] = inception
    return StagedLearning(load_run_config(config), quiet=True)


def test_the_loop_feeds_mips_the_spelling_marginal_and_builds_re_max_memory(tmp_path):
    from mara_chem.chem.smiles import canonicalize

    learning = _loop(tmp_path, {"type": "mips_grpo", "marginal_spellings": 3},
                     {"memory_size": 20, "sample_size": 4, "replay": "remax", "mode": "scaffold"})
    assert isinstance(learning.memory, ModeReplayMemory)
    seen, scored = [], []
    learning.strategy.register_forward_hook(lambda module, args, out: seen.append(args[0]))
    spelling_logp = learning.update.spelling_logp

    def recorded(smiles: list[str]) -> torch.Tensor:  # the loop's own scorer, its calls recorded
        out = spelling_logp(smiles)
        scored.extend(zip(smiles, out.tolist()))
        return out

    learning.update.spelling_logp = recorded
    learning.run()
    batch, canonical = seen[0], learning.update.last.canonical
    on_policy = batch.on_policy
    own = batch.agent_logp.detach()[on_policy].double().exp()
    marginal = batch.outcome_freq[on_policy].double()
    extra = {}
    for smiles, logp in scored:
        extra.setdefault(canonicalize(smiles), []).append(logp)
    assert scored and set(extra) <= set(canonical) and all(len(v) <= 3 for v in extra.values())
    for i, molecule in enumerate(canonical):
        bound = own[i] + sum(torch.tensor(extra.get(molecule, []), dtype=torch.float64).exp())
        assert own[i] * (1 - 1e-5) <= marginal[i] <= bound * (1 + 1e-5) + 1e-30
    assert len(set(learning.memory.modes)) == len(learning.memory)


def test_a_recorded_inception_table_validates_again():
    """run.json records every key with its default; reading it back for a resume must not refuse those defaults."""
    from mara_chem.rl.config import Inception

    recorded = Inception().model_dump(mode="json")
    assert Inception.model_validate(recorded) == Inception()
