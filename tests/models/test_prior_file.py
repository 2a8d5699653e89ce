import pytest
import torch

from mara_chem.models import LanguageModel, PriorFileError, Vocabulary, build_network, load_prior, save_prior
from mara_chem.models.prior_file import read_metadata


@pytest.fixture()
def model(moses_sample):
    vocab = Vocabulary.from_smiles(moses_sample)
    net = build_network("rnn", vocab_size=len(vocab), embedding_dim=16, hidden_size=32, num_layers=2, cell="gru")
    return LanguageModel(net, vocab, {"note": "test"})


def test_save_load_identical_likelihoods(model, moses_sample, tmp_path):
    path = save_prior(model, tmp_path / "m.prior", epochs=3)
    loaded = load_prior(path)
    assert loaded.vocabulary == model.vocabulary
    assert torch.allclose(loaded.log_likelihood(moses_sample[:20]), model.log_likelihood(moses_sample[:20]))
    meta = read_metadata(path)
    assert meta["epochs"] == 3 and meta["note"] == "test" and meta["hyperparameters"]["cell"] == "gru"
    assert "package_version" in meta and "saved_at" in meta


def test_half_precision_file_loads_close(model, moses_sample, tmp_path):
    path = save_prior(model, tmp_path / "h.prior", half_precision=True)
    loaded = load_prior(path)
    assert torch.allclose(loaded.log_likelihood(moses_sample[:5]), model.log_likelihood(moses_sample[:5]), atol=0.05)


def test_missing_file(tmp_path):
    with pytest.raises(PriorFileError, match="does not exist"):
        load_prior(tmp_path / "nope.prior")


def test_truncated_file(model, tmp_path):
    path = save_prior(model, tmp_path / "m.prior")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(PriorFileError, match="corrupt, truncated or foreign"):
        load_prior(path)


def test_foreign_file(tmp_path):
    path = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, path)
    with pytest.raises(PriorFileError, match="not a mara-chem prior"):
        load_prior(path)
    path.write_text("hello")
    with pytest.raises(PriorFileError):
        load_prior(path)


def test_tampered_weights_detected(model, tmp_path):
    path = save_prior(model, tmp_path / "m.prior")
    payload = torch.load(path, weights_only=True)
    key = next(iter(payload["state_dict"]))
    payload["state_dict"][key] = payload["state_dict"][key] + 1
    torch.save(payload, path)
    with pytest.raises(PriorFileError, match="checksum"):
        load_prior(path)
