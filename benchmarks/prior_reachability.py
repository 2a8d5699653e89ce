"""How reachable are PMO's reference molecules from a prior? NLL of each against held-out NLLs.

The held-out molecules are the prior's own validation split, rebuilt by the same ``prepare_data`` call the
training command made (same SMILES file, seed, maximum length and token rule), so they were never trained on.
For each PMO reference molecule (the targets and anchors of guacamol's objectives) the table gives its NLL
(−log p, nats) and the share of held-out molecules the prior finds less likely (its percentile): a reference at
the 99th percentile is as improbable as the least likely 1 % of real ZINC molecules. A molecule the
vocabulary cannot spell has no NLL (named instead).

    OMP_NUM_THREADS=1 python benchmarks/prior_reachability.py --prior priors/zinc-gru-2x256.prior \\
        --smiles data/zinc250k.smi --max-length 128 --out priors/zinc-gru-2x256.reachability.md
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import torch

from mara_chem.chem.smiles import canonicalize
from mara_chem.models.prior_file import load_prior
from mara_chem.models.tokenizer import tokenize
from mara_chem.models.training import TrainConfig, prepare_data, read_smiles_file

#: the reference molecules of the PMO objectives (guacamol 0.5.5's definitions)
REFERENCES = {
    "celecoxib": "CC1=CC=C(C=C1)C1=CC(=NN1C1=CC=C(C=C1)S(N)(=O)=O)C(F)(F)F",
    "troglitazone": "Cc1c(C)c2OC(C)(COc3ccc(CC4SC(=O)NC4=O)cc3)CCc2c(C)c1O",
    "thiothixene": "CN(C)S(=O)(=O)c1ccc2Sc3ccccc3C(=CCCN4CCN(C)CC4)c2c1",
    "albuterol": "CC(C)(C)NCC(O)c1ccc(O)c(CO)c1",
    "mestranol": "COc1ccc2[C@H]3CC[C@@]4(C)[C@@H](CC[C@@]4(O)C#C)[C@@H]3CCc2c1",
    "camphor": "CC1(C)C2CCC1(C)C(=O)C2",
    "menthol": "CC(C)C1CCC(C)CC1O",
    "tadalafil": "O=C1N(CC(N2C1CC3=C(C2C4=CC5=C(OCO5)C=C4)NC6=C3C=CC=C6)=O)C",
    "sildenafil": "CCCC1=NN(C2=C1N=C(NC2=O)C3=C(C=CC(=C3)S(=O)(=O)N4CCN(CC4)C)OCC)C",
    "osimertinib": "COc1cc(N(C)CCN(C)C)c(NC(=O)C=C)cc1Nc2nccc(n2)c3cn(C)c4ccccc34",
    "fexofenadine": "CC(C)(C(=O)O)c1ccc(cc1)C(O)CCCN2CCC(CC2)C(O)(c3ccccc3)c4ccccc4",
    "ranolazine": "COc1ccccc1OCC(O)CN2CCN(CC(=O)Nc3c(C)cccc3C)CC2",
    "perindopril": "O=C(OCC)C(NC(C(=O)N1C(C(=O)O)CC2CCCCC12)C)CCC",
    "amlodipine": r"Clc1ccccc1C2C(=C(/N/C(=C2/C(=O)OCC)COCCN)C)\C(=O)OC",
    "sitagliptin": "Fc1cc(c(F)cc1F)CC(N)CC(=O)N3Cc2nnc(n2CC3)C(F)(F)F",
    "zaleplon": "O=C(C)N(CC)C1=CC=CC(C2=CC=NC3=C(C=NN23)C#N)=C1",
    "deco/scaffold hop reference": "CCCOc1cc2ncnc(Nc3ccc4ncsc4c3)c2cc1S(=O)(=O)C(C)(C)C",
}


def nll(model, smiles: list[str], batch: int = 500) -> np.ndarray:
    out = []
    with torch.no_grad():
        for i in range(0, len(smiles), batch):
            out.append(-model.log_likelihood(smiles[i:i + batch]).numpy())
    return np.concatenate(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--prior", required=True)
    p.add_argument("--smiles", required=True, help="the SMILES file the prior was trained on")
    p.add_argument("--max-length", type=int, default=100, help="as given to `mara-chem prior train`")
    p.add_argument("--seed", type=int, default=0, help="as given to `mara-chem prior train`")
    p.add_argument("--out", type=Path, default=None, help="write the markdown table here too")
    args = p.parse_args(argv)
    model = load_prior(args.prior)
    model.network.eval()
    cfg = TrainConfig(max_length=args.max_length, seed=args.seed)
    data = prepare_data(read_smiles_file(args.smiles), cfg, vocabulary=None)
    if data.vocabulary != model.vocabulary:
        raise SystemExit("the rebuilt vocabulary differs from the prior's: not the prior's training data or options")
    held = nll(model, data.valid)
    vocab = [t for t in model.vocabulary.tokens[3:]]
    charged = [t for t in vocab if "+" in t or "-" in t]
    stereo = [t for t in vocab if "@" in t] + [t for t in vocab if t in ("/", "\\")]
    rare = Counter(t for smi in data.unspellable for t in set(tokenize(smi)) if t not in model.vocabulary.index)
    lines = [f"# Reachability of the PMO reference molecules: `{args.prior}`", "",
             f"Held-out: the prior's validation split, {len(held)} ZINC molecules never trained on; their NLL "
             f"(nats) median {np.median(held):.2f}, 90th percentile {np.quantile(held, 0.9):.2f}, 99th "
             f"{np.quantile(held, 0.99):.2f}, max {held.max():.2f}. Percentile: share of held-out molecules with a "
             "lower NLL (more likely). Command: `python benchmarks/prior_reachability.py "
             + " ".join(sys.argv[1:] if argv is None else argv) + "`.", "",
             f"Vocabulary: {len(vocab)} tokens (+ 3 special); charged: {' '.join(charged) or 'none'}; stereo: "
             f"{' '.join(stereo) or 'none'}. Unspellable (tokens seen fewer than 10 times, left out of training): "
             f"{len(data.unspellable)} molecules, tokens "
             + ", ".join(f"`{t}` ({n})" for t, n in rare.most_common()) + ".", "",
             "| reference | NLL | percentile among held-out | note |", "|---|---|---|---|"]
    for name, smiles in REFERENCES.items():
        canon = canonicalize(smiles)
        unknown = sorted(set(model.vocabulary.unknown_tokens(canon)))
        if unknown:
            lines.append(f"| {name} | – | – | unspellable: tokens {', '.join(unknown)} |")
            continue
        value = float(nll(model, [canon])[0])
        lines.append(f"| {name} | {value:.2f} | {100 * float((held < value).mean()):.1f} % | |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
