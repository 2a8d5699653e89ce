"""Mode-collapse diagnostics: scaffold concentration of the hits and in-batch duplicates per step."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from mara_chem.chem.smiles import SmilesState, murcko_scaffold
from mara_chem.metrics.metric import Column, HitsAtThreshold, LoggedRun, run_metrics, threshold_metrics


def scaffold_stats(smiles: Sequence[str]) -> dict[str, object]:
    """Unique Bemis-Murcko scaffolds among the hits and the most common one's share of the hits.

    Acyclic molecules share the empty scaffold '' and count as one scaffold class. Share is None for no hits.
    """
    counts = Counter(s for s in (murcko_scaffold(smi) for smi in smiles) if s is not None)
    if not counts:
        return {"n_scaffolds": 0, "top_scaffold": None, "top_scaffold_count": 0, "top_scaffold_share": None}
    top, count = counts.most_common(1)[0]
    return {"n_scaffolds": len(counts), "top_scaffold": top, "top_scaffold_count": count,
            "top_scaffold_share": count / len(smiles)}


def duplicate_fraction(states: Sequence[int]) -> float | None:
    """Fraction of a sampled batch flagged duplicate (SMILES_state == 2) over the whole batch, invalid included."""
    return sum(1 for s in states if s == SmilesState.DUPLICATE) / len(states) if len(states) else None


def _stage_number(path: Path) -> int:
    match = re.search(r"_(\d+)\.csv$", path.name)
    return int(match.group(1)) if match else 0


def read_summaries(run_dir: str | Path) -> pd.DataFrame | None:
    """``step``, ``SMILES_state`` and ``stage`` from every ``summary_<stage>.csv``; None if there is none."""
    paths = sorted(Path(run_dir).glob("summary_*.csv"), key=_stage_number)
    frames = []
    for path in paths:
        df = pd.read_csv(path, usecols=["step", "SMILES_state"], on_bad_lines="skip")
        df = df.apply(pd.to_numeric, errors="coerce").dropna().astype(int)
        frames.append(df.assign(stage=_stage_number(path)))
    return pd.concat(frames, ignore_index=True) if frames else None


def duplicate_fraction_per_step(summary: pd.DataFrame) -> pd.DataFrame:
    """Per (stage, step): batch size, duplicates and their fraction."""
    grouped = summary.groupby(["stage", "step"])["SMILES_state"]
    duplicates = grouped.apply(lambda s: int((s == SmilesState.DUPLICATE).sum()))
    out = pd.DataFrame({"n": grouped.size(), "duplicates": duplicates})
    out["fraction"] = out["duplicates"] / out["n"]
    return out.reset_index()


def batch_duplicates(run_dir: str | Path) -> dict[str, object]:
    """Summary of in-batch duplicates for metrics.json; ``available`` False (n/a) without summary CSVs."""
    summary = read_summaries(run_dir)
    if summary is None or summary.empty:
        return {"available": False, "mean": None, "last": None, "max": None, "per_step": []}
    per_step = duplicate_fraction_per_step(summary)
    return {
        "available": True,
        "mean": float(per_step["fraction"].mean()),
        "last": float(per_step["fraction"].iloc[-1]),
        "max": float(per_step["fraction"].max()),
        "per_step": [{"stage": int(r.stage), "step": int(r.step), "n": int(r.n), "fraction": float(r.fraction)}
                     for r in per_step.itertuples()],
    }


@threshold_metrics(Column("n_scaffolds", "#Scaffolds", "d", benchmark=True),
                   Column("top_scaffold_share", "Top scaffold share", ".3f"), column=60,
                   conventions={"scaffolds": "Bemis-Murcko (RDKit); acyclic hits share the empty scaffold"})
def _scaffolds(h: HitsAtThreshold) -> dict[str, object]:
    return scaffold_stats(h.smiles)


@run_metrics(column=70, conventions={
    "duplicate_fraction": "per step, SMILES_state == 2 over all sampled SMILES in the batch (summary CSVs)"})
def _batch_duplicates(run: LoggedRun) -> dict[str, object]:
    return {"batch_duplicates": batch_duplicates(run.run_dir)}
