"""Docstrings cite the repo's own docs/: every cited file exists, and every cited section is a heading there. The
README stays a user's page: short, every page it links to exists, and no doc or code speaks of how it was made
(work sessions, issue numbers, branches) instead of what it is."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.paths import REPO

CITATION = re.compile(r'docs/([\w-]+\.md)(?:, "([^"]+)"(?: and "([^"]+)")?)?')


def _tracked_text_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "*.py", "*.md", "*.toml"], cwd=REPO, capture_output=True, text=True)
    files = [REPO / f for f in out.stdout.split()] if out.returncode == 0 else []
    return files or [p for p in REPO.rglob("*") if p.suffix in (".py", ".md", ".toml") and ".venv" not in p.parts]


def test_no_reference_to_a_design_document_outside_the_repo():
    offenders = [str(p.relative_to(REPO)) for p in _tracked_text_files()
                 if p.is_file() and p.name != "test_docs.py" and "DESIGN.md" in p.read_text(errors="ignore")]
    assert not offenders, f"cite docs/ instead of DESIGN.md in: {offenders}"


def test_cited_docs_and_sections_exist():
    cited = 0
    for path in _tracked_text_files():
        if not path.is_file():
            continue
        for match in CITATION.finditer(path.read_text(errors="ignore")):
            doc = REPO / "docs" / match.group(1)
            assert doc.is_file(), f"{path.relative_to(REPO)} cites missing {doc.relative_to(REPO)}"
            headings = [h.strip() for h in re.findall(r"^#+ (.+)$", doc.read_text(), flags=re.M)]
            for section in filter(None, match.group(2, 3)):
                assert any(h.startswith(section) for h in headings), \
                    f"{path.relative_to(REPO)} cites section {section!r} of {doc.name}; headings: {headings}"
            cited += 1
    assert cited >= 10


def test_readme_is_a_short_page_whose_links_resolve():
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= 520, "the README is a user's page: move reference and history into docs/"
    links = re.findall(r"\]\(([^)#\s]+)\)", readme)
    assert len(links) >= 10
    missing = [link for link in links if "://" not in link and not (REPO / link).exists()]
    assert not missing, f"README links to missing files: {missing}"


PROCESS_WORDS = re.compile(r"session [0-9]|these sessions|issue[- ]#?[0-9]|this branch|main at [0-9a-f]", re.I)


def test_docs_and_code_speak_of_what_things_are_not_of_how_they_were_made():
    """A measurement names its date and machine, a rule its reason; benchmark result files (history) are exempt."""
    roots = ["README.md", "docs", "mara_chem", "reinvent_plugins", "benchmarks", "scripts", "configs", "examples", "tests",
             "priors"]
    out = subprocess.run(["git", "ls-files", *roots], cwd=REPO, capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        pytest.skip("not a git checkout")
    offenders = []
    for rel in out.stdout.split():
        path = REPO / rel
        if (rel.startswith("benchmarks/results/") and not rel.endswith(".sh") or not path.is_file()
                or rel == "tests/repository/test_docs.py"):  # this file spells the words out to find them
            continue
        text = path.read_bytes()
        if b"\0" in text[:4096]:
            continue
        offenders += [f"{rel}:{n}" for n, line in enumerate(text.decode(errors="ignore").splitlines(), 1)
                      if PROCESS_WORDS.search(line)]
    assert not offenders, f"say what the thing is (a measurement: its date and machine): {offenders}"
