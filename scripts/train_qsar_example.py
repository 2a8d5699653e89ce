"""Trains the example model `mara_chem/resources/models/brenk_alert_logreg.json` (for the `qsar` component).

The label is real but cheap: whether RDKit's Brenk unwanted-substructure catalog flags the molecule. A
logistic regression on Morgan fingerprints learns it approximately; the point is to show the plumbing of
the `qsar` component with a model a user could replace by their own activity model. The model is written
as a JSON linear model (coefficients only), so loading it runs no code and needs no `trusted = true`.

    .venv/bin/python scripts/train_qsar_example.py --smiles data/moses_train.csv.gz --n 20000
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from rdkit.Chem.FilterCatalog import FilterCatalog, FilterCatalogParams
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from mara_chem.chem.smiles import to_mol
from mara_chem.models.training import read_smiles_file
from mara_chem.scoring.components.qsar import fingerprint_matrix
from mara_chem.scoring.qsar_models import save_linear_model


def brenk_flags(smiles: list[str]) -> list[int]:
    params = FilterCatalogParams()
    params.AddCatalog(FilterCatalogParams.FilterCatalogs.BRENK)
    catalog = FilterCatalog(params)
    return [int(catalog.HasMatch(to_mol(s))) for s in smiles]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smiles", type=Path, required=True)
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--out", type=Path, default=Path("mara_chem/resources/models/brenk_alert_logreg.json"))
    args = parser.parse_args()
    smiles = read_smiles_file(args.smiles)
    random.Random(0).shuffle(smiles)
    smiles = smiles[: args.n]
    x, keep = fingerprint_matrix(smiles)
    y = brenk_flags([smiles[i] for i in keep])
    split = int(0.8 * len(y))
    model = LogisticRegression(max_iter=2000, C=0.5).fit(x[:split], y[:split])
    auc = roc_auc_score(y[split:], model.predict_proba(x[split:])[:, 1])
    record = {"model": "LogisticRegression(C=0.5) on Morgan r=2, 2048 bits", "label": "RDKit Brenk catalog match",
              "training_set": f"{split} MOSES train molecules (shuffled, seed 0)", "positives": sum(y[:split]),
              "test_roc_auc": round(float(auc), 4), "n_test": len(y) - split}
    save_linear_model(model, args.out, radius=2, n_bits=2048, metadata=record)
    print(json.dumps(record))


if __name__ == "__main__":
    main()
