"""Contract of every registered network architecture (``model_type``): teacher-forced logits [B, T, V] that
never look ahead, an incremental ``step`` that reproduces them, a ``reorder_state`` that keeps the chosen rows,
and ``hyperparameters()`` that rebuild the same network (what prior files store)."""

from __future__ import annotations

import pytest
import torch
from tests.contracts.contract_helpers import build_example, implementations

from mara_chem.models.networks import SmilesNetwork, build_network
from mara_chem.plugins import NETWORKS

V, B, T = 11, 3, 7


@pytest.fixture(params=implementations(NETWORKS))
def network(request) -> SmilesNetwork:
    torch.manual_seed(0)
    cls = request.param
    net = build_example(cls, lambda: build_network(cls.name, vocab_size=V, **cls.example_params),
                        "example_params")
    return net.eval()


def tokens() -> torch.Tensor:
    return torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(1))


@torch.no_grad()
def test_logits_have_the_vocabulary_and_never_look_ahead(network):
    x = tokens()
    logits = network(x)
    assert logits.shape == (B, T, V) and torch.isfinite(logits).all()
    changed = x.clone()
    changed[:, 4] = (changed[:, 4] + 1) % V
    torch.testing.assert_close(network(changed)[:, :4], logits[:, :4])
    assert not torch.allclose(network(changed)[:, 4], logits[:, 4])


@torch.no_grad()
def test_step_reproduces_teacher_forcing_and_reorder_keeps_rows(network):
    x = tokens()
    full = network(x)
    state = None
    for t in range(T):
        out, state = network.step(x[:, t], state)
        torch.testing.assert_close(out, full[:, t], atol=1e-5, rtol=1e-4)
        if t == 3:
            keep = torch.tensor([0, 2])
            state = network.reorder_state(state, keep)
            x, full = x[keep], full[keep]


def test_hyperparameters_rebuild_the_network(network):
    hp = network.hyperparameters()
    assert hp["vocab_size"] == V
    rebuilt = build_network(type(network).name, **hp)
    shapes = {k: v.shape for k, v in network.state_dict().items()}
    assert {k: v.shape for k, v in rebuilt.state_dict().items()} == shapes
    rebuilt.load_state_dict(network.state_dict())
    rebuilt.eval()
    with torch.no_grad():
        torch.testing.assert_close(rebuilt(tokens()), network(tokens()))
