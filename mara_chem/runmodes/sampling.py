"""``run_type = "sampling"``: N molecules from any prior or agent file, with their NLL, optionally scored.

Output is written to a temporary file and renamed at the end, so a killed run leaves either the complete
file or none; running the same file again starts over (sampling is cheap) and an existing output is
never overwritten without ``--overwrite``.
"""

from __future__ import annotations

import csv
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from mara_chem.chem.sdf import write_rows_sdf
from mara_chem.chem.smiles import canonicalize
from mara_chem.models.prior_file import PriorFileError, load_prior
from mara_chem.runmodes.config import SamplingConfig
from mara_chem.runmodes.errors import RunModeError, resolve_device_or_error
from mara_chem.runmodes.scoring import score_columns, score_rows
from mara_chem.scoring.scorer import Scorer


@dataclass
class SamplingResult:
    output_file: Path
    rows: int
    drawn: int
    seconds: float
    sdf_file: Path | None = None


def _atomic_writer(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    return tmp, open(tmp, "w", newline="")


def draw(model, p, say) -> tuple[list[dict[str, object]], int]:
    """Sample until ``num_smiles`` rows pass the valid/unique rules or ``max_samples`` draws are spent."""
    limit = p.max_samples or 20 * p.num_smiles
    rows: list[dict[str, object]] = []
    seen: set[str] = set()
    drawn = 0
    while len(rows) < p.num_smiles and drawn < limit:
        accepted = len(rows) / drawn if drawn else 1.0  # draw about what is still missing, not a whole batch
        wanted = math.ceil((p.num_smiles - len(rows)) / max(accepted, 0.05) * 1.05) + 8
        n = min(p.batch_size, limit - drawn, wanted)
        batch = model.sample(n, temperature=p.temperature)
        nll = (-model.sequence_log_likelihood(batch.tokens)).tolist()
        drawn += n
        for smi, value in zip(batch.smiles, nll):
            canon = canonicalize(smi)
            if (p.valid_only and canon is None) or (p.unique_molecules and (canon or smi) in seen):
                continue
            seen.add(canon or smi)
            rows.append({"SMILES": canon or smi, "NLL": round(value, 4), "valid": int(canon is not None)})
            if len(rows) == p.num_smiles:
                break
    if len(rows) < p.num_smiles:
        say(f"warning: only {len(rows)} of {p.num_smiles} molecules passed the rules in {drawn} draws "
            "([parameters.max_samples])")
    return rows, drawn


def run_sampling(cfg: SamplingConfig, overwrite: bool = False, quiet: bool = False) -> SamplingResult:
    p = cfg.parameters
    say = (lambda text: None) if quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    out = Path(p.output_file)
    sdf = Path(p.sdf_file) if p.sdf_file else None
    for path, key in ((out, "output_file"), (sdf, "sdf_file")):
        if path is not None and path.exists() and not overwrite:
            raise RunModeError(f"[parameters.{key}] {path} exists; use --overwrite or another name")
    try:
        model = load_prior(p.model_file, resolve_device_or_error(cfg.device))
    except PriorFileError as exc:
        raise RunModeError(f"[parameters.model_file] {exc}") from None
    scorer = Scorer(cfg.scoring) if cfg.scoring is not None else None
    if cfg.seed is not None:
        torch.manual_seed(cfg.seed)
    start = time.perf_counter()
    rows, drawn = draw(model, p, say)
    seconds = time.perf_counter() - start
    columns = ["SMILES", "NLL", "valid"]
    if scorer is not None:
        try:
            score_rows(scorer, rows)
        finally:
            scorer.close()
        columns += score_columns(scorer.endpoint_names)
    tmp, handle = _atomic_writer(out)
    with handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    if sdf is not None:
        write_rows_sdf(rows, sdf)
    os.replace(tmp, out)
    say(f"{len(rows)} molecules from {drawn} draws in {seconds:.1f} s ({drawn / max(seconds, 1e-9):.0f} samples/s)")
    return SamplingResult(out, len(rows), drawn, seconds, sdf)
