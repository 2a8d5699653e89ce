"""DAP's likelihood penalty (original REINVENT's regulariser, run by PMO's REINVENT with c = 5,000).

Closed form: for one row with a free log-likelihood l < 0 and target t, the loss (t − l)² + c·(−1/l) is
stationary where 2(l − t) + c/l² = 0, so the penalty holds the fitted log-likelihood below DAP's target by
c/(2l²); c = 0 is plain DAP.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mara_chem.rl.strategies import StrategyBatch, build_strategy


def _batch(agent_logp: torch.Tensor, prior_logp: float, score: float, n: int = 1) -> StrategyBatch:
    return StrategyBatch(agent_logp=agent_logp, prior_logp=torch.full((n,), prior_logp),
                         scores=torch.full((n,), score), outcome_ids=torch.arange(n),
                         is_replay=torch.zeros(n, dtype=torch.bool))


def test_penalty_adds_c_times_mean_negative_inverse_log_likelihood():
    logp = torch.tensor([-2.0, -0.5, -10.0, -1.0])
    batch = StrategyBatch(agent_logp=logp, prior_logp=torch.tensor([-3.0, -2.0, -11.0, -4.0]),
                          scores=torch.tensor([0.1, 0.9, 0.0, 0.5]), outcome_ids=torch.arange(4),
                          is_replay=torch.tensor([False, False, False, True]))
    plain = build_strategy(type="dap", sigma=60)(batch)
    penalised = build_strategy(type="dap", sigma=60, likelihood_penalty=5000)(batch)
    expected = 5000 * float((-1.0 / logp).mean())  # every row, the replay row included
    assert float(penalised.loss - plain.loss) == pytest.approx(expected, rel=1e-6)
    assert penalised.info["likelihood_penalty"] == pytest.approx(expected, rel=1e-6)
    assert "likelihood_penalty" not in plain.info


@pytest.mark.parametrize("c", [0.0, 2.0, 20.0])
def test_one_row_fixed_point_is_the_root_of_the_stationarity_cubic(c: float):
    prior_logp, score, sigma = -6.0, 0.5, 4.0
    target = prior_logp + sigma * score  # t = -4
    strategy = build_strategy(type="dap", sigma=sigma, likelihood_penalty=c)
    logp = torch.tensor([-1.0], requires_grad=True)
    opt = torch.optim.Adam([logp], lr=0.1)
    for _ in range(1200):
        opt.zero_grad()
        strategy(_batch(logp, prior_logp, score)).loss.backward()
        opt.step()
    # 2(l − t) + c/l² = 0  <=>  2l³ − 2t·l² + c = 0; the root below 0
    roots = np.roots([2.0, -2.0 * target, 0.0, c])
    real = [r.real for r in roots if abs(r.imag) < 1e-9 and r.real < 0]
    assert float(logp) == pytest.approx(max(real), abs=1e-3)
    if c:
        assert float(logp) < target  # the penalty pulls the row below DAP's target
