import pytest

from mara_chem.models import load_prior
from mara_chem.models.prior_file import read_metadata
from mara_chem.models.training import TrainConfig, prepare_data, train_prior


def test_prepare_data_counts_every_drop(moses_sample):
    raw = moses_sample[:100] + ["not a smiles", "C1CC", moses_sample[0], "C" * 120, "C[Se]C"]
    cfg = TrainConfig(max_length=100, min_token_count=2, valid_fraction=0.1)
    data = prepare_data(raw, cfg, processes=1)
    c = data.counts
    assert c["input"] == 105
    assert c["invalid"] == 2 and c["duplicate"] == 1 and c["too_long"] == 1 and c["rare_token"] >= 1
    assert c["kept"] == len(data.train) + len(data.valid)
    assert "[Se]" not in data.vocabulary.tokens


def test_train_writes_prior_and_resumes(moses_sample, tmp_path):
    cfg = TrainConfig(model_type="rnn", hyperparameters=dict(hidden_size=32, embedding_dim=16, num_layers=1),
                      batch_size=32, max_epochs=1, valid_fraction=0.1, min_token_count=1, patience=5)
    data = prepare_data(moses_sample[:200], cfg, processes=1)
    out = tmp_path / "p.prior"
    train_prior(data, cfg, out)
    first = read_metadata(out)
    assert first["epochs"] == 1 and first["training_data_size"] == len(data.train)
    assert (tmp_path / "p.prior.ckpt").exists()
    cfg.max_epochs = 2  # continue from the checkpoint instead of starting over
    model = train_prior(data, cfg, out)
    meta = read_metadata(out)
    assert [h["epoch"] for h in meta["history"]] == [1, 2] or meta["epochs"] == 1  # epoch 2 saved only if better
    assert len(model.metadata["history"]) >= 1
    with pytest.raises(ValueError, match="other data"):
        train_prior(prepare_data(moses_sample[200:300], cfg, processes=1), cfg, out)
    assert load_prior(out).vocabulary == data.vocabulary
