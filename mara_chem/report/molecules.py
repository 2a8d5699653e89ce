"""Hit exports: the hit frame, ``hits.csv`` (rounded) and ``hits.sdf`` (every column an SD property)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from mara_chem.chem.sdf import write_rows_sdf
from mara_chem.chem.smiles import murcko_scaffold
from mara_chem.run_folder.oracle_log import LoggedMolecule


def hits_frame(found: Sequence[LoggedMolecule], log_df: pd.DataFrame | None = None) -> pd.DataFrame:
    """Hits sorted by score (desc, then call), with scaffold and the log's endpoint columns of the first call."""
    df = pd.DataFrame(found, columns=list(LoggedMolecule._fields))
    df["scaffold"] = [murcko_scaffold(s) for s in df["smiles"]]
    if log_df is not None and len(df):
        extra = [c for c in log_df.columns if c not in ("step", "smiles", "score", "canonical")]
        df = df.merge(log_df[extra], on="call", how="left")
    return df.sort_values(["score", "call"], ascending=[False, True], kind="stable").reset_index(drop=True)


def rounded(df: pd.DataFrame) -> pd.DataFrame:
    """Scores in [0, 1] to 4 decimals, raw values (kcal/mol, Da, ...) to 3: what a chemist reads, not float noise."""
    out = df.copy()
    for col in out.select_dtypes("float").columns:
        values = out[col].dropna()
        out[col] = out[col].round(4 if len(values) and values.between(0.0, 1.0).all() else 3)
    return out


def write_hits_csv(df: pd.DataFrame, path: Path) -> Path:
    rounded(df).to_csv(path, index=False)
    return path


def write_hits_sdf(df: pd.DataFrame, path: Path) -> int:
    """One record per hit (2D, no conformer search) with every column as an SD property; returns the count."""
    return write_rows_sdf(rounded(df).to_dict("records"), path, smiles_key="smiles")
