import pytest
import torch
import torch.nn.functional as F

from mara_chem.models import LanguageModel, UnknownTokenError, Vocabulary, build_network, list_networks
from tests.paths import BUNDLED_PRIOR


def _model(vocab: Vocabulary, kind: str = "rnn") -> LanguageModel:
    if kind == "rnn":
        net = build_network("rnn", vocab_size=len(vocab), embedding_dim=16, hidden_size=32, num_layers=2, max_length=60)
    else:
        net = build_network("transformer", vocab_size=len(vocab), d_model=32, n_heads=4, n_layers=2,
                            dim_feedforward=64, dropout=0.0, max_length=60)
    return LanguageModel(net, vocab)


def test_registered_networks():
    assert list_networks() == ["rnn", "transformer"]
    with pytest.raises(ValueError, match="valid"):
        build_network("wavenet", vocab_size=5)


@pytest.mark.parametrize("kind", ["rnn", "transformer"])
def test_likelihood_equals_sum_of_step_log_probs(kind, moses_sample, seeded):
    """The batched teacher-forced likelihood must equal the step-by-step sum used while sampling."""
    vocab = Vocabulary.from_smiles(moses_sample)
    model = _model(vocab, kind)
    model.network.eval()
    sampled = model.sample(8)
    batched = model.sequence_log_likelihood(sampled.tokens)
    for row, total in zip(sampled.tokens, batched):
        state, logp = None, 0.0
        for t in range(1, row.shape[0]):
            logits, state = model.network.step(row[t - 1 : t], state)
            logits = model._mask_special(logits)
            logp += F.log_softmax(logits, -1)[0, row[t]].item()
            if row[t] == vocab.end_idx:
                break
        assert total.item() == pytest.approx(logp, abs=1e-3)


def test_likelihood_of_smiles_matches_tokens(moses_sample):
    vocab = Vocabulary.from_smiles(moses_sample)
    model = _model(vocab)
    smi = moses_sample[:3]
    assert torch.allclose(model.log_likelihood(smi), model.sequence_log_likelihood(vocab.encode_batch(smi)))


def test_likelihood_rejects_unknown_tokens(moses_sample):
    model = _model(Vocabulary.from_smiles(moses_sample))
    with pytest.raises(UnknownTokenError):
        model.log_likelihood(["C[Te]C"])


def test_sample_respects_max_length_and_temperature(moses_sample, seeded):
    model = _model(Vocabulary.from_smiles(moses_sample))
    out = model.sample(16, temperature=2.0)
    assert len(out.smiles) == 16
    assert out.tokens.shape[1] <= model.max_length + 2
    assert (out.tokens == model.vocabulary.end_idx).sum(dim=1).ge(1).all()
    with pytest.raises(ValueError):
        model.sample(2, temperature=0)


def test_tiny_model_overfits_50_smiles(moses_sample, seeded):
    """A small LSTM memorises 50 SMILES: NLL drops near zero and samples reproduce training molecules."""
    train = moses_sample[:50]
    vocab = Vocabulary.from_smiles(train)
    net = build_network("rnn", vocab_size=len(vocab), embedding_dim=32, hidden_size=128, num_layers=1, max_length=80)
    model = LanguageModel(net, vocab)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    start = -model.log_likelihood(train).mean().item()
    for _ in range(150):
        loss = -model.log_likelihood(train).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    end = -model.log_likelihood(train).mean().item()
    assert end < 0.1 * start
    sampled = model.sample(50, temperature=0.5).smiles
    assert sum(s in set(train) for s in sampled) >= 35


def test_sampling_with_log_likelihood_keeps_samples_and_gives_the_likelihood_and_its_gradient():
    """The RL loop takes the agent's log-likelihood from the sampling pass: same tokens for the same seed,
    same values and gradients as the teacher-forced pass (also for a row cut at max_length)."""
    from mara_chem.models.prior_file import load_prior

    model = load_prior(BUNDLED_PRIOR)
    model.network.train()
    plain = model.sample(48, generator=torch.Generator().manual_seed(5))
    fused = model.sample(48, generator=torch.Generator().manual_seed(5), with_log_likelihood=True)
    assert torch.equal(plain.tokens, fused.tokens) and plain.log_likelihood is None
    assert model.network.training  # mode restored
    reference = model.sequence_log_likelihood(fused.tokens)
    assert torch.allclose(fused.log_likelihood, reference, atol=1e-4)
    params = list(model.network.parameters())
    g_fused = torch.autograd.grad(fused.log_likelihood.sum(), params)
    g_reference = torch.autograd.grad(reference.sum(), params)
    assert all(torch.allclose(a, b, atol=1e-3, rtol=1e-3) for a, b in zip(g_fused, g_reference))
    model.network.max_length = 8  # every row is cut and closed with a forced "$"
    cut = model.sample(8, generator=torch.Generator().manual_seed(1), with_log_likelihood=True)
    assert torch.allclose(cut.log_likelihood, model.sequence_log_likelihood(cut.tokens), atol=1e-4)
