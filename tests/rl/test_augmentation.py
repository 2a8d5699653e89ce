"""Augmented memory (mara_chem/rl/augmentation.py): no oracle call, rounds = 0 builds no augmentation at all, a random
spelling is scored with its own likelihoods, MARA's anchor and IPS's outcomes stay the step's, selective purge."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest
import torch

from mara_chem.models.prior_file import load_prior
from mara_chem.rl import augmentation
from mara_chem.rl.config import ConfigError, load_run_config
from mara_chem.rl.learning_step import LearningStep
from mara_chem.rl.loop import StagedLearning
from mara_chem.rl.replay import ReplayMemory
from mara_chem.rl.strategies import StrategyBatch, build_strategy
from mara_chem.rl.strategy_inputs import StrategyInputs
from mara_chem.scoring.scorer import Scorer

from tests import golden_runs


def _final_weights(run_dir: Path) -> dict[str, torch.Tensor]:
    return load_prior(run_dir / "agent_stage1.prior").network.state_dict()


@pytest.mark.parametrize("name", ["dap", "mara_memory"])
def test_zero_rounds_builds_no_augmentation(tmp_path: Path, monkeypatch, name: str) -> None:
    """With ``augmentation_rounds = 0`` the loop never builds augmented memory, so the run is the plain one (whose
    oracle log ``test_same_oracle_log`` pins)."""
    def refuse(*args, **kwargs):
        raise AssertionError("augmented memory was built with augmentation_rounds = 0")

    monkeypatch.setattr(augmentation.AugmentedMemory, "__init__", refuse)
    monkeypatch.setattr(augmentation.AugmentedMemory, "__call__", refuse)
    config = golden_runs.config(tmp_path, golden_runs.STRATEGIES[name])
    config["parameters"]["augmentation_rounds"] = 0
    runner = StagedLearning(load_run_config(config), overwrite=True, quiet=True)
    result = runner.run()
    assert runner.augmentation is None and result.oracle_calls == golden_runs.BUDGET


@pytest.mark.parametrize("name", ["dap", "mara_memory", pytest.param("ips_grpo", marks=pytest.mark.slow)])
def test_augmentation_spends_no_oracle_call(tmp_path: Path, monkeypatch, name: str) -> None:
    """Every molecule the scorer sees is a row of the oracle log, and the rounds do run (2 more optimiser steps a
    step, and a final agent other than the plain run's)."""
    scored: list[str] = []
    original = Scorer.__call__

    def counting(self, smiles, mols=None):
        scored.extend(smiles)
        return original(self, smiles, mols)

    monkeypatch.setattr(Scorer, "__call__", counting)
    golden = golden_runs
    config = golden.config(tmp_path, golden.STRATEGIES[name])
    config["parameters"]["augmentation_rounds"] = 2
    runner = StagedLearning(load_run_config(config), overwrite=True, quiet=True)
    steps = []
    step = runner.optimizer.step
    runner.optimizer.step = lambda *a, **k: (steps.append(1), step(*a, **k))[1]
    result = runner.run()
    rows = runner.oracle_log.read()
    assert [r["smiles"] for r in rows] == scored and len(rows) == result.oracle_calls == golden.BUDGET
    assert len(steps) == 3 * result.steps
    # the extra updates change the result: the final agent is not the plain run's, beyond any float tolerance
    plain_dir = tmp_path / "plain"
    StagedLearning(load_run_config(golden.config(plain_dir, golden.STRATEGIES[name])), overwrite=True, quiet=True).run()
    plain = _final_weights(plain_dir)
    assert any(not torch.allclose(tensor, plain[key], rtol=1e-3, atol=1e-5)
               for key, tensor in _final_weights(tmp_path).items())


@pytest.fixture(scope="module")
def prior():
    return load_prior("moses-gru-2x256")


MOLECULES = ["CC(=O)Nc1ccc(O)cc1", "c1ccc2[nH]ccc2c1", None, "CCN(CC)CC(=O)Nc1c(C)cccc1C", "O=C(O)c1ccccc1O"]


def _step_update(prior, strategy, rng: random.Random):
    """A step's update on MOLECULES (canonical spellings; an invalid row) with scores, through ``strategy``."""
    vocabulary = prior.vocabulary
    tokens = vocabulary.encode_batch([m or "C1CC" for m in MOLECULES])
    agent = copy.deepcopy(prior)
    agent.network.train()
    with torch.no_grad():
        prior_logp = prior.sequence_log_likelihood(tokens)
    scores = torch.tensor([0.9, 0.8, 0.0, 0.3, 0.85])
    batch = StrategyBatch(agent_logp=agent.sequence_log_likelihood(tokens), prior_logp=prior_logp, scores=scores,
                          outcome_ids=torch.tensor([0, 1, 2, 3, 4]), is_replay=torch.zeros(5, dtype=torch.bool))
    out = strategy(batch)
    return agent, augmentation.StepUpdate(batch, out, MOLECULES, tokens)


def test_random_copy_has_the_prior_likelihood_of_its_own_tokens(prior) -> None:
    """The rows of a round are the copies' own token sequences: their prior log-likelihoods are those of the random
    spellings, not of the canonical SMILES; an invalid row keeps its sampled sequence."""
    rng = random.Random(7)
    tokens = prior.vocabulary.encode_batch([m or "C1CC" for m in MOLECULES])
    rows, spellings = augmentation.respelt_rows(MOLECULES, tokens, rng, prior.vocabulary)
    with torch.no_grad():
        got = prior.sequence_log_likelihood(rows)
        canonical = prior.sequence_log_likelihood(tokens)
    assert spellings[2] is None and float(got[2]) == pytest.approx(float(canonical[2]), abs=1e-5)
    for i, spelt in enumerate(spellings):
        if spelt is None:
            continue
        from mara_chem.chem.smiles import canonicalize

        assert canonicalize(spelt) == MOLECULES[i]
        with torch.no_grad():
            own = prior.log_likelihood([spelt])[0]
        assert float(got[i]) == pytest.approx(float(own), abs=1e-4)
    assert sum(s != m for s, m in zip(spellings, MOLECULES) if s) >= 3  # they are other sequences
    assert float((got - canonical).abs().max()) > 0.5


def test_round_feeds_the_strategy_copies_with_the_steps_outcomes_and_mara_anchor(prior) -> None:
    """One round on the step's rows and a memory: the strategy's batch holds the copies' own prior log-likelihoods,
    the step's scores and outcome ids, the memory as replay rows, and MARA's anchor is the step's, so every
    high-scoring copy gets DAP-MARA's target log π0(y_z) + σ S_z of the step (closed form)."""
    strategy = build_strategy(type="mara", sigma=100, tau=0.8)
    agent, step = _step_update(prior, strategy, random.Random(0))
    anchor_score, anchor_logp = step.output.info["mara_anchor_score"], step.output.info["mara_anchor_prior_logp"]
    memory = ReplayMemory(10, 5)
    memory.add(["CCOC(=O)c1ccccc1", "CC(C)Cc1ccc(C(C)C(=O)O)cc1"], [0.95, 0.7])
    seen: list[StrategyBatch] = []
    strategy.register_forward_pre_hook(lambda module, args: seen.append(args[0]))
    optimizer = torch.optim.Adam(agent.network.parameters(), lr=1e-4)
    rounds = augmentation.AugmentedMemory(1, False, agent, prior, StrategyInputs(strategy),
                                           LearningStep(strategy, optimizer), random.Random(3), lambda n: None)
    losses = rounds(step, memory, penalised=[])
    assert len(losses) == 1 and len(seen) == 1
    batch = seen[0]
    n = len(MOLECULES)
    assert batch.is_replay.tolist() == [False] * n + [True] * 2
    assert batch.scores[:n].tolist() == step.batch.scores.tolist()
    assert batch.outcome_ids[:n].tolist() == step.batch.outcome_ids.tolist()
    assert len(set(batch.outcome_ids.tolist())) == n + 2
    rng = random.Random(3)  # the same draws: the batch's spellings, then the memory's
    rows, _ = augmentation.respelt_rows(MOLECULES, step.tokens, rng, prior.vocabulary)
    memory_rows, memory_scores = augmentation.respelt_memory(memory, rng, prior.vocabulary)
    with torch.no_grad():
        expected = torch.cat([prior.sequence_log_likelihood(rows), prior.sequence_log_likelihood(memory_rows)])
    assert torch.allclose(batch.prior_logp, expected, atol=1e-4)
    assert memory_scores == [0.95, 0.7]
    # MARA: the rows with score >= τ (0.9, 0.8, 0.85 and the memory's 0.95) all target the step's anchor
    out = strategy(batch)
    high = (batch.scores >= 0.8).nonzero().flatten()
    assert torch.allclose(out.targets[high], torch.full((len(high),), anchor_logp + 100 * anchor_score), atol=1e-3)
    # the copies' own anchor would differ: a random spelling has another likelihood than the step's anchor row
    assert out.info["mara_anchor_prior_logp"] == pytest.approx(anchor_logp)


def test_ips_frequencies_stay_the_steps(prior) -> None:
    """IPS-DAP on a batch with a duplicate: the round's per-row weights come from the step's canonical outcomes."""
    strategy = build_strategy(type="ips_dap")
    agent, _ = _step_update(prior, build_strategy(type="dap"), random.Random(0))
    tokens = prior.vocabulary.encode_batch(["CCO", "OCC", "CCN"])
    with torch.no_grad():
        prior_logp = prior.sequence_log_likelihood(tokens)
    batch = StrategyBatch(agent_logp=agent.sequence_log_likelihood(tokens), prior_logp=prior_logp,
                          scores=torch.tensor([0.5, 0.5, 0.2]), outcome_ids=torch.tensor([0, 0, 1]),
                          is_replay=torch.zeros(3, dtype=torch.bool))
    step = augmentation.StepUpdate(batch, strategy(batch), ["CCO", "CCO", "CCN"], tokens)
    seen: list[StrategyBatch] = []
    strategy.register_forward_pre_hook(lambda module, args: seen.append(args[0]))
    optimizer = torch.optim.Adam(agent.network.parameters(), lr=1e-4)
    augmentation.AugmentedMemory(2, True, agent, prior, StrategyInputs(strategy), LearningStep(strategy, optimizer),
                               random.Random(1), lambda n: None)(
        step, None, penalised=[])
    assert [b.outcome_ids.tolist() for b in seen] == [[0, 0, 1], [0, 0, 1]]
    assert all(b.outcome_freq is None and not b.is_replay.any() for b in seen)


def test_selective_memory_purge_removes_the_penalised_scaffolds() -> None:
    memory = ReplayMemory(10, 5)
    memory.add(["c1ccccc1CC(=O)O", "c1ccccc1CCN", "C1CCCCC1CO", "CCCCO"], [0.9, 0.8, 0.7, 0.6])
    assert augmentation.selective_memory_purge(memory, ["c1ccccc1OC"]) == 2  # benzene's scaffold
    assert [s for s, _ in memory.entries] == ["C1CCCCC1CO", "CCCCO"]
    assert augmentation.selective_memory_purge(memory, []) == 0


def test_options_are_validated(tmp_path: Path) -> None:
    golden = golden_runs
    config = golden.config(tmp_path, golden.STRATEGIES["dap"])
    for value, message in ((-1, "greater than or equal to 0"), (101, "less than or equal to 100")):
        config["parameters"]["augmentation_rounds"] = value
        with pytest.raises(ConfigError, match="augmentation_rounds"):
            load_run_config(config)
    config["parameters"]["augmentation_rounds"] = 0
    config["parameters"]["selective_memory_purge"] = False
    with pytest.raises(ConfigError, match="selective_memory_purge = false given but augmentation_rounds = 0"):
        load_run_config(config)
    config["parameters"]["selective_memory_purge"] = True  # the default, as a recorded run.json holds it
    assert load_run_config(config).parameters.augmentation_rounds == 0
    config["parameters"]["augmentation_rounds"], config["parameters"]["selective_memory_purge"] = 1, False
    assert load_run_config(config).parameters.selective_memory_purge is False


def _every_strategy() -> list[dict]:
    from mara_chem.plugins import STRATEGIES
    from mara_chem.rl.strategies import list_strategies

    return [{"type": name, **STRATEGIES.get(name).example_params} for name in list_strategies()] + [
        {"type": "reinforce", "kl": "forward"}, {"type": "ips_dap", "outcome": "scaffold", "frequency": "window"},
        {"type": "ips_grpo", "mara": True, "tau": 0.6}]


@pytest.mark.parametrize("strategy", _every_strategy(), ids=lambda s: "-".join(f"{v}" for v in s.values()))
def test_augmentation_composes_with_every_strategy(tmp_path: Path, strategy: dict) -> None:
    """Two steps of batch 16 with one round: every strategy takes its extra optimiser step, no extra call."""
    golden = golden_runs
    config = golden.config(tmp_path, strategy)
    config["parameters"].update(batch_size=16, augmentation_rounds=1)
    config["stage"][0].update(max_steps=2, min_steps=2)
    runner = StagedLearning(load_run_config(config), overwrite=True, quiet=True)
    steps = []
    step = runner.optimizer.step
    runner.optimizer.step = lambda *a, **k: (steps.append(1), step(*a, **k))[1]
    result = runner.run()
    assert len(steps) == 4 and result.steps == 2
    assert len(runner.oracle_log.read()) == result.oracle_calls <= 32
