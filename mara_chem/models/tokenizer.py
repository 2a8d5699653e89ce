"""REINVENT-style SMILES tokenizer and vocabulary.

Tokens: bracket atoms (``[nH]``, ``[C@@H]``...), two-letter halogens ``Br``/``Cl``, two-digit ring closures
``%NN``, then single characters. Three special tokens: padding, start ``^`` and end ``$``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

import torch

PAD, START, END = "<pad>", "^", "$"
SPECIAL_TOKENS = (PAD, START, END)
_TOKEN_RE = re.compile(r"(\[[^\]]*\]|Br|Cl|%\d{2}|.)")


class UnknownTokenError(ValueError):
    """A SMILES uses a token the model's vocabulary does not contain."""


def tokenize(smiles: str) -> list[str]:
    """Split a SMILES into tokens (without start/end)."""
    return _TOKEN_RE.findall(smiles)


def detokenize(tokens: Iterable[str]) -> str:
    return "".join(t for t in tokens if t not in SPECIAL_TOKENS)


class Vocabulary:
    """Bijection token <-> index; index 0 is padding, 1 start, 2 end."""

    def __init__(self, tokens: Sequence[str]):
        ordered = list(SPECIAL_TOKENS) + sorted(t for t in set(tokens) if t not in SPECIAL_TOKENS)
        self.tokens: list[str] = ordered
        self.index: dict[str, int] = {t: i for i, t in enumerate(ordered)}
        self._text = ["", "", "", *ordered[3:]]  # what decode writes per index: nothing for pad, start and end

    @classmethod
    def from_smiles(cls, smiles: Iterable[str], min_count: int = 1) -> "Vocabulary":
        counts = Counter(t for s in smiles for t in tokenize(s))
        return cls([t for t, c in counts.items() if c >= min_count])

    def __len__(self) -> int:
        return len(self.tokens)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and self.tokens == other.tokens

    @property
    def pad_idx(self) -> int:
        return 0

    @property
    def start_idx(self) -> int:
        return 1

    @property
    def end_idx(self) -> int:
        return 2

    def unknown_tokens(self, smiles: str) -> list[str]:
        return [t for t in tokenize(smiles) if t not in self.index]

    def encode(self, smiles: str) -> list[int]:
        """Indices of ``^ tokens $``; raises UnknownTokenError naming the offending tokens."""
        unknown = self.unknown_tokens(smiles)
        if unknown:
            raise UnknownTokenError(
                f"SMILES {smiles!r} has token(s) {sorted(set(unknown))} outside the model's vocabulary"
            )
        return [self.start_idx] + [self.index[t] for t in tokenize(smiles)] + [self.end_idx]

    def decode(self, indices: Iterable[int]) -> str:
        """SMILES from indices, stopping at the first end token (padding and start are skipped)."""
        ids = [int(i) for i in indices]
        if self.end_idx in ids:
            ids = ids[: ids.index(self.end_idx)]
        return "".join([self._text[i] for i in ids])

    def encode_batch(self, smiles: Sequence[str]) -> torch.Tensor:
        """Right-padded LongTensor [B, T] of encoded SMILES."""
        seqs = [self.encode(s) for s in smiles]
        width = max(len(s) for s in seqs)
        out = torch.full((len(seqs), width), self.pad_idx, dtype=torch.long)
        for row, seq in enumerate(seqs):
            out[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
        return out
