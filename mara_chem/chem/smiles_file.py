"""Reading a file of SMILES (the first column of .smi/.csv/.txt, optionally gzipped): series, training sets,
reference sets. On the chem floor so that anything that matches or trains on such a file reads it one way."""

from __future__ import annotations

from pathlib import Path


def read_smiles_file(path: str | Path) -> list[str]:
    """First column of a .smi/.csv/.txt (optionally .gz) file; a header named like 'smiles' is skipped."""
    import gzip

    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    out: list[str] = []
    with opener(path, "rt") as handle:
        for n, line in enumerate(handle):
            field0 = line.strip().replace("\t", ",").replace(" ", ",").split(",")[0]
            if not field0 or (n == 0 and field0.lower() in ("smiles", "smile", "canonical_smiles")):
                continue
            out.append(field0)
    return out
