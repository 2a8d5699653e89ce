"""The two options that let mara-chem's loop run as REINVENT 4.8's staged learning does (docs/strategies.md,
"Replay memory"; docs/run-files.md, ``isomeric_smiles``): stereo-free molecule identity and REINVENT 4's replay
order."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import torch
from rdkit import Chem

from mara_chem.chem.smiles import SmilesState
from mara_chem.models.language_model import Sampled
from mara_chem.rl.config import ConfigError, load_run_config
from mara_chem.rl.loop import StagedLearning
from mara_chem.rl.replay import ReplayMemory
from mara_chem.rl.step_samples import StepSamples

REPO = Path(__file__).resolve().parents[2]
ZINC_PRIOR = REPO / "priors" / "zinc-gru-2x256-e11.prior"  # trained on ZINC's stereo SMILES (MOSES has none)
MOSES_PRIOR = REPO / "priors" / "moses-gru-2x256.prior"


def _config(run_dir: Path, prior: Path, *, batch: int = 32, steps: int = 2, isomeric: bool | None = None,
            inception: dict | None = None, strategy: dict | None = None) -> dict:
    parameters = {"prior_file": str(prior), "agent_file": str(prior), "summary_csv_prefix": str(run_dir / "summary"),
                  "batch_size": batch, "randomize_smiles": False}
    if isomeric is not None:
        parameters["isomeric_smiles"] = isomeric
    return {
        "run_type": "staged_learning", "device": "cpu", "seed": 0, "parameters": parameters,
        "learning_strategy": strategy or {"type": "dap", "sigma": 500, "rate": 5e-4},
        "inception": inception or {"memory_size": 100, "sample_size": 24},
        "stage": [{"max_steps": steps, "min_steps": steps, "max_score": 1.0, "max_oracle_calls": 10_000,
                   "scoring": {"type": "geometric_mean",
                               "component": [{"QED": {"endpoint": [{"name": "QED", "weight": 1}]}}]}}],
    }


def test_stereoisomers_are_one_molecule_without_isomeric_smiles() -> None:
    smiles = ["C[C@H](N)O", "C[C@@H](N)O", "CC(N)O", "F/C=C/F", "F/C=C\\F", "C1CC"]
    sampled = Sampled(tokens=torch.zeros(len(smiles), 2, dtype=torch.long), smiles=smiles)
    flat = StepSamples.from_sampled(sampled, isomeric=False)
    assert flat.canonical == ["CC(N)O", "CC(N)O", "CC(N)O", "FC=CF", "FC=CF", None]
    assert flat.states.tolist() == [SmilesState.VALID, SmilesState.DUPLICATE, SmilesState.DUPLICATE,
                                    SmilesState.VALID, SmilesState.DUPLICATE, SmilesState.INVALID]
    kept = StepSamples.from_sampled(sampled)  # mara-chem's default: five molecules
    assert len(set(c for c in kept.canonical if c)) == 5 and not kept.duplicate.any()


def test_isomeric_smiles_false_is_accepted_and_true_stays_the_default(tmp_path: Path) -> None:
    assert load_run_config(_config(tmp_path, MOSES_PRIOR)).parameters.isomeric_smiles is True
    assert load_run_config(_config(tmp_path, MOSES_PRIOR, isomeric=False)).parameters.isomeric_smiles is False


@pytest.mark.skipif(not ZINC_PRIOR.exists(), reason=f"{ZINC_PRIOR} is not there")
def test_a_stereo_free_run_pays_one_call_per_stereo_free_molecule(tmp_path: Path) -> None:
    """The ZINC prior writes stereo in about half of its molecules: a stereo-free run's oracle log names every
    molecule by its stereo-free canonical SMILES, each once; the default run's log keeps the stereo."""
    logs = {}
    for isomeric in (True, False):
        run = tmp_path / str(isomeric)
        StagedLearning(load_run_config(_config(run, ZINC_PRIOR, batch=24, steps=1, isomeric=isomeric)), quiet=True).run()
        with open(run / "oracle_log.csv", newline="") as handle:
            logs[isomeric] = [row["smiles"] for row in csv.DictReader(handle)]
    flat = logs[False]
    assert flat and len(set(flat)) == len(flat)
    assert all(Chem.MolToSmiles(Chem.MolFromSmiles(s), isomericSmiles=False) == s for s in flat)
    assert any("@" in s or "/" in s or "\\" in s for s in logs[True])


@pytest.mark.parametrize("includes_step", [False, True])
def test_replay_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, includes_step: bool) -> None:
    """REINVENT 4 adds the step's batch to its inception memory before drawing the replay sample, so step 1
    already replays; mara-chem's default draws first (the original REINVENT's order), so step 1 replays nothing
    and no replayed molecule is one of its step's own batch."""
    drawn: list[list[str]] = []
    original = ReplayMemory.sample

    def recording(self, rng, randomize_smiles=False):
        picked = original(self, rng, randomize_smiles)
        drawn.append([s for s, _ in picked])
        return picked

    monkeypatch.setattr(ReplayMemory, "sample", recording)
    batches: list[set[str]] = []
    from_sampled = StepSamples.from_sampled

    def keep_batch(sampled, isomeric=True):
        samples = from_sampled(sampled, isomeric)
        batches.append({c for c in samples.canonical if c})
        return samples

    monkeypatch.setattr(StepSamples, "from_sampled", staticmethod(keep_batch))
    inception = {"memory_size": 100, "sample_size": 8}
    if includes_step:
        inception["replay_includes_step"] = True
    StagedLearning(load_run_config(_config(tmp_path, MOSES_PRIOR, batch=16, inception=inception)), quiet=True).run()
    if includes_step:  # a draw each step, step 1's from its own molecules
        assert len(drawn) == 2 and len(drawn[0]) == 8 and all(s in batches[0] for s in drawn[0])
    else:  # step 1 finds the memory empty; step 2 replays from a memory that holds step 1's molecules only
        assert len(drawn) == 1 and len(drawn[0]) == 8 and all(s in batches[0] for s in drawn[0])


def test_replay_includes_step_is_refused_with_an_option_that_reads_the_memory(tmp_path: Path) -> None:
    strategy = {"type": "mara", "sigma": 500, "rate": 5e-4, "tau_quantile": 0.5, "anchor_pool": "batch+memory"}
    cfg = _config(tmp_path, MOSES_PRIOR, inception={"memory_size": 100, "sample_size": 8, "replay_includes_step": True},
                  strategy=strategy)
    with pytest.raises(ConfigError, match="replay_includes_step"):
        load_run_config(cfg)
