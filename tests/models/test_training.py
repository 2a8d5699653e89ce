import dataclasses

import pytest
import torch

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


def test_half_precision_prior_is_fp16_on_disk_and_matches_the_trained_model(moses_sample, tmp_path):
    cfg = TrainConfig(model_type="rnn", hyperparameters=dict(hidden_size=32, embedding_dim=16, num_layers=1),
                      batch_size=32, max_epochs=1, valid_fraction=0.1, min_token_count=1, half_precision=True)
    data = prepare_data(moses_sample[:200], cfg, processes=1)
    full_out, half_out = tmp_path / "full.prior", tmp_path / "half.prior"
    train_prior(data, dataclasses.replace(cfg, half_precision=False), full_out)
    train_prior(data, cfg, half_out)  # same seed, same data: the same weights before rounding
    stored = torch.load(half_out, weights_only=True)["state_dict"]
    assert all(t.dtype == torch.float16 for t in stored.values() if t.is_floating_point())
    full, half = load_prior(full_out), load_prior(half_out)
    smiles = data.valid[:20]
    torch.testing.assert_close(half.log_likelihood(smiles), full.log_likelihood(smiles), atol=5e-2, rtol=1e-2)


def test_prior_info_prints_the_training_record(moses_sample, tmp_path, capsys):
    from mara_chem.cli import main

    cfg = TrainConfig(model_type="rnn", hyperparameters=dict(hidden_size=32, embedding_dim=16, num_layers=1),
                      batch_size=32, max_epochs=1, valid_fraction=0.1, min_token_count=1)
    out = tmp_path / "p.prior"
    train_prior(prepare_data(moses_sample[:200], cfg, processes=1), cfg, out)
    assert main(["prior", "info", str(out)]) == 0
    text = capsys.readouterr().out
    assert "epochs: 1" in text and "save_validity:" in text and "epoch  train_nll" in text
    assert main(["prior", "info", str(out), "--json"]) == 0
    assert '"training_data_size": 180' in capsys.readouterr().out


def test_lr_decay_multiplies_the_learning_rate_every_epoch(moses_sample, tmp_path):
    cfg = TrainConfig(model_type="rnn", hyperparameters=dict(hidden_size=32, embedding_dim=16, num_layers=1),
                      batch_size=32, learning_rate=2e-3, lr_decay=0.5, max_epochs=3, valid_fraction=0.1,
                      min_token_count=1, patience=10)
    out = tmp_path / "p.prior"
    train_prior(prepare_data(moses_sample[:200], cfg, processes=1), cfg, out)
    history = torch.load(tmp_path / "p.prior.ckpt", weights_only=True)["state"]["history"]
    lrs = [row["lr"] for row in history]
    assert lrs[0] == pytest.approx(2e-3) and lrs[1] == pytest.approx(1e-3)
    assert lrs[2] in (pytest.approx(5e-4), pytest.approx(2.5e-4))  # plateau halving may come on top


def test_resumed_training_equals_an_uninterrupted_one(moses_sample, tmp_path):
    """The checkpoint carries the RNG states: dropout masks, shuffles and sampling continue as without a stop."""
    hp = dict(hidden_size=32, embedding_dim=16, num_layers=2, dropout=0.3)
    cfg = TrainConfig(model_type="rnn", hyperparameters=hp,
                      batch_size=32, max_epochs=3, valid_fraction=0.1, min_token_count=1, patience=10, epoch_size=120)
    data = prepare_data(moses_sample[:200], cfg, processes=1)
    train_prior(data, cfg, tmp_path / "straight.prior")
    train_prior(data, dataclasses.replace(cfg, max_epochs=1), tmp_path / "resumed.prior")
    train_prior(data, cfg, tmp_path / "resumed.prior")  # continues from resumed.prior.ckpt
    straight = torch.load(tmp_path / "straight.prior.ckpt", weights_only=True)
    resumed = torch.load(tmp_path / "resumed.prior.ckpt", weights_only=True)
    assert resumed["state"]["epoch"] == straight["state"]["epoch"] == 3
    for name, tensor in straight["network"].items():
        assert torch.equal(resumed["network"][name], tensor), name
    assert torch.equal(resumed["rng"]["torch"], straight["rng"]["torch"])


def test_min_improvement_stops_when_an_epoch_no_longer_pays(moses_sample, tmp_path):
    """An epoch that lowers the validation NLL by less than ``min_improvement`` counts against ``patience``, so a
    run with patience 1 stops after its second epoch (no epoch can gain 1,000 nats), while the better model of the
    two is still the one written."""
    cfg = TrainConfig(model_type="rnn", hyperparameters=dict(hidden_size=32, embedding_dim=16, num_layers=1),
                      batch_size=32, max_epochs=5, valid_fraction=0.1, min_token_count=1, patience=1,
                      min_improvement=1000.0)
    out = tmp_path / "p.prior"
    train_prior(prepare_data(moses_sample[:200], cfg, processes=1), cfg, out)
    history = torch.load(tmp_path / "p.prior.ckpt", weights_only=True)["state"]["history"]
    assert [row["epoch"] for row in history] == [1, 2]  # the first epoch gains on "nothing yet", the second < 1,000
    best = min(history, key=lambda row: row["valid_nll"])
    assert read_metadata(out)["validation_nll"] == pytest.approx(best["valid_nll"])


@pytest.mark.parametrize("option,value", [("--lr", "nan"), ("--lr", "0"), ("--lr", "5"), ("--lr-decay", "1.5"),
                                          ("--lr-decay", "0"), ("--min-improvement", "-1"),
                                          ("--min-improvement", "inf"), ("--dropout", "1"), ("--patience", "0"),
                                          ("--max-hours", "nan")])
def test_prior_train_refuses_an_out_of_range_setting_before_reading_data(option, value, tmp_path, capsys) -> None:
    """A diverging or no-op training setting is one line naming it, and no data file is even opened."""
    from mara_chem.cli import main

    missing = tmp_path / "never-read.smi"
    rc = main(["prior", "train", "--smiles", str(missing), "--out", str(tmp_path / "p.prior"), option, value])
    err = capsys.readouterr().err
    assert rc == 1 and "prior training:" in err and "must be" in err and "never-read" not in err
    assert not (tmp_path / "p.prior").exists()
