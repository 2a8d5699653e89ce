"""A network plus its vocabulary: sampling and exact sequence log-likelihoods."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from mara_chem.models.networks import SmilesNetwork
from mara_chem.models.tokenizer import PAD, START, Vocabulary

#: tokens a model can never emit unless its metadata says otherwise (a REINVENT prior can emit ``^``)
DEFAULT_MASKED_TOKENS = (PAD, START)


@dataclass
class Sampled:
    """A batch of sampled sequences: token indices [B, T] (with start token) and their SMILES; with
    ``with_log_likelihood``, also log p(sequence) [B] under the model (temperature 1), differentiable."""

    tokens: torch.Tensor
    smiles: list[str]
    log_likelihood: torch.Tensor | None = None


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

    def _mask_special(self, logits: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
        """Padding and start can never be emitted: both sampling and likelihood renormalise without them.
        (A converted REINVENT prior masks padding only: REINVENT gives ``^`` a probability like any token.)
        Added as a bias of -inf: one cheap autograd node where a clone and an index assignment were two.
        ``bias``: :meth:`_special_bias` made once for a whole sampling loop."""
        return logits + (self._special_bias(logits) if bias is None else bias)

    def _special_bias(self, logits: torch.Tensor) -> torch.Tensor:
        """0 for every token, -inf for the masked ones, in the dtype and on the device of ``logits``."""
        bias = torch.zeros(logits.shape[-1], dtype=logits.dtype, device=logits.device)
        bias[self._masked_idx] = float("-inf")
        return bias

    def sequence_log_likelihood(self, tokens: torch.Tensor, packed: bool = False) -> torch.Tensor:
        """log p(sequence) [B] of padded token rows ``^ ... $ <pad>...``; differentiable.

        ``packed`` (used when the network :attr:`~mara_chem.models.networks.SmilesNetwork.packs` and every row's
        padding is trailing): the network runs on the unpadded positions only. The same sum up to the rounding of
        differently shaped matrix products (about 4e-6 on a log-likelihood of -40), not the same bits, so it is
        asked for where that is accepted (the genetic harness's replay); the default keeps the padded pass."""
        tokens = tokens.to(self.device)
        target = tokens[:, 1:]
        mask = target != self.vocabulary.pad_idx
        if packed and self.network.packs and tokens.shape[0]:
            lengths = mask.sum(dim=1)
            if bool((lengths > 0).all()) and not bool((mask[:, 1:] & ~mask[:, :-1]).any()):
                return self._packed_log_likelihood(tokens[:, :-1], target, lengths.cpu())
        logits = self._mask_special(self.network(tokens[:, :-1]))
        logp = F.log_softmax(logits.float(), dim=-1)
        per_token = logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        return torch.where(mask, per_token, torch.zeros_like(per_token)).sum(dim=1)

    def _packed_log_likelihood(self, inputs: torch.Tensor, target: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """:meth:`sequence_log_likelihood` over packed rows; the per-token terms go back to their padded places
        (zeros elsewhere) and are summed as the padded pass sums them."""
        rows = pack_padded_sequence(inputs, lengths, batch_first=True, enforce_sorted=False)
        logits = self._mask_special(self.network.packed_logits(rows.data, rows.batch_sizes.tolist()))
        logp = F.log_softmax(logits.float(), dim=-1)
        packed_target = pack_padded_sequence(target, lengths, batch_first=True, enforce_sorted=False).data
        per_token = logp.gather(-1, packed_target.unsqueeze(-1)).squeeze(-1)
        padded, _ = pad_packed_sequence(rows._replace(data=per_token), batch_first=True,
                                        total_length=target.shape[1])
        return padded.sum(dim=1)

    def log_likelihood(self, smiles: Sequence[str]) -> torch.Tensor:
        """log p(SMILES) [B]; raises UnknownTokenError for tokens outside the vocabulary."""
        return self.sequence_log_likelihood(self.vocabulary.encode_batch(list(smiles)))

    def sample(self, n: int, temperature: float = 1.0, generator: torch.Generator | None = None,
               with_log_likelihood: bool = False) -> Sampled:
        """Batched multinomial sampling; sequences that hit max_length without ``$`` are truncated there.

        With ``with_log_likelihood`` the forward pass that samples also sums the log-probabilities of the
        sampled tokens (the model's, at temperature 1) with autograd on, so an RL step needs no second
        teacher-forced pass of the agent: same tokens for the same seed (the random draws are unchanged),
        same value as :meth:`sequence_log_likelihood` of the tokens up to float rounding. The network is in
        eval mode while sampling, so this is the training-mode likelihood only without dropout.
        """
        if temperature <= 0:
            raise ValueError("temperature must be > 0")
        was_training = self.network.training
        self.network.eval()
        try:
            with torch.set_grad_enabled(with_log_likelihood):
                return self._sample(n, temperature, generator, with_log_likelihood)
        finally:
            self.network.train(was_training)

    def _sample(self, n: int, temperature: float, generator: torch.Generator | None, with_log_likelihood: bool) -> Sampled:
        device = self.device
        vocab = self.vocabulary
        out = torch.full((n, self.max_length + 2), vocab.pad_idx, dtype=torch.long, device=device)
        out[:, 0] = vocab.start_idx
        chosen: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = []  # (logits, token, row) per step
        active = torch.arange(n, device=device)
        token = out[:, 0].clone()
        state = None
        bias = None
        for t in range(1, self.max_length + 1):
            logits, state = self.network.step(token, state)
            if bias is None:
                bias = self._special_bias(logits)
            logits = self._mask_special(logits, bias).float()
            # x / 1.0 is x exactly, so the division is skipped at temperature 1 without changing a bit
            probs = torch.softmax(logits.detach() if temperature == 1.0 else logits.detach() / temperature, dim=-1)
            token = torch.multinomial(probs, 1, generator=generator).squeeze(1)
            if with_log_likelihood:
                chosen.append((logits, token, active))
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
            if with_log_likelihood:  # ... and count that forced ``$`` as sequence_log_likelihood does
                logits, _ = self.network.step(token, state)
                chosen.append((self._mask_special(logits, bias).float(), torch.full_like(token, vocab.end_idx), active))
        log_likelihood = None
        if with_log_likelihood:  # one log_softmax over every step's rows: few autograd nodes to go back through
            logits, tokens, rows = (torch.cat(parts) for parts in zip(*chosen))
            step_logp = torch.log_softmax(logits, dim=-1).gather(1, tokens[:, None]).squeeze(1)
            log_likelihood = torch.zeros(n, device=device).index_add(0, rows, step_logp)
        width = int((out != vocab.pad_idx).sum(dim=1).max())
        out = out[:, :width]
        smiles = [vocab.decode(row[1:]) for row in out.tolist()]
        return Sampled(tokens=out, smiles=smiles, log_likelihood=log_likelihood)
