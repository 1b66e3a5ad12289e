"""Every relative link of the project's Markdown resolves: docs move and get split, and a
link to a file or a heading that is gone is what a newcomer meets first."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
DOCUMENTS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "experiments").rglob("*.md")]
)


def unfenced(text: str) -> list[str]:
    """The lines outside fenced blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def prose(text: str) -> str:
    """The text outside fenced blocks and inline code, where a link is a link."""
    return "\n".join(re.sub(r"`[^`]*`", "", line) for line in unfenced(text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in unfenced(path.read_text("utf-8"))
            if line.startswith("#")}


def test_slugs_follow_github() -> None:
    assert slug(" Arena (`hexgames arena`)") == "arena-hexgames-arena"
    assert slug("7. Storage in detail") == "7-storage-in-detail"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(document: Path) -> None:
    broken = []
    for target in LINK.findall(prose(document.read_text("utf-8"))):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        destination = (document.parent / file).resolve() if file else document
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no such heading")
    assert not broken, broken
