"""Bundled files are found by name; a path that exists always wins; old checkout paths still resolve."""

from __future__ import annotations

import pytest

from mara_chem import resources
from mara_chem.models.prior_file import PriorFileError, read_metadata, resolve_prior_path
from mara_chem.scoring.spec import ScoringSpec, load_scoring_file


def test_bundled_files_by_name_and_by_old_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside the checkout: the old relative paths do not exist here
    prior = resources.bundled_prior()
    assert prior.parent == resources.resource_dir("priors") and prior.stat().st_size > 2_000_000
    for name in ("moses-gru-2x256", "moses-gru-2x256.prior", "priors/moses-gru-2x256.prior"):
        assert resolve_prior_path(name) == prior
    assert read_metadata("moses-gru-2x256")["model_type"] == "rnn"
    for name in ("similar_to_references.toml", "similar_to_references", "scoring/similar_to_references.toml"):
        assert "component" in load_scoring_file(name)
    assert resources.resolve("models", "brenk_alert_logreg").name == "brenk_alert_logreg.json"


def test_an_existing_path_wins_over_a_bundled_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    own = tmp_path / "similar_to_references.toml"
    own.write_text('type = "arithmetic_mean"\n[[component]]\n[component.QED]\n[[component.QED.endpoint]]\nname = "q"\n')
    assert ScoringSpec(filename="similar_to_references.toml").type == "arithmetic_mean"
    assert resources.resolve("scoring", "similar_to_references.toml") == own.relative_to(tmp_path)


def test_unknown_names_list_what_is_bundled(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PriorFileError, match=r"bundled priors: \['moses-gru-2x256.prior', 'zinc-gru-2x256-e11.prior', 'zinc-gru-2x256.prior'\]"):
        read_metadata("no-such-prior")
    with pytest.raises(ValueError, match=r"bundled scoring files: \['similar_to_references.toml'\]"):
        load_scoring_file("no_such_file.toml")
