"""Outcome definitions and frequency sources of IPS (``mara_chem.rl.outcomes``) on real molecules."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from mara_chem.rl.outcomes import OutcomeTracker, outcome_ids
from mara_chem.rl.strategies import build_strategy
from tests.paths import REPO

TOLUENE, PHENOL, ANILINE = "Cc1ccccc1", "Oc1ccccc1", "Nc1ccccc1"
CYCLOHEXANOL, ETHANOL, PROPANOL = "OC1CCCCC1", "CCO", "CCCO"


def test_ids_follow_first_appearance_and_invalid_rows_are_their_own_outcome() -> None:
    assert outcome_ids(["a", "b", "a", None, None]).tolist() == [0, 1, 0, 8, 9]


def test_molecule_outcomes_are_the_canonical_smiles() -> None:
    ids, p_hat = OutcomeTracker().step([TOLUENE, PHENOL, TOLUENE, None])
    assert ids.tolist()[:3] == [0, 1, 0] and p_hat is None  # batch counting stays inside the strategy


def test_scaffold_outcomes_group_ring_systems_and_keep_acyclic_molecules_apart() -> None:
    ids, _ = OutcomeTracker(outcome="scaffold").step([TOLUENE, PHENOL, ANILINE, CYCLOHEXANOL, ETHANOL, PROPANOL])
    assert ids.tolist() == [0, 0, 0, 1, 2, 3]


def test_leader_clusters_use_the_stated_similarity_and_persist_across_steps() -> None:
    loose = OutcomeTracker(outcome="cluster", cluster_similarity=0.05)
    strict = OutcomeTracker(outcome="cluster", cluster_similarity=0.99)
    loose.step([TOLUENE])
    assert loose.key(PHENOL) == TOLUENE  # joins the earlier leader (Tanimoto > 0.05)
    assert strict.step([TOLUENE, PHENOL, TOLUENE])[0].tolist() == [0, 1, 0]
    state = loose.state_dict()
    again = OutcomeTracker(outcome="cluster", cluster_similarity=0.05)
    again.load_state_dict(state)
    assert again.key(ANILINE) == loose.key(ANILINE) == TOLUENE


def test_an_unreadable_smiles_is_its_own_cluster_and_never_a_leader() -> None:
    """RDKit's bulk similarity crashes the process on a missing fingerprint: run in a child, so a regression
    fails this test instead of killing the suite."""
    code = ("from mara_chem.rl.outcomes import OutcomeTracker\n"
            "t = OutcomeTracker(outcome='cluster', cluster_similarity=0.05)\n"
            "assert t.key('C1CC') == 'C1CC' and t.clusters.leaders == []\n"
            "assert t.key('Cc1ccccc1') == 'Cc1ccccc1' and t.key('Oc1ccccc1') == 'Cc1ccccc1'\n"
            "assert t.step(['C1CC', 'Oc1ccccc1', 'C1CC'])[0].tolist() == [0, 1, 0]\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_window_frequencies_pool_the_last_steps() -> None:
    tracker = OutcomeTracker(frequency="window", frequency_window=2)
    tracker.step([TOLUENE, PHENOL])
    _, p_hat = tracker.step([TOLUENE, TOLUENE])
    assert p_hat.tolist() == pytest.approx([0.75, 0.75])  # 3 toluenes in 4 samples over both steps
    tracker.step([PHENOL, PHENOL])
    _, p_hat = tracker.step([TOLUENE, ANILINE])  # the window now holds the last two steps only
    assert p_hat.tolist() == pytest.approx([0.25, 0.25])


def test_memory_frequencies_count_the_replay_memory() -> None:
    _, p_hat = OutcomeTracker(outcome="scaffold", frequency="memory").step([TOLUENE, ETHANOL], [PHENOL, ANILINE])
    assert p_hat.tolist() == pytest.approx([3 / 4, 1 / 4])


def test_external_frequencies_drive_the_ips_factor() -> None:
    """With outcome_freq the strategy divides by the given p̂ instead of counting the batch."""
    from mara_chem.rl.strategies import StrategyBatch

    strategy = build_strategy(type="ips_grpo")
    batch = dict(agent_logp=torch.zeros(2, requires_grad=True), prior_logp=torch.zeros(2),
                 scores=torch.tensor([1.0, 1.0]), outcome_ids=torch.tensor([0, 1]), is_replay=torch.zeros(2, dtype=torch.bool))
    counted = strategy(StrategyBatch(**batch)).rewards
    given = strategy(StrategyBatch(**batch, outcome_freq=torch.tensor([0.5, 0.25]))).rewards
    assert counted.tolist() == pytest.approx([2.0, 2.0]) and given.tolist() == pytest.approx([2.0, 4.0])


@pytest.mark.parametrize("options, message", [
    ({"type": "grpo", "outcome": "scaffold"}, "outcome given but ips = false"),
    ({"type": "ips_grpo", "cluster_similarity": 0.5}, "cluster_similarity given but outcome is not 'cluster'"),
    ({"type": "ips_dap", "frequency_window": 3}, "frequency_window given but frequency is not 'window'"),
])
def test_outcome_options_are_validated(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_strategy(**options)
