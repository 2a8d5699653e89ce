"""Why a variant behaves as it does, from one run's summary CSVs: how often a batch holds several strict hits
(MARA's high set H), the anchor's score, how often outcomes repeat in a batch (the IPS factor n_o/G, for exact
molecules and for Murcko scaffolds) and the in-batch duplicate rate."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchlab.jobs import Job

DIAGNOSTICS = ("dup_rate", "high_per_batch", "steps_with_2plus_high", "anchor_score", "ips_factor_molecule",
               "ips_factor_scaffold")


def run_diagnostics(job: Job) -> dict[str, Any]:
    """Per-run means over steps (NaN-free floats, or None when the summary CSV is absent).

    ``high_per_batch``: rows of a batch whose filtered score is ≥ the strict threshold; ``anchor_score``: the
    filtered score of the most prior-likely such row in batches with two or more; ``ips_factor_*``: mean over
    scored rows of n_o/G (G = scored rows of the batch), 1/G when nothing repeats.
    """
    paths = sorted(job.run_dir.glob("summary_*.csv"))
    if not paths:
        return {k: None for k in DIAGNOSTICS}
    wanted = {"Prior", "Score", "SMILES", "SMILES_state", "Scaffold", "step"}  # no Scaffold column without a filter
    df = pd.concat([pd.read_csv(p, usecols=lambda c: c in wanted,
                                on_bad_lines="skip", keep_default_na=False, na_values=[""]) for p in paths], ignore_index=True)
    df["SMILES_state"] = pd.to_numeric(df["SMILES_state"], errors="coerce")
    steps = df.groupby("step")
    dup = steps["SMILES_state"].apply(lambda s: float((s == 2).mean()))
    scored = df[df["Score"].notna()]
    high_counts, anchors, f_mol, f_scaf = [], [], [], []
    for _, batch in scored.groupby("step"):
        high = batch[batch["Score"] >= job.task.strict]
        high_counts.append(len(high))
        if len(high) >= 2:
            anchors.append(float(high.loc[high["Prior"].idxmin(), "Score"]))
        g = len(batch)
        f_mol.append(float(batch.groupby("SMILES")["SMILES"].transform("size").mean()) / g)
        if "Scaffold" in batch:
            f_scaf.append(float(batch.groupby(batch["Scaffold"].fillna(""))["SMILES"].transform("size").mean()) / g)
    high_counts = np.asarray(high_counts, dtype=float)
    return {
        "dup_rate": float(dup.mean()),
        "high_per_batch": float(high_counts.mean()) if high_counts.size else None,
        "steps_with_2plus_high": float((high_counts >= 2).mean()) if high_counts.size else None,
        "anchor_score": float(np.mean(anchors)) if anchors else None,
        "ips_factor_molecule": float(np.mean(f_mol)) if f_mol else None,
        "ips_factor_scaffold": float(np.mean(f_scaf)) if f_scaf else None,
    }
