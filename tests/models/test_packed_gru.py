"""The packed GRU (mara_chem/models/packed_gru.py) computes torch.gru's hidden states and gradients, and the packed
log-likelihood is the padded one: values and every parameter's gradient within float tolerance."""

from __future__ import annotations

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence

from mara_chem.models import LanguageModel, Vocabulary, build_network
from mara_chem.models.packed_gru import packed_gru

LENGTHS = [9, 3, 7, 1, 9, 5]


def _parameters(*modules: torch.nn.Module) -> list[torch.nn.Parameter]:
    return [p for m in modules for p in m.parameters()]


@pytest.mark.parametrize("dtype, atol", [(torch.float64, 1e-12), (torch.float32, 1e-5)])
def test_hidden_states_and_gradients_are_torch_grus(dtype: torch.dtype, atol: float) -> None:
    torch.manual_seed(0)
    rnn = torch.nn.GRU(5, 7, 2, batch_first=True).to(dtype)
    embedding = torch.nn.Embedding(4, 5).to(dtype)
    tokens = torch.randint(0, 4, (len(LENGTHS), max(LENGTHS)))
    lengths = torch.tensor(LENGTHS)
    hidden, _ = rnn(embedding(tokens))
    expected = pack_padded_sequence(hidden, lengths, batch_first=True, enforce_sorted=False).data
    rows = pack_padded_sequence(tokens, lengths, batch_first=True, enforce_sorted=False)
    got = packed_gru(rows.data, rows.batch_sizes.tolist(), embedding, rnn)
    assert torch.allclose(got, expected, rtol=0, atol=atol)
    weights = torch.randn_like(expected)  # a loss that reaches every position with its own weight
    params = _parameters(rnn, embedding)
    for g_expected, g_got in zip(torch.autograd.grad((expected * weights).sum(), params),
                                 torch.autograd.grad((got * weights).sum(), params)):
        assert torch.allclose(g_got, g_expected, rtol=0, atol=10 * atol)
    with torch.no_grad():  # the path that keeps no gates gives the same states
        assert torch.equal(packed_gru(rows.data, rows.batch_sizes.tolist(), embedding, rnn), got.detach())


def _model(cell: str, smiles: list[str]) -> LanguageModel:
    vocabulary = Vocabulary.from_smiles(smiles)
    network = build_network("rnn", vocab_size=len(vocabulary), embedding_dim=16, hidden_size=32, num_layers=2,
                            cell=cell, max_length=60)
    return LanguageModel(network, vocabulary)


SMILES = ["CCO", "c1ccccc1C(=O)N", "CC(C)Cc1ccc(cc1)C(C)C(=O)O", "N", "CCN(CC)CC(=O)Nc1c(C)cccc1C", "CCO"]


def test_packed_log_likelihood_and_its_gradient_are_the_padded_ones() -> None:
    torch.manual_seed(1)
    model = _model("gru", SMILES)
    assert model.network.packs
    tokens = model.vocabulary.encode_batch(SMILES)
    results = []
    for packed in (False, True):
        model.network.zero_grad()
        logp = model.sequence_log_likelihood(tokens, packed=packed)
        (logp * torch.arange(1.0, len(SMILES) + 1)).sum().backward()
        results.append((logp.detach(), [p.grad.clone() for p in model.network.parameters()]))
    (padded, padded_grads), (packed_, packed_grads) = results
    assert torch.allclose(packed_, padded, rtol=0, atol=1e-4)
    assert packed_[0] == packed_[-1]  # the same row gives the same value wherever it stands
    for a, b in zip(padded_grads, packed_grads):
        assert torch.allclose(b, a, rtol=1e-4, atol=1e-5)


def test_networks_that_do_not_pack_take_the_padded_pass() -> None:
    """An LSTM (and any network without ``packed_logits``) gives exactly the padded pass for ``packed=True``."""
    torch.manual_seed(2)
    model = _model("lstm", SMILES)
    assert not model.network.packs
    tokens = model.vocabulary.encode_batch(SMILES)
    assert torch.equal(model.sequence_log_likelihood(tokens, packed=True), model.sequence_log_likelihood(tokens))
    with pytest.raises(NotImplementedError):
        model.network.packed_logits(tokens[0], [1])


def test_rows_with_inner_padding_take_the_padded_pass() -> None:
    """Packing assumes trailing padding; a row with a pad before its last token is left to the padded pass."""
    torch.manual_seed(3)
    model = _model("gru", SMILES)
    tokens = model.vocabulary.encode_batch(SMILES)
    tokens[2, 3] = model.vocabulary.pad_idx
    assert torch.equal(model.sequence_log_likelihood(tokens, packed=True), model.sequence_log_likelihood(tokens))
