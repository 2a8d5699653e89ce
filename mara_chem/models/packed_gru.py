"""A GRU over packed rows with a hand-written backward, for the teacher-forced log-likelihood of token rows.

Why: on one CPU thread most of a genetic-harness run's time is the agent's forward and backward over the replay
batches' padded token rows. ``torch.gru`` runs every row to the batch's widest one, and its autograd backward
forms the recurrent weights' gradient as one small product per time step. Here the rows are packed (sorted by
length, step t runs only the rows still going), the input-to-hidden products of a layer are one matrix product
over every packed token, and the backward gathers the gate gradients of all steps and forms the weight gradients
in one product each. The recurrence is PyTorch's GRU (gate order r, z, n):

    r = σ(W_ir x + b_ir + W_hr h + b_hr),  z = σ(W_iz x + b_iz + W_hz h + b_hz)
    n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)),  h' = (h − n) ⊙ z + n

written with the same elementwise operations in the same order as PyTorch's CPU cell, so the values agree with
``torch.gru`` up to the rounding of differently shaped matrix products (tests/models/test_packed_gru.py); the
gradients are the same sums in another order. PyTorch's own packed path (``nn.GRU`` on a ``PackedSequence``) runs
slower on one CPU thread than the padded one (docs/measurements.md, "The genetic harness's replay").
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn


def _recurrence(gi: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor, batch_sizes: list[int],
                keep: bool) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None, torch.Tensor | None]:
    """h_t of every packed row; with ``keep`` also W_h· h + b_h, σ of the r and z gates and n (for the
    backward), each a packed tensor written in place step by step."""
    hidden = w_hh.shape[1]
    n_rows = gi.shape[0]
    out = gi.new_empty(n_rows, hidden)
    gh_all = gi.new_empty(n_rows, 3 * hidden) if keep else None
    rz_all = gi.new_empty(n_rows, 2 * hidden) if keep else None
    n_all = gi.new_empty(n_rows, hidden) if keep else None
    h = gi.new_zeros(batch_sizes[0], hidden)
    w_t = w_hh.t()
    start = 0
    for b in batch_sizes:
        stop = start + b
        hp = h[:b]
        gh = torch.addmm(b_hh, hp, w_t, out=gh_all[start:stop]) if keep else torch.addmm(b_hh, hp, w_t)
        g = gi[start:stop]
        rz = torch.add(gh[:, :2 * hidden], g[:, :2 * hidden], out=rz_all[start:stop]) if keep else \
            gh[:, :2 * hidden] + g[:, :2 * hidden]
        rz.sigmoid_()
        r, z = rz[:, :hidden], rz[:, hidden:]
        n = torch.mul(gh[:, 2 * hidden:], r, out=n_all[start:stop]) if keep else gh[:, 2 * hidden:] * r
        n.add_(g[:, 2 * hidden:]).tanh_()
        h = torch.sub(hp, n, out=out[start:stop]).mul_(z).add_(n)
        start = stop
    return out, gh_all, rz_all, n_all


class _Recurrence(torch.autograd.Function):
    """h_t for packed input gates ``gi`` [N, 3H] (time-major, ``batch_sizes`` rows a step), h_0 = 0."""

    @staticmethod
    def forward(ctx: Any, gi: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor,
                batch_sizes: list[int]) -> torch.Tensor:
        out, gh, rz, n = _recurrence(gi, w_hh, b_hh, batch_sizes, keep=True)
        ctx.batch_sizes = batch_sizes
        ctx.save_for_backward(w_hh, out, gh, rz, n)
        return out

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        w_hh, out, gh, rz, n = ctx.saved_tensors
        batch_sizes: list[int] = ctx.batch_sizes
        hidden = w_hh.shape[1]
        n_rows = out.shape[0]
        r, z, ghn = rz[:, :hidden], rz[:, hidden:], gh[:, 2 * hidden:]
        offsets = [0]
        for b in batch_sizes:
            offsets.append(offsets[-1] + b)
        # h_{t-1} of every packed row (zero at the first step)
        h_prev = out.new_zeros(n_rows, hidden)
        for t in range(1, len(batch_sizes)):
            b = batch_sizes[t]
            h_prev[offsets[t]:offsets[t] + b] = out[offsets[t - 1]:offsets[t - 1] + b]
        # dL/d(pre-activation) of each gate as a factor of dL/dh_t (elementwise, every step at once); dL/d(W_h· h
        # + b_h) has them for r and z, and r times the n gate's
        dn_pre = (1 - z) * (1 - n * n)
        factor = torch.empty(n_rows, 3, hidden, dtype=out.dtype, device=out.device)
        torch.mul(dn_pre, r, out=factor[:, 2])
        torch.mul(factor[:, 2], ghn * (1 - r), out=factor[:, 0])
        torch.mul((h_prev - n) * z, 1 - z, out=factor[:, 1])
        # dL/dh_t, back through time: each step adds its dL/dh_{t-1} to the rows of the step before
        dh_all = grad_out.clone()
        dgh = grad_out.new_empty(n_rows, 3, hidden)
        for t in range(len(batch_sizes) - 1, -1, -1):
            start, stop = offsets[t], offsets[t + 1]
            d, step_dgh = dh_all[start:stop], dgh[start:stop]
            torch.mul(factor[start:stop], d.unsqueeze(1), out=step_dgh)
            if t:
                previous = dh_all[offsets[t - 1]:offsets[t - 1] + stop - start]
                previous.addcmul_(d, z[start:stop]).addmm_(step_dgh.view(-1, 3 * hidden), w_hh)
        dgh = dgh.view(n_rows, 3 * hidden)
        dgi = dgh.clone()
        torch.mul(dh_all, dn_pre, out=dgi[:, 2 * hidden:])
        first = batch_sizes[0]
        d_w_hh = dgh[first:].t().mm(h_prev[first:])
        return dgi, d_w_hh, dgh.sum(0), None


def packed_gru(tokens: torch.Tensor, batch_sizes: list[int], embedding: nn.Embedding, rnn: nn.GRU) -> torch.Tensor:
    """The last layer's hidden states [N, H] of the unidirectional, batch-first, dropout-free ``rnn`` over the
    embedded packed ``tokens`` [N] (``PackedSequence.data`` order, ``batch_sizes`` rows per step), from h_0 = 0.

    The first layer's input gates W_ih·e(token) + b_ih are a table of one row per vocabulary token, looked up: the
    same values, and the backward of that layer's input product runs on the vocabulary's rows, not every token's."""
    x: torch.Tensor | None = None
    for layer in range(rnn.num_layers):
        w_ih, b_ih = getattr(rnn, f"weight_ih_l{layer}"), getattr(rnn, f"bias_ih_l{layer}")
        if x is None:
            gi = torch.nn.functional.embedding(tokens, torch.nn.functional.linear(embedding.weight, w_ih, b_ih))
        else:
            gi = torch.nn.functional.linear(x, w_ih, b_ih)
        w_hh, b_hh = getattr(rnn, f"weight_hh_l{layer}"), getattr(rnn, f"bias_hh_l{layer}")
        if torch.is_grad_enabled() and (gi.requires_grad or w_hh.requires_grad or b_hh.requires_grad):
            x = _Recurrence.apply(gi, w_hh, b_hh, batch_sizes)
        else:  # nothing to go back through: keep no gates
            x = _recurrence(gi, w_hh, b_hh, batch_sizes, keep=False)[0]
    assert x is not None
    return x


def supports_packed(rnn: nn.Module) -> bool:
    """Whether :func:`packed_gru` computes what ``rnn`` does: a GRU with biases, one direction, no dropout."""
    return isinstance(rnn, nn.GRU) and rnn.bias and not rnn.bidirectional and rnn.dropout == 0
