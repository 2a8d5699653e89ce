"""REINVENT 4 priors in mara-chem: a model made by REINVENT's own classes gives REINVENT's log-likelihoods."""

import copy
from collections import defaultdict
from pathlib import Path

import pytest
import torch

from mara_chem.models.prior_file import load_prior, save_prior
from mara_chem.models.reinvent_prior import save_reinvent_prior
from mara_chem.models.tokenizer import tokenize
from tests.paths import REPO

BUNDLED = REPO / "priors" / "moses-gru-2x256.prior"


def reinvent_model(smiles: list[str], cell: str, seed: int = 0):
    """A random-init REINVENT ``Reinvent`` model (REINVENT's Model, vocabulary and tokenizer)."""
    from reinvent.models.reinvent.models.model import Model
    from reinvent.models.reinvent.models.vocabulary import SMILESTokenizer, create_vocabulary

    torch.manual_seed(seed)
    tokenizer = SMILESTokenizer()
    params = dict(layer_size=48, num_layers=2, cell_type=cell, embedding_layer_size=24, dropout=0.0)
    return Model(create_vocabulary(smiles, tokenizer), tokenizer, None, network_params=params, mode="inference")


def reinvent_log_likelihoods(model, smiles: list[str]) -> torch.Tensor:
    """REINVENT's log-likelihoods without its padding terms: batches of SMILES with equal token counts."""
    by_length = defaultdict(list)
    for i, smi in enumerate(smiles):
        by_length[len(tokenize(smi))].append(i)
    out = torch.empty(len(smiles))
    with torch.no_grad():
        for rows in by_length.values():
            out[rows] = -model.likelihood_smiles([smiles[i] for i in rows]).float()
    return out


@pytest.fixture(scope="module")
def thousand_smiles(moses_sample) -> list[str]:
    return (moses_sample * 2)[:1000]


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_reinvent_prior_loads_with_reinvents_log_likelihoods(reinvent_rl, tmp_path, thousand_smiles, cell):
    model = reinvent_model(thousand_smiles, cell)
    path = tmp_path / "reinvent.prior"
    model.save(str(path))
    mara = load_prior(path)
    expected = reinvent_log_likelihoods(model, thousand_smiles)
    with torch.no_grad():
        got = mara.log_likelihood(thousand_smiles)
    assert float((got - expected).abs().max()) <= 1e-4
    # random init puts real probability on ``^``: a model that masked it would be off by far more
    assert float(expected.std()) > 1.0


def test_converted_prior_round_trips_both_ways(reinvent_rl, tmp_path, thousand_smiles):
    from reinvent.runmodes.create_adapter import create_adapter

    # REINVENT file -> mara-chem file -> REINVENT file, read by REINVENT's own loader
    first = tmp_path / "a.prior"
    reinvent_model(thousand_smiles, "lstm", seed=3).save(str(first))
    mara_file = save_prior(load_prior(first), tmp_path / "a.mara.prior")
    back = save_reinvent_prior(load_prior(mara_file), tmp_path / "b.prior")
    adapter, _, model_type = create_adapter(str(back), "inference", torch.device("cpu"))
    assert model_type == "Reinvent"
    original = reinvent_log_likelihoods(reinvent_model(thousand_smiles, "lstm", seed=3), thousand_smiles[:200])
    again = reinvent_log_likelihoods(adapter.model, thousand_smiles[:200])
    assert float((again - original).abs().max()) <= 1e-4


def test_mara_prior_in_reinvent_keeps_mara_log_likelihoods(reinvent_rl, tmp_path, moses_sample):
    """mara-chem's bundled prior never emits ``^``; written for REINVENT it must not either."""
    from reinvent.runmodes.create_adapter import create_adapter

    mara = load_prior(BUNDLED)
    path = save_reinvent_prior(mara, tmp_path / "bundled.prior")
    adapter, _, _ = create_adapter(str(path), "inference", torch.device("cpu"))
    smiles = moses_sample[:200]
    with torch.no_grad():
        expected = mara.log_likelihood(smiles)
    got = reinvent_log_likelihoods(adapter.model, smiles)
    assert float((got - expected).abs().max()) <= 1e-4


def test_reinvent_file_is_read_without_running_pickled_code(tmp_path):
    """The loader refuses a pickled class that is not one of REINVENT's inert stand-ins (weights_only)."""
    path = tmp_path / "evil.prior"
    torch.save({"network": {}, "vocabulary": {"tokens": {}}, "tokenizer": Path("x")}, path)
    with pytest.raises(ValueError, match="not a readable prior file"):
        load_prior(path)


def test_end_after_end_keeps_every_likelihood_and_makes_the_padding_certain(moses_sample) -> None:
    """Fitting the input embedding of ``$`` makes ``$`` follow ``$`` near-certainly; ``$`` is never an input
    before the end, so the log-likelihood of every SMILES is what it was."""
    from mara_chem.models import LanguageModel, Vocabulary, build_network
    from mara_chem.models.reinvent_prior import ReinventPriorError, teach_end_after_end

    torch.manual_seed(0)
    vocab = Vocabulary.from_smiles(moses_sample)
    net = build_network("rnn", vocab_size=len(vocab), embedding_dim=16, hidden_size=32, num_layers=1, cell="gru",
                        max_length=80)
    model = LanguageModel(net, vocab)
    smiles = moses_sample[:32]
    with torch.no_grad():
        before = model.log_likelihood(smiles)
    untaught = teach_end_after_end(copy.deepcopy(model), smiles, steps=1)  # the value before its first update
    end_logp = teach_end_after_end(model, smiles)
    with torch.no_grad():
        after = model.log_likelihood(smiles)
    assert torch.allclose(after, before, atol=1e-5)
    # mean log p($ | $...) over 12 steps past the end: a random 32-unit GRU learns it only partly from the
    # embedding alone (measured about -3.3 nats to -1.8), the bundled prior to near 0 (the REINVENT peer's test)
    assert end_logp > untaught + 1.0
    transformer = LanguageModel(build_network("transformer", vocab_size=len(vocab), d_model=16, n_heads=2,
                                              n_layers=1, dim_feedforward=32, dropout=0.0, max_length=80), vocab)
    with pytest.raises(ReinventPriorError, match="recurrent networks only"):
        teach_end_after_end(transformer, smiles)
