"""Hit exports: ``hits.csv``, ``hits.sdf`` (RDKit SDWriter with score properties) and the top-hits grid."""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from rdkit import Chem
from rdkit.Chem import Draw

from mara_chem.chem.smiles import murcko_scaffold, to_mol
from mara_chem.run_folder.oracle_log import Molecule


def hits_frame(found: Sequence[Molecule], log_df: pd.DataFrame | None = None) -> pd.DataFrame:
    """Hits sorted by score (desc, then call), with scaffold and the log's endpoint columns of the first call."""
    df = pd.DataFrame(found, columns=list(Molecule._fields))
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


def top_hits_table(df: pd.DataFrame, extra: list[str]) -> str:
    """HTML table of the top hits with the files components attached to them (e.g. a docking pose)."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in ["#", "SMILES", "score", *extra])
    rows = "".join(
        "<tr>" + "".join(f'<td style="text-align:left">{html.escape(str(v))}</td>'
                         for v in [n, r["smiles"], f"{r['score']:.3f}", *(r[c] or "(none)" for c in extra)]) + "</tr>"
        for n, r in enumerate(df.to_dict("records"), start=1))
    return f'<table class="metrics"><tr>{head}</tr>{rows}</table>'


def _set_prop(mol: Chem.Mol, name: str, value: object) -> None:
    if isinstance(value, float):
        if not math.isnan(value):
            mol.SetDoubleProp(name, value)
    elif isinstance(value, (int,)) and not isinstance(value, bool):
        mol.SetIntProp(name, value)
    elif value is not None and str(value) not in ("", "nan"):
        mol.SetProp(name, str(value))


def write_hits_sdf(df: pd.DataFrame, path: Path) -> int:
    """One record per hit (2D, no conformer search) with every column as an SD property; returns the count."""
    written = 0
    with Chem.SDWriter(str(path)) as writer:
        for row in df.to_dict("records"):
            mol = to_mol(row["smiles"])
            if mol is None:
                continue
            mol.SetProp("_Name", row["smiles"])
            for key, value in row.items():
                _set_prop(mol, str(key), value.item() if hasattr(value, "item") else value)
            writer.write(mol)
            written += 1
    return written


def grid_png(df: pd.DataFrame, top: int = 24, per_row: int = 6) -> str | None:
    """Base64 PNG grid of the ``top`` best hits, legends 'score (call)'; None when there are no hits."""
    rows = df.head(top)
    mols = [to_mol(s) for s in rows["smiles"]]
    legends = [f"{sc:.3f} (call {c})" for sc, c in zip(rows["score"], rows["call"])]
    pairs = [(m, lg) for m, lg in zip(mols, legends) if m is not None]
    if not pairs:
        return None
    png = Draw.MolsToGridImage([m for m, _ in pairs], molsPerRow=per_row, subImgSize=(220, 200),
                               legends=[lg for _, lg in pairs], returnPNG=True)
    return base64.b64encode(png).decode("ascii")
