"""Drawing helpers shared by both games' renderers: board geometry on paper and on screen.

Benediction's points and Dendria's soils sit on the same hex-hex lattice
(:mod:`hexgames.hexgrid`), so where a label lands, where the edge labels go and how an SVG
document is assembled is decided once, here; each game's ``render`` module only decides
what to draw on each point.

Conventions every board SVG follows (the web front end relies on them):

* the root ``<svg>`` has the classes ``hexgames-board`` and ``hexgames-<game>``, an ``id``,
  ``data-game``, ``data-side`` and ``data-to-move`` attributes, and a ``viewBox`` so that it
  scales to any width;
* the topmost layer ``<g class="hit-layer">`` holds exactly one transparent hit target per
  point/cell, ``class="hit ..."`` with ``data-point="<label>"``: clicks and touches land
  there whatever is drawn below, and a front end restyles a point by toggling the class
  ``highlighted`` (or ``selected``) on it; the embedded stylesheet already styles both;
* pieces, blocks and marks also carry ``data-point`` so that they can be found by label;
* the root's ``aria-label`` and ``<title>`` say the position in English; where the title is
  a :class:`~hexgames.phrases.Phrase`, ``data-title-phrase`` carries it (:func:`phrase_data`)
  so that a page shows it in its own language.

Text boards use a character canvas: every column of the board is ``width`` characters
wide and every half step up or down a column is one text line, which keeps the hexagonal
shape recognisable with no box-drawing characters.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from hexgames.hexgrid import HexBoard
from hexgames.phrases import Phrase

#: Distance between two neighbouring points, in SVG user units.
UNIT = 60.0
SQRT3 = math.sqrt(3.0)

# --------------------------------------------------------------------------- numbers/XML


#: Memo of :func:`num` (board coordinates repeat across positions; bounded).
_NUMBERS: dict[float, str] = {}
#: Memo of attribute names (``class_`` -> ``class``, ``font_size`` -> ``font-size``).
_NAMES: dict[str, str] = {}
#: Characters that make :func:`xml.sax.saxutils.quoteattr` do more than add quotes.
_NEEDS_QUOTING = re.compile(r"[&<>\"\n\r\t]")


def num(value: float) -> str:
    """A coordinate written with at most two decimals, so output is short and deterministic."""
    text = _NUMBERS.get(value)
    if text is None:
        text = f"{value:.2f}".rstrip("0").rstrip(".")
        text = "0" if text in {"-0", ""} else text
        if len(_NUMBERS) < 100_000:
            _NUMBERS[value] = text
    return text


def attrs(values: Mapping[str, object]) -> str:
    """``key="value"`` pairs in the given order (``None`` values are skipped), escaped.

    The same text as ``quoteattr`` for every value, with a fast path for the usual
    values that need no escaping (rendering is most of a web server's work per move),
    and a bounded memo: a board's grid, hit targets and empty points are the same
    elements in every position.
    """
    try:
        # Types are part of the key: 1, 1.0 and True are equal but written differently.
        key = tuple([(k, v.__class__, v) for k, v in values.items()])
        text = _ATTRS.get(key)
    except TypeError:  # an unhashable value: no memo
        key, text = None, None
    if text is not None:
        return text
    text = _attrs(values)
    if key is not None:
        if len(_ATTRS) >= 100_000:
            _ATTRS.clear()
        _ATTRS[key] = text
    return text


#: Memo of :func:`attrs` (bounded: cleared when full).
_ATTRS: dict[tuple[tuple[str, type, object], ...], str] = {}


def _attrs(values: Mapping[str, object]) -> str:
    parts = []
    for key, value in values.items():
        if value is None:
            continue
        name = _NAMES.get(key)
        if name is None:
            name = _NAMES[key] = key.rstrip("_").replace("_", "-")
        text = num(value) if isinstance(value, float) else str(value)
        if _NEEDS_QUOTING.search(text) is None:
            parts.append(f'{name}="{text}"')
        else:
            parts.append(f"{name}={quoteattr(text)}")
    return " ".join(parts)


def element(tag: str, values: Mapping[str, object] | None = None, body: str | None = None) -> str:
    """One XML element; ``body`` is raw markup (children) or already escaped text."""
    head = f"<{tag} {attrs(values)}>" if values else f"<{tag}>"
    if body is None:
        return head[:-1] + "/>"
    return f"{head}{body}</{tag}>"


def text_element(x: float, y: float, text: str, values: Mapping[str, object]) -> str:
    """A ``<text>`` at (x, y) whose content is escaped."""
    return element("text", {"x": x, "y": y, **values}, escape(text))


class Memo:
    """A bounded memo of drawn parts (a board's fixed layers, a piece at a point): the
    same position of a piece draws the same text, and most of a board does not change
    from one position to the next. Emptied when full, so memory stays bounded."""

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        self._items: dict[Any, Any] = {}

    def get(self, key: Any, make: Callable[..., Any], *args: Any) -> Any:
        """The memoised value of ``key``, made by ``make(*args)`` the first time."""
        value = self._items.get(key)
        if value is None:
            value = make(*args)
            if len(self._items) >= self.limit:
                self._items.clear()
            self._items[key] = value
        return value


def group(values: Mapping[str, object], children: Iterable[str]) -> str:
    return element("g", values, "".join(children))


def class_names(*names: str | None) -> str:
    """Join the given class names, skipping empty ones."""
    return " ".join(name for name in names if name)


# --------------------------------------------------------------------------- geometry


def axial_to_xy(x: float, y: float, unit: float = UNIT) -> tuple[float, float]:
    """Paper position of axial coordinates (y grows downwards on paper).

    Columns are vertical and N is straight up; every neighbour is ``unit`` away, so the
    lattice is made of equilateral triangles (Benediction's grid lines) and its Voronoi
    cells are flat-topped hexagons (Dendria's soils).
    """
    return x * unit * SQRT3 / 2.0, -(y - x / 2.0) * unit


def hexagon(cx: float, cy: float, radius: float) -> str:
    """``points`` of a flat-topped hexagon of circumradius ``radius`` centred at (cx, cy)."""
    key = (cx, cy, radius)
    text = _HEXAGONS.get(key)
    if text is None:
        text = _hexagon(cx, cy, radius)
        if len(_HEXAGONS) < 50_000:
            _HEXAGONS[key] = text
    return text


#: Memo of :func:`hexagon` (the same cells are drawn for every position; bounded).
_HEXAGONS: dict[tuple[float, float, float], str] = {}


def _hexagon(cx: float, cy: float, radius: float) -> str:
    corners = []
    for k in range(6):
        angle = math.pi / 3.0 * k
        corners.append(f"{num(cx + radius * math.cos(angle))},{num(cy + radius * math.sin(angle))}")
    return " ".join(corners)


def edge_label_positions(board: HexBoard, *, level: bool = False) -> list[tuple[str, float, float]]:
    """Column letters and row numbers around the board, as (text, axial x, axial y).

    A column letter sits one step below the bottom of its column (the top is no place for
    it: there, the spots one step beyond the columns are where the rows end). Rows are
    counted from the bottom of each column, so a row is a bent line (down to the right in
    the left half, up to the right in the right half); its number sits beyond each end:
    one step further along the row's line (for drawings, where the line is seen), or, when
    ``level``, straight beside the end cell at the same height (for text, which is read
    line by line). Positions are axial and off the board.
    """
    n1 = board.side - 1
    labels: list[tuple[str, float, float]] = []
    bottoms: dict[int, int] = {}
    by_row: dict[int, list[tuple[int, int]]] = {}
    for index, (x, y) in enumerate(board.coords):
        bottoms[x] = min(bottoms.get(x, y), y)
        by_row.setdefault(board.row_of(index), []).append((x, y))
    for x, low in sorted(bottoms.items()):
        labels.append((board.labels[board.index_at(x, low)][0], x, low - 1))
    for row, cells in sorted(by_row.items()):
        left_x, left_y = min(cells)
        right_x, right_y = max(cells)
        if level:
            labels.append((str(row), left_x - 1, left_y - 0.5))
            labels.append((str(row), right_x + 1, right_y + 0.5))
            continue
        # NW of the row's left end in the left half, NE of its right end in the right half.
        labels.append((str(row), left_x - 1, left_y if left_x <= n1 else left_y - 1))
        labels.append((str(row), right_x + 1, right_y + 1 if right_x >= n1 else right_y))
    return labels


#: Memo of :meth:`Frame.around` (one frame per board size and margin; bounded).
_FRAMES: dict[tuple[Any, ...], Frame] = {}


@dataclass(frozen=True)
class Frame:
    """Where the board lies in the SVG: an offset that puts every drawn thing in view."""

    offset_x: float
    offset_y: float
    width: float
    height: float
    unit: float = UNIT
    #: Turned half a turn (the top side of the board at the bottom); see :meth:`flipped`.
    flip: bool = False

    @classmethod
    def around(cls, board: HexBoard, margin: float, unit: float = UNIT) -> Frame:
        """The frame that shows every point with ``margin`` units to spare on each side
        (room for the board's rim and the edge labels)."""
        key = (cls, board.side, len(board.coords), margin, unit)
        frame = _FRAMES.get(key)
        if frame is None:
            xs, ys = zip(*(axial_to_xy(x, y, unit) for x, y in board.coords), strict=True)
            frame = cls(
                offset_x=margin - min(xs),
                offset_y=margin - min(ys),
                width=max(xs) - min(xs) + 2 * margin,
                height=max(ys) - min(ys) + 2 * margin,
                unit=unit,
            )
            if len(_FRAMES) < 1000:
                _FRAMES[key] = frame
        return frame

    def flipped(self, flip: bool = True) -> Frame:
        """The same frame turned half a turn about its centre when ``flip`` (the board is
        centrally symmetric, so every point still lands on a point; text stays upright)."""
        return replace(self, flip=flip)

    def at(self, x: float, y: float) -> tuple[float, float]:
        """Paper position of axial coordinates within this frame."""
        px, py = axial_to_xy(x, y, self.unit)
        px, py = px + self.offset_x, py + self.offset_y
        if self.flip:
            return self.width - px, self.height - py
        return px, py

    def point(self, board: HexBoard, index: int) -> tuple[float, float]:
        return self.at(*board.coords[index])


#: Styles of the hit targets, the same for every game (the embedding page may override).
#: A possible click is a dashed cyan ring (not gold, which is Benediction's blessing, and
#: dashed so that it differs from every piece marker without colour too).
HIT_STYLE = """
.hexgames-board .hit { cursor: pointer; }
.hexgames-board .hit:hover { fill: #ffffff; fill-opacity: 0.18; }
.hexgames-board .hit.highlighted { fill: #4dd0e1; fill-opacity: 0.08;
  stroke: #00acc1; stroke-width: 3; stroke-opacity: 1; stroke-dasharray: 6 4; }
.hexgames-board .hit.selected { fill: #90caf9; fill-opacity: 0.12;
  stroke: #1e88e5; stroke-width: 4.5; stroke-opacity: 0.95; }
"""


def action_list(position: Any, actions: Any) -> list[Any]:
    """``last_action`` of the renderers as a list of actions: ``None``, one action, its
    notation, or a sequence of either (read with ``position.parse_action``)."""
    if actions is None:
        return []
    if isinstance(actions, str) or not isinstance(actions, Sequence):
        actions = [actions]
    return [position.parse_action(a) if isinstance(a, str) else a for a in actions]


def phrase_data(phrase: Phrase) -> dict[str, Any]:
    """``phrase`` as a page renders it in its own language (i18n.js ``said``): ``t`` the
    template, ``p`` the values (phrases nested alike, anything else as text) and, for a
    plural, ``n``: ``[plural template, count]``."""
    data: dict[str, Any] = {"t": phrase.template}
    if phrase.params:
        data["p"] = {key: phrase_data(value) if isinstance(value, Phrase) else str(value)
                     for key, value in phrase.params.items()}
    if phrase.plural is not None and phrase.count is not None:
        data["n"] = [phrase.plural, phrase.count]
    return data


def svg_document(
    *,
    frame: Frame,
    size: int,
    root_id: str,
    classes: str,
    data: Mapping[str, object],
    title: str | Phrase,
    style: str,
    defs: str,
    layers: Sequence[str],
) -> str:
    """A standalone SVG document: ``size`` pixels wide, height keeping the aspect ratio
    (a :class:`Phrase` ``title`` also as ``data-title-phrase``, for pages to translate)."""
    if size <= 0:
        raise ValueError(f"size must be a positive number of pixels, got {size}")
    height = size * frame.height / frame.width
    phrase = title if isinstance(title, Phrase) else None
    title = str(title)
    root = {
        "xmlns": "http://www.w3.org/2000/svg",
        "id": root_id,
        "class": classes,
        "viewBox": f"0 0 {num(frame.width)} {num(frame.height)}",
        "width": num(size),
        "height": num(height),
        "role": "img",
        "aria-label": title,
        "preserveAspectRatio": "xMidYMid meet",
        **({"data-title-phrase": json.dumps(phrase_data(phrase), ensure_ascii=False,
                                            separators=(",", ":"))} if phrase else {}),
        **{f"data-{key}": value for key, value in data.items()},
    }
    body = (
        element("title", None, escape(title))
        + element("style", None, escape(style))
        + element("defs", None, defs)
        + "".join(layers)
    )
    return element("svg", root, body)


def hit_layer(
    frame: Frame,
    board: HexBoard,
    highlights: set[int],
    shape: str,
    extra_classes: Mapping[int, str] | None = None,
) -> str:
    """The topmost layer: one transparent hit target per point, carrying its label.

    ``shape`` is ``"circle"`` (Benediction's points) or ``"hexagon"`` (Dendria's soils);
    the target covers the whole Voronoi cell of the point so that touches land reliably.
    The layer is the same in most positions: it is kept (bounded memo).
    """
    key = (frame, board, frozenset(highlights), shape,
           tuple(sorted(extra_classes.items())) if extra_classes else None)
    text = _LAYERS.get(key)
    if text is None:
        text = _hit_layer(frame, board, highlights, shape, extra_classes)
        _remember(key, text)
    return text


#: Memo of the layers that depend on the board only (or nearly): see :func:`_remember`.
_LAYERS: dict[tuple[object, ...], str] = {}


def _remember(key: tuple[object, ...], text: str) -> None:
    if len(_LAYERS) >= 2000:
        _LAYERS.clear()
    _LAYERS[key] = text


def _hit_layer(
    frame: Frame,
    board: HexBoard,
    highlights: set[int],
    shape: str,
    extra_classes: Mapping[int, str] | None = None,
) -> str:
    targets = []
    for index, label in enumerate(board.labels):
        cx, cy = frame.point(board, index)
        classes = class_names(
            "hit",
            "highlighted" if index in highlights else None,
            (extra_classes or {}).get(index),
        )
        common = {"class": classes, "data-point": label, "fill": "#ffffff",
                  "fill-opacity": 0, "pointer-events": "all"}
        if shape == "hexagon":
            values = {"points": hexagon(cx, cy, frame.unit / SQRT3), **common}
            targets.append(element("polygon", values))
        else:
            values = {"cx": cx, "cy": cy, "r": frame.unit * 0.5, **common}
            targets.append(element("circle", values))
    return group({"class": "hit-layer"}, targets)


def label_layer(frame: Frame, board: HexBoard, fill: str) -> str:
    """Column letters and row numbers around the board (the same in every position)."""
    key = ("labels", frame, board, fill)
    text = _LAYERS.get(key)
    if text is None:
        text = _label_layer(frame, board, fill)
        _remember(key, text)
    return text


def _label_layer(frame: Frame, board: HexBoard, fill: str) -> str:
    texts = []
    for text, x, y in edge_label_positions(board):
        px, py = frame.at(x, y)
        texts.append(
            text_element(
                px,
                py,
                text,
                {"class": "edge-label", "fill": fill, "font-size": frame.unit * 0.32,
                 "text-anchor": "middle", "dominant-baseline": "central"},
            )
        )
    return group({"class": "labels", "font-family": "Helvetica, Arial, sans-serif"}, texts)


def arrow(
    start: tuple[float, float],
    end: tuple[float, float],
    *,
    shorten: float,
    marker_id: str,
    values: Mapping[str, object],
) -> str:
    """A straight arrow from ``start`` to ``end``, pulled back by ``shorten`` at both ends."""
    (x1, y1), (x2, y2) = start, end
    length = math.hypot(x2 - x1, y2 - y1)
    if length <= 2 * shorten:
        shorten = 0.0
    ux, uy = ((x2 - x1) / length, (y2 - y1) / length) if length else (0.0, 0.0)
    return element(
        "line",
        {
            "x1": x1 + ux * shorten,
            "y1": y1 + uy * shorten,
            "x2": x2 - ux * shorten,
            "y2": y2 - uy * shorten,
            "marker-end": f"url(#{marker_id})",
            **values,
        },
    )


def arrow_marker(marker_id: str, fill: str) -> str:
    """An arrow head for :func:`arrow` (goes into ``<defs>``)."""
    return element(
        "marker",
        {"id": marker_id, "viewBox": "0 0 10 10", "refX": "6", "refY": "5",
         "markerWidth": "4", "markerHeight": "4", "orient": "auto-start-reverse"},
        element("path", {"d": "M0,0 L10,5 L0,10 z", "fill": fill}),
    )


def labels_to_indices(board: HexBoard, labels: Iterable[str]) -> set[int]:
    """Indices of the given labels; ``ValueError`` names any label not on the board."""
    return {board.index(label) for label in labels}


# --------------------------------------------------------------------------- text canvas

#: ANSI styles for text boards (used only when colour is asked for).
ANSI: dict[str, str] = {
    "red": "\x1b[1;31m",
    "blue": "\x1b[1;34m",
    "dim-red": "\x1b[31m",
    "dim-blue": "\x1b[34m",
    "dark": "\x1b[1;35m",
    "light": "\x1b[1;33m",
    "muted": "\x1b[2m",
    "block": "\x1b[1;37;100m",
    "highlight": "\x1b[1;7m",
    "label": "\x1b[36m",
}
ANSI_RESET = "\x1b[0m"


class TextCanvas:
    """A grid of characters, each with an optional style, rendered to plain or ANSI text."""

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], tuple[str, str | None]] = {}

    def put(self, line: int, column: int, text: str, style: str | None = None) -> None:
        """Write ``text`` centred on ``column`` of ``line``."""
        start = column - (len(text) - 1) // 2
        for offset, char in enumerate(text):
            self._cells[(line, start + offset)] = (char, style)

    def put_left(self, line: int, column: int, text: str, style: str | None = None) -> None:
        """Write ``text`` starting at ``column`` of ``line``."""
        for offset, char in enumerate(text):
            self._cells[(line, column + offset)] = (char, style)

    def render(self, color: bool = False) -> str:
        if not self._cells:
            return ""
        lines = [line for line, _ in self._cells]
        columns = [column for _, column in self._cells]
        first_line, last_line = min(lines), max(lines)
        first_column = min(columns)
        out = []
        for line in range(first_line, last_line + 1):
            row = sorted((c, v) for (ln, c), v in self._cells.items() if ln == line)
            text = []
            cursor = first_column
            current: str | None = None
            for column, (char, style) in row:
                if column > cursor:
                    if color and current:
                        text.append(ANSI_RESET)
                        current = None
                    text.append(" " * (column - cursor))
                if color and style != current:
                    if current:
                        text.append(ANSI_RESET)
                    if style:
                        text.append(ANSI[style])
                    current = style
                text.append(char)
                cursor = column + 1
            if color and current:
                text.append(ANSI_RESET)
            out.append("".join(text).rstrip())
        return "\n".join(out)


def text_board(
    board: HexBoard,
    tokens: Sequence[tuple[str, str | None]],
    *,
    highlights: set[int],
    column_width: int,
    color: bool,
    legend: Sequence[Sequence[tuple[str, str | None]]] = (),
) -> str:
    """Draw a hex board as text: ``tokens[i]`` (text, style) is written at point ``i``.

    Highlighted points are wrapped in ``[ ]``. Column letters go above and below each
    column, row numbers beyond both ends of each row. ``legend`` lines (each a sequence
    of styled fragments) follow the board.
    """
    canvas = TextCanvas()
    margin = 2 * column_width

    def place(x: float, y: float) -> tuple[int, int]:
        # One text line per half step: neighbours in a column are two lines apart and a
        # neighbouring column is shifted by one line.
        return round(x - 2 * y), margin + round(x * column_width)

    for index, (x, y) in enumerate(board.coords):
        text, style = tokens[index]
        if index in highlights:
            text, style = f"[{text}]", "highlight"
        line, column = place(x, y)
        canvas.put(line, column, text, style)
    edge_labels = edge_label_positions(board, level=True)
    for text, label_x, label_y in edge_labels:
        line, column = place(label_x, label_y)
        canvas.put(line, column, text, "label")
    last_line = max(place(x, y)[0] for _, x, y in edge_labels)
    line = last_line + 2
    for fragments in legend:
        column = 0
        for text, style in fragments:
            canvas.put_left(line, column, text, style)
            column += len(text)
        line += 1
    return canvas.render(color)
