"""A network plus its vocabulary: sampling and exact sequence log-likelihoods."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from mara_chem.models.networks import SmilesNetwork
from mara_chem.models.tokenizer import PAD, START, Vocabulary

#: tokens a model can never emit unless its metadata says otherwise (a REINVENT prior can emit ``^``)
DEFAULT_MASKED_TOKENS = (PAD, START)


@dataclass
class Sampled:
    """A batch of sampled sequences: token indices [B, T] (with start token) and their SMILES."""

    tokens: torch.Tensor
    smiles: list[str]


class LanguageModel:
    def __init__(self, network: SmilesNetwork, vocabulary: Vocabulary, metadata: dict | None = None):
        if network.hyperparameters()["vocab_size"] != len(vocabulary):
            raise ValueError("network vocab_size does not match the vocabulary")
        self.network = network
        self.vocabulary = vocabulary
        self.metadata: dict = dict(metadata or {})
        masked = self.metadata.get("masked_tokens", DEFAULT_MASKED_TOKENS)
        self._masked_idx = [vocabulary.index[t] for t in masked]

    @property
    def device(self) -> torch.device:
        return next(self.network.parameters()).device

    @property
    def max_length(self) -> int:
        return int(self.network.max_length)

    def to(self, device: str | torch.device) -> "LanguageModel":
        self.network.to(device)
        return self

    def _mask_special(self, logits: torch.Tensor) -> torch.Tensor:
        """Padding and start can never be emitted: both sampling and likelihood renormalise without them.
        (A converted REINVENT prior masks padding only: REINVENT gives ``^`` a probability like any token.)"""
        masked = logits.clone()
        masked[..., self._masked_idx] = float("-inf")
        return masked

    def sequence_log_likelihood(self, tokens: torch.Tensor) -> torch.Tensor:
        """log p(sequence) [B] of padded token rows ``^ ... $ <pad>...``; differentiable."""
        tokens = tokens.to(self.device)
        logits = self._mask_special(self.network(tokens[:, :-1]))
        logp = F.log_softmax(logits.float(), dim=-1)
        target = tokens[:, 1:]
        per_token = logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        mask = target != self.vocabulary.pad_idx
        return torch.where(mask, per_token, torch.zeros_like(per_token)).sum(dim=1)

    def log_likelihood(self, smiles: Sequence[str]) -> torch.Tensor:
        """log p(SMILES) [B]; raises UnknownTokenError for tokens outside the vocabulary."""
        return self.sequence_log_likelihood(self.vocabulary.encode_batch(list(smiles)))

    @torch.no_grad()
    def sample(self, n: int, temperature: float = 1.0, generator: torch.Generator | None = None) -> Sampled:
        """Batched multinomial sampling; sequences that hit max_length without ``$`` are truncated there."""
        if temperature <= 0:
            raise ValueError("temperature must be > 0")
        was_training = self.network.training
        self.network.eval()
        device = self.device
        vocab = self.vocabulary
        out = torch.full((n, self.max_length + 2), vocab.pad_idx, dtype=torch.long, device=device)
        out[:, 0] = vocab.start_idx
        active = torch.arange(n, device=device)
        token = out[:, 0].clone()
        state = None
        for t in range(1, self.max_length + 1):
            logits, state = self.network.step(token, state)
            probs = torch.softmax(self._mask_special(logits).float() / temperature, dim=-1)
            token = torch.multinomial(probs, 1, generator=generator).squeeze(1)
            out[active, t] = token
            running = token != vocab.end_idx
            if not bool(running.all()):
                keep = running.nonzero().squeeze(1)
                active, token = active[keep], token[keep]
                state = self.network.reorder_state(state, keep)
            if active.numel() == 0:
                break
        if active.numel():  # unfinished at max length: close them so likelihoods stay well-defined
            out[active, self.max_length + 1] = vocab.end_idx
        self.network.train(was_training)
        width = int((out != vocab.pad_idx).sum(dim=1).max())
        out = out[:, :width]
        smiles = [vocab.decode(row[1:].tolist()) for row in out.cpu()]
        return Sampled(tokens=out, smiles=smiles)
