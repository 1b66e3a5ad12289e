"""A tiny Markdown-subset converter for the rules pages (no dependency, no surprises).

It handles what the project's docs use: ``#`` headings, paragraphs, ``-``/``*``/``1.``
lists, fenced code blocks, pipe tables, block quotes, and inline ``code``, **bold**,
*italics* and [links](url). Everything is HTML-escaped first, so a document cannot inject
markup. Fenced blocks are handed to a caller-supplied function first, which lets the
rules page turn position texts into board diagrams.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

_INLINE_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>])")
_KEPT = re.compile("\x00(\\d+)\x00")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_ORDERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")


def slug(text: str) -> str:
    """A heading's id: its words in lower case joined by ``-`` (letters of any script
    kept, so a translated guide's headings get ids too; ASCII as before)."""
    return re.sub(r"[\W_]+", "-", text.lower()).strip("-")


def inline(text: str) -> str:
    """Escape a line and apply inline markup.

    Code spans and backslash escapes (``\\*``) are set aside first, so that markup may
    enclose a code span (``**`x` counts**``) and an escaped character stays literal.
    """
    kept: list[str] = []

    def keep(piece: str) -> str:
        kept.append(piece)
        return f"\x00{len(kept) - 1}\x00"

    text = _INLINE_CODE.sub(lambda m: keep(f"<code>{html.escape(m.group(1))}</code>"), text)
    text = _ESCAPED.sub(lambda m: keep(html.escape(m.group(1))), text)
    text = html.escape(text, quote=False)
    text = _LINK.sub(lambda m: _link(m.group(1), m.group(2)), text)
    text = _BOLD.sub(r"<strong>\1</strong>", text)
    text = _ITALIC.sub(r"<em>\1</em>", text)
    return _KEPT.sub(lambda m: kept[int(m.group(1))], text)


def _link(label: str, url: str) -> str:
    safe = url if re.match(r"^(https?://|/|#|[\w.-]+\.(md|html|png|svg)\b)", url) else "#"
    return f'<a href="{html.escape(safe)}">{label}</a>'


def _table(rows: list[str]) -> str:
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    head, body = cells[0], [r for r in cells[2:]] if len(cells) > 1 else []
    out = ["<table><thead><tr>"]
    out += [f"<th>{inline(c)}</th>" for c in head]
    out.append("</tr></thead><tbody>")
    for row in body:
        out.append("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in row) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def to_html(text: str, code_block: Callable[[str, str], str | None] | None = None) -> str:
    """Convert Markdown ``text`` to HTML.

    ``code_block(language, body)`` may return HTML to use for a fenced block (``None`` to
    fall back to a ``<pre>``).
    """
    lines = text.splitlines()
    out: list[str] = []
    paragraph: list[str] = []
    list_kind: str | None = None
    item: list[str] = []  # the lines of the open list item (markup may span them)

    def flush_paragraph() -> None:
        if paragraph:
            out.append(f"<p>{inline(' '.join(paragraph))}</p>")
            paragraph.clear()

    def flush_item() -> None:
        if item:
            out.append(inline(" ".join(item)))
            item.clear()

    def close_list() -> None:
        nonlocal list_kind
        flush_item()
        if list_kind:
            out.append(f"</li></{list_kind}>")
            list_kind = None

    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            flush_paragraph()
            close_list()
            language = stripped[3:].strip()
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                body.append(lines[i])
                i += 1
            code = "\n".join(body)
            rendered = code_block(language, code) if code_block else None
            out.append(rendered if rendered is not None else f"<pre>{html.escape(code)}</pre>")
        elif not stripped:
            flush_paragraph()
            close_list()
        elif heading := _HEADING.match(stripped):
            flush_paragraph()
            close_list()
            level = len(heading.group(1))
            title = heading.group(2)
            out.append(f'<h{level} id="{slug(title)}">{inline(title)}</h{level}>')
        elif stripped.startswith("|") and i + 1 < len(lines) and set(
            lines[i + 1].strip()
        ) <= set("|-: "):
            flush_paragraph()
            close_list()
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(lines[i])
                i += 1
            out.append(_table(rows))
            continue
        elif stripped.startswith(">"):
            flush_paragraph()
            close_list()
            out.append(f"<blockquote>{inline(stripped.lstrip('> '))}</blockquote>")
        elif (bullet := _BULLET.match(line)) or (ordered := _ORDERED.match(line)):
            flush_paragraph()
            kind = "ul" if bullet else "ol"
            text = (bullet or ordered).group(1)  # type: ignore[union-attr]
            if list_kind != kind:
                close_list()
                out.append(f"<{kind}><li>")
                list_kind = kind
            else:
                flush_item()
                out.append("</li><li>")
            item.append(text)
        elif list_kind and line.startswith((" ", "\t")):
            item.append(stripped)  # continuation of a list item
        else:
            close_list()
            paragraph.append(stripped)
        i += 1
    flush_paragraph()
    close_list()
    return "\n".join(out)
