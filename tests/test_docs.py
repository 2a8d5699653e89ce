"""Docstrings cite the repo's own docs/: every cited file exists, and every cited section is a heading there."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CITATION = re.compile(r'docs/(\w+\.md)(?:, "([^"]+)"(?: and "([^"]+)")?)?')


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
