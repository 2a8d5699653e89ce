"""Autoregressive SMILES networks; each registers itself by its ``name`` (stored in prior files as ``model_type``).

A network maps token indices [B, T] to next-token logits [B, T, V] (teacher forcing) and exposes an
incremental ``step`` for sampling. Everything else (sampling, likelihoods, file I/O) is written once in
``LanguageModel`` against this interface.
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from typing import Any, ClassVar

import torch
from torch import nn

from mara_chem.models.packed_gru import packed_gru, supports_packed
from mara_chem.plugins import NETWORKS
from mara_chem.registry import Registered


class SmilesNetwork(Registered, nn.Module, metaclass=ABCMeta):
    """Base of every architecture; ``name`` is what prior files store under ``model_type`` (entry-point group
    ``mara_chem.networks`` for third-party architectures). ``hyperparameters()`` must rebuild the network:
    ``build_network(net.name, **net.hyperparameters())``."""

    plugin_registry = NETWORKS
    name: ClassVar[str]
    #: small hyperparameters (besides ``vocab_size``) the contract suite builds the network with
    example_params: ClassVar[dict[str, Any]] = {}

    @abstractmethod
    def hyperparameters(self) -> dict[str, Any]:
        """Constructor arguments (including ``vocab_size``) that rebuild this network."""

    @abstractmethod
    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Next-token logits [B, T, V] for token indices [B, T] (position t sees tokens 0..t only)."""

    @abstractmethod
    def step(self, token: torch.Tensor, state: Any) -> tuple[torch.Tensor, Any]:
        """Logits [B, V] for the next token given the last token [B] and a state (None at start)."""

    @abstractmethod
    def reorder_state(self, state: Any, keep: torch.Tensor) -> Any:
        """Keep only the rows ``keep`` of a state (used to drop finished sequences while sampling)."""

    @property
    def packs(self) -> bool:
        """Whether :meth:`packed_logits` is there: teacher forcing over packed rows, no work on padding."""
        return False

    def packed_logits(self, tokens: torch.Tensor, batch_sizes: list[int]) -> torch.Tensor:
        """Next-token logits [N, V] for packed token indices [N] (``PackedSequence.data`` of batch-first rows,
        ``batch_sizes`` rows per step): the rows of :meth:`forward` at the unpadded positions."""
        raise NotImplementedError(f"{type(self).__name__} does not run packed rows")


def list_networks() -> list[str]:
    return NETWORKS.names()


def build_network(model_type: str, **hyperparameters: Any) -> SmilesNetwork:
    return NETWORKS.get(model_type)(**hyperparameters)


class RecurrentNetwork(SmilesNetwork):
    """REINVENT's prior: embedding -> stacked LSTM/GRU -> linear (defaults 3 x 512, embedding 256)."""

    name = "rnn"
    example_params = {"embedding_dim": 8, "hidden_size": 16, "num_layers": 2, "max_length": 20}

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int = 256,
        hidden_size: int = 512,
        num_layers: int = 3,
        cell: str = "lstm",
        dropout: float = 0.0,
        max_length: int = 256,
    ):
        super().__init__()
        if cell not in ("lstm", "gru"):
            raise ValueError(f"cell must be 'lstm' or 'gru', got {cell!r}")
        self._hp = dict(
            vocab_size=vocab_size, embedding_dim=embedding_dim, hidden_size=hidden_size,
            num_layers=num_layers, cell=cell, dropout=dropout, max_length=max_length,
        )
        self.max_length = max_length
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        rnn_cls = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = rnn_cls(embedding_dim, hidden_size, num_layers, batch_first=True, dropout=dropout)
        self.output = nn.Linear(hidden_size, vocab_size)

    def hyperparameters(self) -> dict[str, Any]:
        return dict(self._hp)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        hidden, _ = self.rnn(self.embedding(tokens))
        return self.output(hidden)

    @property
    def packs(self) -> bool:
        return supports_packed(self.rnn)

    def packed_logits(self, tokens: torch.Tensor, batch_sizes: list[int]) -> torch.Tensor:
        if not self.packs:
            return super().packed_logits(tokens, batch_sizes)
        return self.output(packed_gru(tokens, batch_sizes, self.embedding, self.rnn))

    def step(self, token: torch.Tensor, state: Any) -> tuple[torch.Tensor, Any]:
        hidden, state = self.rnn(self.embedding(token).unsqueeze(1), state)
        return self.output(hidden[:, 0]), state

    def reorder_state(self, state: Any, keep: torch.Tensor) -> Any:
        if isinstance(state, tuple):
            return tuple(s[:, keep] for s in state)
        return state[:, keep]


class TransformerNetwork(SmilesNetwork):
    """Decoder-only transformer (pre-norm, learned positions, causal mask)."""

    name = "transformer"
    example_params = {"d_model": 16, "n_heads": 2, "n_layers": 2, "dim_feedforward": 32, "dropout": 0.0,
                               "max_length": 20}

    def __init__(
        self,
        vocab_size: int,
        d_model: int = 256,
        n_heads: int = 8,
        n_layers: int = 6,
        dim_feedforward: int = 1024,
        dropout: float = 0.1,
        max_length: int = 256,
    ):
        super().__init__()
        self._hp = dict(
            vocab_size=vocab_size, d_model=d_model, n_heads=n_heads, n_layers=n_layers,
            dim_feedforward=dim_feedforward, dropout=dropout, max_length=max_length,
        )
        self.max_length = max_length
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.position = nn.Embedding(max_length + 2, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, n_heads, dim_feedforward, dropout, batch_first=True, norm_first=True
        )
        self.blocks = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.output = nn.Linear(d_model, vocab_size)

    def hyperparameters(self) -> dict[str, Any]:
        return dict(self._hp)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        length = tokens.shape[1]
        positions = torch.arange(length, device=tokens.device)
        x = self.embedding(tokens) + self.position(positions)[None]
        mask = nn.Transformer.generate_square_subsequent_mask(length, device=tokens.device)
        return self.output(self.norm(self.blocks(x, mask=mask, is_causal=True)))

    def step(self, token: torch.Tensor, state: Any) -> tuple[torch.Tensor, Any]:
        # The state is the prefix so far; recomputing it keeps the code short (sampling is not the bottleneck).
        prefix = token[:, None] if state is None else torch.cat([state, token[:, None]], dim=1)
        return self.forward(prefix)[:, -1], prefix

    def reorder_state(self, state: Any, keep: torch.Tensor) -> Any:
        return state[keep]
