"""Alert severity: soft Brenk alerts found in drugs are a penalty, hard ones remove the molecule, and any
catalogue entry's factor can be set by its name; names are joined once per cell."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError
from rdkit import Chem

from mara_chem.chem.alerts import (SOFT_ALERTS, alert_factor, alert_names, entry_names, join_names,
                                   split_names)
from mara_chem.scoring.component import build_component
from tests.paths import REPO

ALKENE = "C=CCCc1ccccc1"  # Brenk isolated_alkene only
ANILINE_ALKYNE = "Nc1ccccc1C#C"  # Brenk aniline and triple_bond
MICHAEL = "C=CC(=O)c1ccccc1"  # a Brenk Michael acceptor (hard)
PAINS = "CCN(CC)c1ccc(C=Cc2ccccc2)cc1"  # PAINS anil_di_alk
CLEAN = "CC(C)Cc1ccc(C(C)C(=O)O)cc1"  # ibuprofen


def _names(smiles: str) -> list[str]:
    return alert_names(Chem.MolFromSmiles(smiles))


def test_every_soft_alert_is_a_brenk_entry() -> None:
    assert SOFT_ALERTS <= entry_names(("BRENK",))


def test_soft_alerts_multiply_hard_alerts_remove() -> None:
    assert _names(ALKENE) == ["isolated_alkene"] and set(_names(ANILINE_ALKYNE)) == {"aniline", "triple_bond"}
    component = build_component("StructuralAlerts", {})
    values = list(component([ALKENE, ANILINE_ALKYNE, MICHAEL, PAINS, CLEAN]).values)
    assert values == pytest.approx([0.8, 0.8 * 0.8, 0.0, 0.0, 1.0])
    assert alert_factor(["aniline", "aniline"]) == pytest.approx(0.8)  # an entry counts once


def test_severity_sets_an_entrys_factor_by_name() -> None:
    strict = build_component("StructuralAlerts", {"severity": {"aniline": 0.0}, "soft_penalty": 0.5})
    assert list(strict([ALKENE, ANILINE_ALKYNE]).values) == pytest.approx([0.5, 0.0])
    lenient = build_component("StructuralAlerts", {"severity": {"Michael_acceptor_1": 0.6}})
    assert _names(MICHAEL) == ["Michael_acceptor_1"]
    assert list(lenient([MICHAEL]).values) == pytest.approx([0.6])
    all_hard = build_component("StructuralAlerts", {"soft_penalty": 0.0})
    assert list(all_hard([ALKENE]).values) == [0.0]


def test_unknown_entry_and_bad_factor_are_refused() -> None:
    with pytest.raises(ValidationError, match=r"severity names \['anilin'\]"):
        build_component("StructuralAlerts", {"severity": {"anilin": 0.5}})
    with pytest.raises(ValidationError, match="isolated_alkene"):  # a Brenk name, but Brenk is not searched
        build_component("StructuralAlerts", {"catalogs": ["PAINS"], "severity": {"isolated_alkene": 0.5}})
    with pytest.raises(ValidationError, match=r"must be in \[0, 1\]"):
        build_component("StructuralAlerts", {"severity": {"aniline": 1.5}})


def test_names_are_joined_once_without_spaces() -> None:
    assert join_names(["aniline", " triple_bond", "aniline", ""]) == "aniline;triple_bond"
    assert split_names("aniline;triple_bond") == ["aniline", "triple_bond"] and split_names("") == []


def test_shipped_objectives_penalise_soft_alerts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped project objective: an isolated alkene lowers the score (alerts 0.8), a PAINS alert removes it."""
    from mara_chem.cli import main

    repo = REPO
    monkeypatch.chdir(repo)  # the objective names its series file relative to the checkout
    source, out = tmp_path / "lib.csv", tmp_path / "scores.csv"
    source.write_text("id,SMILES\nsoft,C=CCCn1nc(C)cc1C(=O)NC1CCOCC1\nhard,CCN(CC)c1ccc(-n2nc(C)cc2C(=O)NC2CCOCC2)cc1\n")
    toml = tmp_path / "score.toml"
    toml.write_text(f'run_type = "scoring"\n[parameters]\nsmiles_file = "{source}"\noutput_csv = "{out}"\n'
                    '[scoring]\nfilename = "configs/scoring/pyrazole_amides_project.toml"\n')
    assert main(["run", str(toml)]) == 0
    import csv

    rows = {r["id"]: r for r in csv.DictReader(out.open())}
    assert float(rows["soft"]["alerts_raw"]) == pytest.approx(0.8) and float(rows["soft"]["score"]) > 0
    assert float(rows["hard"]["alerts_raw"]) == 0.0 and float(rows["hard"]["score"]) == 0.0
    from mara_chem.scoring.scorer import Scorer
    from mara_chem.scoring.spec import ScoringSpec

    shipped = Scorer(ScoringSpec.model_validate({"filename": "similar_to_references.toml"}))
    result = shipped(["C=CCCc1ccc(S(N)(=O)=O)cc1", PAINS])
    assert list(result.raw["alerts"]) == pytest.approx([0.8, 0.0]) and result.total[0] > 0.0
