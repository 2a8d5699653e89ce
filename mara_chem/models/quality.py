"""Validity, uniqueness and novelty of a prior's samples (what `mara-chem prior sample` prints)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path

from mara_chem.chem.smiles import canonicalize
from mara_chem.models.language_model import LanguageModel


def sample_report(
    model: LanguageModel,
    n: int,
    temperature: float = 1.0,
    training_smiles: Sequence[str] | None = None,
    out: Path | None = None,
    batch_size: int = 1000,
) -> dict[str, float | int]:
    smiles: list[str] = []
    while len(smiles) < n:
        smiles.extend(model.sample(min(batch_size, n - len(smiles)), temperature=temperature).smiles)
    canon = [canonicalize(s) for s in smiles]
    valid = [c for c in canon if c]
    unique = set(valid)
    report: dict[str, float | int] = {
        "samples": n,
        "valid": len(valid),
        "validity": len(valid) / n,
        "uniqueness": len(unique) / max(1, len(valid)),
    }
    if training_smiles is not None:
        with Pool(max(1, os.cpu_count() or 1)) as pool:  # 1.6 M MOSES SMILES: a minute on 2 cores
            known = {c for c in pool.map(canonicalize, training_smiles, chunksize=4096) if c}
        report["novelty"] = len(unique - known) / max(1, len(unique))
    if out is not None:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("SMILES,canonical\n" + "".join(f"{s},{c or ''}\n" for s, c in zip(smiles, canon)))
    return report
