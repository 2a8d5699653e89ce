"""The committed prior is what every run file and the demo start from: guard the file itself."""

import torch
from rdkit import Chem

from mara_chem.models import load_prior
from mara_chem.models.prior_file import read_metadata
from tests.paths import BUNDLED_PRIOR

PRIOR = BUNDLED_PRIOR
MOSES_TRAIN_ROWS = 1_584_663


def test_bundled_prior_carries_its_training_record():
    meta = read_metadata(PRIOR)
    assert meta["model_type"] == "rnn" and meta["hyperparameters"]["cell"] == "gru"
    assert meta["data_counts"]["input"] == MOSES_TRAIN_ROWS  # trained on all of MOSES train
    assert meta["training_data_size"] + meta["validation_size"] == meta["data_counts"]["kept"]
    assert meta["epochs"] == len([row for row in meta["history"] if row["epoch"] <= meta["epochs"]])
    assert meta["validation_nll"] == min(row["valid_nll"] for row in meta["history"])


def test_bundled_prior_samples_valid_unique_molecules_and_knows_moses(moses_sample, seeded):
    model = load_prior(PRIOR)  # checks the weights' SHA-256
    smiles = model.sample(2000, generator=torch.Generator().manual_seed(0)).smiles
    valid = [s for s in smiles if Chem.MolFromSmiles(s) is not None]
    # 2,000 samples: a standard error of about 0.5 points around the prior's measured validity
    assert len(valid) / len(smiles) >= 0.92
    assert len(set(valid)) / len(valid) >= 0.99
    with torch.no_grad():
        nll = -model.log_likelihood([s for s in moses_sample if "[H]" not in s][:200]).mean().item()
    assert nll < 22.0  # held-out MOSES molecules are likely under the prior (an untrained one gives ~110)


def test_bundled_prior_and_its_training_checkpoint_are_plain_data_and_agree(moses_sample):
    """Both committed files load with weights_only=True (no code can run from them) and hold the same model:
    the training checkpoint's weights give the prior's log-likelihoods exactly."""
    payload = torch.load(PRIOR, weights_only=True)
    ckpt = torch.load(PRIOR.with_name(PRIOR.name + ".ckpt"), weights_only=True)
    model = load_prior(PRIOR)
    from_ckpt = load_prior(PRIOR)
    from_ckpt.network.load_state_dict(ckpt["network"])
    assert ckpt["vocabulary"] == payload["vocabulary"] == model.vocabulary.tokens
    smiles = moses_sample[:50]
    assert torch.equal(from_ckpt.log_likelihood(smiles), model.log_likelihood(smiles))
