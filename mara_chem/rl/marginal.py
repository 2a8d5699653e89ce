"""MIPS's estimate of a molecule's probability p_θ(m) = Σ_s π_θ(s) over its spellings (docs/strategies.md, "MIPS").

The trajectories that end in one molecule are its SMILES spellings. The sum runs over far too many strings to
enumerate, so it is truncated to a set S(m) that is cheap to score and likely to hold most of the agent's mass:

    S(m) = the distinct spellings of m sampled in this batch (their π_θ is already known)
           ∪ {m's canonical SMILES} ∪ {k − 1 random spellings of m}   (k = ``marginal_spellings``),

    p̂(m) = Σ_{s ∈ S(m)} π_θ(s).

Bias: p̂(m) = p_θ(m) − Σ_{s ∉ S(m)} π_θ(s) ≤ p_θ(m), a lower bound, so 1/p̂ is too high by the share of the
agent's mass on the spellings left out; it is exact when the agent spells m only in ways the set holds, and it
grows with k towards p_θ(m). An agent trained on canonical SMILES puts most of a molecule's mass on a few
spellings that the sample and the canonical form usually cover. The random spellings of m are the same at
every step (seeded by m), so the estimate follows the policy rather than the draw. Cost per step: k agent
likelihood passes (no gradient) per distinct valid molecule of the batch, i.e. up to k·G sequences beside
the G of the update; k = 0 costs nothing and uses the batch's own spellings only. An invalid row is an
outcome of its own: p̂ = π_θ(y).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence

import torch

from mara_chem.chem.smiles import randomize

#: log π_θ of each SMILES in a list (no gradient); -inf for one the agent's vocabulary cannot spell
SpellingLogp = Callable[[list[str]], torch.Tensor]


def extra_spellings(molecule: str, k: int) -> list[str]:
    """The canonical SMILES, then k − 1 random spellings seeded by the molecule (the same at every call)."""
    if k <= 0:
        return []
    seed = zlib.crc32(molecule.encode())
    found = [molecule] + [randomize(molecule, seed=seed + j) for j in range(1, k)]
    return list(dict.fromkeys(s for s in found if s))


def spelling_marginal(canonical: Sequence[str | None], raw: Sequence[str], sampled_logp: torch.Tensor,
                      spelling_logp: SpellingLogp, spellings: Callable[[str], list[str]]) -> torch.Tensor:
    """p̂(m_i) per row (float32, detached): Σ π_θ over the batch's distinct spellings of row i's molecule and
    ``spellings(m)`` (:func:`extra_spellings` on SMILES); ``sampled_logp`` is log π_θ of each row's own
    spelling ``raw[i]``."""
    if not (len(canonical) == len(raw) == sampled_logp.shape[0]):
        raise ValueError(f"{len(canonical)} canonical SMILES, {len(raw)} spellings and {sampled_logp.shape[0]} "
                         "log-likelihoods: one each per row")
    logp = sampled_logp.detach().double().cpu()
    known: dict[str, dict[str, float]] = {}  # molecule -> spelling -> log π_θ
    for i, molecule in enumerate(canonical):
        if molecule is not None:
            known.setdefault(molecule, {}).setdefault(raw[i], float(logp[i]))
    to_score = [(m, s) for m, spelt in known.items() for s in spellings(m) if s not in spelt]
    if to_score:
        scored = spelling_logp([s for _, s in to_score]).detach().double().cpu()
        for (molecule, spelling), value in zip(to_score, scored.tolist()):
            known[molecule][spelling] = value
    total = {m: float(torch.logsumexp(torch.tensor(list(spelt.values()), dtype=torch.float64), 0))
             for m, spelt in known.items()}
    out = [total[m] if m is not None else float(logp[i]) for i, m in enumerate(canonical)]
    return torch.tensor(out, dtype=torch.float64).exp().float()
