import pytest
import torch

from mara_chem.models.tokenizer import UnknownTokenError, Vocabulary, detokenize, tokenize


def test_regex_splits_multichar_tokens():
    assert tokenize("C[C@@H](Br)c1ccc(Cl)cc1%10") == ["C", "[C@@H]", "(", "Br", ")", "c", "1", "c", "c", "c", "(",
                                                       "Cl", ")", "c", "c", "1", "%10"]
    assert tokenize("[nH]1cccc1") == ["[nH]", "1", "c", "c", "c", "c", "1"]


def test_round_trip_on_moses_sample(moses_sample):
    vocab = Vocabulary.from_smiles(moses_sample)
    for smi in moses_sample:
        assert detokenize(tokenize(smi)) == smi
        assert vocab.decode(vocab.encode(smi)) == smi


def test_special_tokens_fixed_positions(moses_sample):
    vocab = Vocabulary.from_smiles(moses_sample)
    assert vocab.tokens[:3] == ["<pad>", "^", "$"]
    encoded = vocab.encode("CCO")
    assert encoded[0] == vocab.start_idx and encoded[-1] == vocab.end_idx


def test_unknown_token_is_named():
    vocab = Vocabulary.from_smiles(["CCO", "c1ccccc1"])
    with pytest.raises(UnknownTokenError, match=r"\[Se\]"):
        vocab.encode("C[Se]C")


def test_encode_batch_pads_right():
    vocab = Vocabulary.from_smiles(["CCO", "C"])
    batch = vocab.encode_batch(["CCO", "C"])
    assert batch.shape == (2, 5)
    assert batch[1, 3:].tolist() == [vocab.pad_idx, vocab.pad_idx]
    assert torch.equal(batch[0], torch.tensor(vocab.encode("CCO")))


def test_decode_stops_at_end_token():
    vocab = Vocabulary.from_smiles(["CCO"])
    idx = vocab.encode("CCO") + vocab.encode("CC")[1:]
    assert vocab.decode(idx) == "CCO"
