"""Sampling throughput of a prior: SMILES/s and valid SMILES/s end to end (sampling + decoding to strings +
RDKit validity), per batch size.

    python benchmarks/sampling_throughput.py --prior priors/moses-gru-2x256.prior --batch-sizes 1024 4096 --device cpu

Each batch size is sampled ``--repeats`` times after one warm-up batch; the figure is total SMILES over total
wall time. Validity is counted apart (RDKit parsing is CPU work that a GPU run pays too) and reported both
as a rate and as the time it adds.
"""

from __future__ import annotations

import argparse
import time

import torch
from rdkit import Chem, RDLogger

from mara_chem.models.prior_file import load_prior


def _valid(smiles: list[str]) -> int:
    RDLogger.DisableLog("rdApp.*")
    try:
        return sum(1 for s in smiles if s and Chem.MolFromSmiles(s) is not None)
    finally:
        RDLogger.EnableLog("rdApp.*")


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prior", default="priors/moses-gru-2x256.prior")
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=[1024, 4096, 16384])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    device = torch.device(args.device)
    model = load_prior(args.prior, device)
    model.network.eval().requires_grad_(False)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"cpu ({torch.get_num_threads()} threads)"
    print(f"prior={args.prior} device={name} torch={torch.__version__}")
    print("| batch | SMILES/s (sample+decode) | valid fraction | valid SMILES/s (incl. RDKit) |")
    print("|---|---|---|---|")
    generator = torch.Generator(device=device).manual_seed(0)
    for batch in args.batch_sizes:
        model.sample(batch, generator=generator)  # warm-up (kernels, allocator)
        n = valid = 0
        sample_s = rdkit_s = 0.0
        for _ in range(args.repeats):
            _sync(device)
            t0 = time.perf_counter()
            smiles = model.sample(batch, generator=generator).smiles
            _sync(device)
            t1 = time.perf_counter()
            valid += _valid(smiles)
            rdkit_s += time.perf_counter() - t1
            sample_s += t1 - t0
            n += len(smiles)
        print(f"| {batch} | {n / sample_s:,.0f} | {valid / n:.3f} | {valid / (sample_s + rdkit_s):,.0f} |", flush=True)


if __name__ == "__main__":
    main()
