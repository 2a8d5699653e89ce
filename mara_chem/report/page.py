"""Assembling the single self-contained HTML page (inline CSS, images as data URIs)."""

from __future__ import annotations

import html
from collections.abc import Sequence

STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table.metrics { border-collapse: collapse; }
table.metrics td, table.metrics th { border: 1px solid #bbb; padding: 4px 8px; text-align: right; }
.plots img { width: 48%; min-width: 380px; }
"""


def img_tag(png_b64: str, alt: str) -> str:
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{png_b64}">'


def section(title: str, body: str) -> str:
    return f"<h2>{html.escape(title)}</h2>\n{body}\n"


def page(title: str, intro: Sequence[str], sections: Sequence[str]) -> str:
    """The complete HTML document."""
    lines = "".join(f"<p>{html.escape(x)}</p>" for x in intro)
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head>\n<body><h1>{html.escape(title)}</h1>{lines}\n"
            + "".join(sections) + "</body></html>\n")
