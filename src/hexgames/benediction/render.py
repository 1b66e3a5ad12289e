"""Benediction drawn for people: a text board for terminals and an SVG board for the web.

Both drawings show everything a player must see to choose an action: the men (colour,
size, king, blessed, cursed, locked this turn), blocks, both walls (the portal sides),
both zones and starting points, plus optional highlighted points and the last action.
The SVG follows the conventions of :mod:`hexgames._svg` so that the web front end can map
clicks to point labels without knowing the game.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hexgames import _svg
from hexgames.benediction.actions import Action
from hexgames.benediction.position import Man, Position
from hexgames.game import word
from hexgames.hexgrid import HexBoard
from hexgames.phrases import Phrase, nphrase

__all__ = ["OVERLAYS", "ascii_board", "svg"]

COLORS = ("red", "blue")
#: Overlays :func:`svg` can draw: none yet. The parameter exists so that a game-agnostic
#: front end may pass the same keywords to every game's renderer.
OVERLAYS: tuple[str, ...] = ()

#: Checker faces and rims, per colour.
FACE = {"red": ("#e0533f", "#b3261e", "#6e1410"), "blue": ("#4d86d9", "#1f56a8", "#0f2c5c")}
#: Wall and zone tints, per colour.
TINT = {"red": "#c62828", "blue": "#1565c0"}
WOOD_LIGHT, WOOD_DARK, WOOD_EDGE = "#f1dfb6", "#dcbf86", "#a47c45"
INK = "#7a5a2e"
LABEL_INK = "#fbf0d9"
GOLD, GOLD_DARK = "#f7c948", "#a87a00"
LAST_ACTION = "#2e7d32"

#: What ``svg(last_action=...)`` takes: an action, its notation, several of them, or none.
LastActions = Action | str | Sequence[Action | str] | None

@dataclass(frozen=True)
class Features:
    """The fixed marks of a Benediction board: walls, zones and starting points, per colour.

    Walls follow from the board's sides; starting points may be non-standard in a position
    read from text, and zones follow the starting points (rules, section 8).
    """

    walls: dict[str, frozenset[int]]
    starts: dict[str, int]
    zones: dict[str, frozenset[int]]


def features(position: Position) -> Features:
    """Walls, starting points and zones of ``position`` as point indices (from the engine,
    which knows non-standard starting points read from text)."""
    board: HexBoard = position.board
    starts = dict(zip(COLORS, position.starting_points, strict=True))
    return Features(
        walls={c: frozenset(map(board.index, position.wall(c))) for c in COLORS},
        starts={c: board.index(label) for c, label in starts.items()},
        zones={c: frozenset(map(board.index, position.zone(c))) for c in COLORS},
    )


def _men(position: Position) -> dict[int, Man]:
    board: HexBoard = position.board
    return {board.index(label): man for label, man in position.men().items()}


def _blocks(position: Position) -> set[int]:
    return {position.board.index(label) for label in position.blocks}


def _indices(board: HexBoard, labels: Iterable[str]) -> set[int]:
    return _svg.labels_to_indices(board, labels)


def status_line(position: Position) -> str:
    """Who is to act and how many actions are left, or who won and why."""
    return str(status_phrase(position))


def status_phrase(position: Position) -> Phrase:
    """:func:`status_line` as a translatable phrase."""
    if position.is_over:
        if position.winner in COLORS:
            color = word(str(position.winner).capitalize())
            reason = position.win_reason
            if reason:
                return Phrase("{color} wins ({reason}).", color=color, reason=word(reason))
            return Phrase("{color} wins.", color=color)
        return Phrase("The game is drawn (turn limit reached).")
    return nphrase("{color} to move, {n} action left this turn.",
                   "{color} to move, {n} actions left this turn.", position.actions_left,
                   color=word(position.to_move.capitalize()))


# --------------------------------------------------------------------------- text


def man_token(man: Man) -> str:
    """``R3k*'``: colour letter, size, then k king, * blessed, ~ cursed, ' locked."""
    flags = ("k" if man.king else "") + ("*" if man.blessed else "") + ("~" if man.cursed else "")
    return f"{man.color[0].upper()}{man.size}{flags}{chr(39) if man.locked else ''}"


#: Legend lines, as (text, style) fragments so that a coloured board colours them too.
LEGEND: tuple[tuple[tuple[str, str | None], ...], ...] = (
    (("R2", "red"), (" red man of 2 checkers, ", None), ("B1", "blue"),
     (" blue man;  k king  * blessed  ~ cursed  ' locked", None)),
    ((". point  ", None), ("=", "dim-red"), (" wall (Red's at the bottom, Blue's at the top)  ",
     None), (":", "dim-red"), (" zone  ", None), ("@", "dim-red"), (" starting point", None)),
    (("##", "block"), (" block  ", None), ("[ ]", "highlight"), (" highlighted", None)),
)


def ascii_board(position: Position, highlights: Iterable[str] = (), *, color: bool = False) -> str:
    """The board as text, with column letters, row numbers, a legend and a status line.

    Red's wall is at the bottom, Blue's at the top, as in the rules. ``highlights`` are
    labels shown in ``[ ]``. ``color=True`` adds ANSI colours for terminals.
    """
    board: HexBoard = position.board
    marks = features(position)
    men = _men(position)
    blocks = _blocks(position)
    tokens: list[tuple[str, str | None]] = []
    for index in range(board.size):
        if index in men:
            man = men[index]
            tokens.append((man_token(man), man.color))
        elif index in blocks:
            tokens.append(("##", "block"))
        else:
            tokens.append(_empty_token(marks, index))
    legend = [*LEGEND, ((status_line(position), None),)]
    return _svg.text_board(
        board,
        tokens,
        highlights=_indices(board, highlights),
        column_width=5,
        color=color,
        legend=legend,
    )


def _empty_token(marks: Features, index: int) -> tuple[str, str | None]:
    for color in COLORS:
        if marks.starts[color] == index:
            return "@", f"dim-{color}"
    for color in COLORS:
        if index in marks.walls[color]:
            return "=", f"dim-{color}"
    for color in COLORS:
        if index in marks.zones[color]:
            return ":", f"dim-{color}"
    return ".", "muted"


# --------------------------------------------------------------------------- SVG


def svg(
    position: Position,
    highlights: Iterable[str] = (),
    *,
    size: int = 600,
    show_labels: bool = True,
    last_action: LastActions = None,
    overlays: Iterable[str] = (),
    selected: Iterable[str] = (),
    board_id: str = "benediction-board",
    flip: bool = False,
) -> str:
    """A standalone SVG drawing of the position, ``size`` pixels wide.

    ``highlights`` and ``selected`` are point labels (e.g. the next possible clicks, and
    the clicks made so far). ``last_action`` is an action, its notation, or a sequence of
    them (e.g. the actions of the last turn), drawn as arrows or rings. ``overlays`` must
    name entries of :data:`OVERLAYS` (``ValueError`` otherwise). ``flip`` turns the
    board half a turn (Blue's side at the bottom; text stays upright).
    """
    unknown = [name for name in overlays if name not in OVERLAYS]
    if unknown:
        raise ValueError(f"unknown overlay {unknown[0]!r}; Benediction offers {OVERLAYS or 'none'}")
    board: HexBoard = position.board
    # The rim reaches 1.5 units beyond the corner points when it carries the labels.
    frame = _svg.Frame.around(board, margin=_svg.UNIT * (1.6 if show_labels else 0.85))
    frame = frame.flipped(bool(flip))
    marks = features(position)
    chosen = _indices(board, selected)

    def fixed() -> tuple[str, ...]:
        return (
            _board_layer(frame, board, board_id, framed=show_labels),
            _grid_layer(frame, board),
            _wall_layer(frame, board),
            _zone_layer(frame, board, marks),
            _point_layer(frame, board, marks),
        )

    # The board, its grid and marks are the same in every position of a game: drawn once.
    fixed_key = (frame, board.side, board_id, show_labels,
                 *(marks.walls[c] for c in COLORS), *(marks.starts[c] for c in COLORS),
                 *(marks.zones[c] for c in COLORS))
    layers = [
        *_FIXED_LAYERS.get(fixed_key, fixed),
        _last_action_layer(frame, position, last_action, board_id),
        _piece_layer(frame, position, board_id),
    ]
    if show_labels:
        layers.append(_svg.label_layer(frame, board, LABEL_INK))
    layers.append(
        _svg.hit_layer(
            frame,
            board,
            _indices(board, highlights),
            "circle",
            {index: "selected" for index in chosen},
        )
    )
    to_move = "none" if position.is_over else position.to_move
    title = Phrase("{game} board, side {side}: {status}", game=word("Benediction"), side=board.side,
                   status=status_phrase(position))
    return _svg.svg_document(
        frame=frame,
        size=size,
        root_id=board_id,
        classes=f"hexgames-board hexgames-benediction to-move-{to_move}",
        data={"game": "benediction", "side": board.side, "to-move": to_move,
              **({"flipped": "true"} if flip else {})},
        title=title,
        style=_svg.HIT_STYLE,
        defs=_defs(board_id),
        layers=layers,
    )


#: The fixed layers of a board (see :func:`svg`), and drawn men and blocks.
_FIXED_LAYERS = _svg.Memo(64)
_PIECES = _svg.Memo(8192)


def _defs(board_id: str) -> str:
    parts = [
        _svg.element(
            "linearGradient",
            {"id": f"{board_id}-wood", "x1": "0", "y1": "0", "x2": "0.3", "y2": "1"},
            _svg.element("stop", {"offset": "0", "stop-color": WOOD_LIGHT})
            + _svg.element("stop", {"offset": "1", "stop-color": WOOD_DARK}),
        ),
        _svg.element(
            "radialGradient",
            {"id": f"{board_id}-block", "cx": "0.35", "cy": "0.3", "r": "0.8"},
            _svg.element("stop", {"offset": "0", "stop-color": "#8d8d8d"})
            + _svg.element("stop", {"offset": "1", "stop-color": "#2f2f2f"}),
        ),
        _svg.arrow_marker(f"{board_id}-arrow", LAST_ACTION),
    ]
    for color, (light, mid, _rim) in FACE.items():
        parts.append(
            _svg.element(
                "radialGradient",
                {"id": f"{board_id}-{color}", "cx": "0.38", "cy": "0.32", "r": "0.75"},
                _svg.element("stop", {"offset": "0", "stop-color": light})
                + _svg.element("stop", {"offset": "1", "stop-color": mid}),
            )
        )
    return "".join(parts)


def _corners(board: HexBoard) -> list[int]:
    """The six corner points, counter-clockwise from the bottom-left corner (a1)."""
    n1 = board.side - 1
    axial = [(0, 0), (n1, 0), (2 * n1, n1), (2 * n1, 2 * n1), (n1, 2 * n1), (0, n1)]
    return [board.index_at(x, y) for x, y in axial]


def _scaled(frame: _svg.Frame, board: HexBoard, index: int, extra: float) -> tuple[float, float]:
    """The paper position of ``index`` pushed ``extra`` units away from the centre."""
    cx, cy = frame.point(board, board.center())
    px, py = frame.point(board, index)
    radius = (board.side - 1) * frame.unit
    factor = (radius + extra) / radius
    return cx + (px - cx) * factor, cy + (py - cy) * factor


def _polyline(points: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{_svg.num(x)},{_svg.num(y)}" for x, y in points)


def _board_layer(frame: _svg.Frame, board: HexBoard, board_id: str, *, framed: bool) -> str:
    """The wooden board: a hexagon a little larger than the grid, with a darker rim."""
    corners = _corners(board)
    # Corner offsets: a side moves out by cos 30° of it. The rim carries the edge labels,
    # which lie 0.87 units beyond the sides.
    rim = [_scaled(frame, board, c, frame.unit * (1.5 if framed else 0.75)) for c in corners]
    face = [_scaled(frame, board, c, frame.unit * 0.6) for c in corners]
    return _svg.group(
        {"class": "board"},
        [
            _svg.element("polygon", {"class": "board-rim", "points": _polyline(rim),
                                     "fill": WOOD_EDGE, "stroke": WOOD_EDGE, "stroke-width": 8,
                                     "stroke-linejoin": "round"}),
            _svg.element("polygon", {"class": "board-face", "points": _polyline(face),
                                     "fill": f"url(#{board_id}-wood)", "stroke-linejoin": "round"}),
        ],
    )


def _grid_layer(frame: _svg.Frame, board: HexBoard) -> str:
    """Every grid line once: from each point whose line starts there, to the line's end."""
    lines = []
    for index in range(board.size):
        for direction in (0, 1, 2):  # N, NE, SE: each line is drawn from its start
            if board.step[index][direction + 3] >= 0 or not board.rays[index][direction]:
                continue
            x1, y1 = frame.point(board, index)
            x2, y2 = frame.point(board, board.line_end(index, direction))
            lines.append(f"M{_svg.num(x1)},{_svg.num(y1)}L{_svg.num(x2)},{_svg.num(y2)}")
    return _svg.element(
        "path",
        {"class": "grid", "d": "".join(lines), "stroke": INK, "stroke-width": 1.6,
         "stroke-opacity": 0.75, "fill": "none", "stroke-linecap": "round"},
    )


def _wall_layer(frame: _svg.Frame, board: HexBoard) -> str:
    a1, e1, i1, i5, e9, a5 = _corners(board)
    offset = frame.unit * 0.3
    walls = []
    for color, ends in (("red", (a1, e1, i1)), ("blue", (a5, e9, i5))):
        points = [_scaled(frame, board, c, offset) for c in ends]
        walls.append(
            _svg.element(
                "polyline",
                {"class": f"wall wall-{color}", "data-color": color, "points": _polyline(points),
                 "fill": "none", "stroke": TINT[color], "stroke-width": frame.unit * 0.16,
                 "stroke-linecap": "round", "stroke-linejoin": "round", "stroke-opacity": 0.85},
            )
        )
    return _svg.group({"class": "walls"}, walls)


def _zone_layer(frame: _svg.Frame, board: HexBoard, marks: Features) -> str:
    zones = []
    for color in COLORS:
        start = marks.starts[color]
        ring = [n for n in board.step[start] if n >= 0]
        if len(ring) < 6:
            ring.append(start)
        points = [frame.point(board, i) for i in ring]
        # A pale wash first, so that the tint stays its colour on the yellow wood.
        zones.append(
            _svg.element("polygon", {"points": _polyline(points), "fill": "#ffffff",
                                     "fill-opacity": 0.45, "stroke-linejoin": "round"})
        )
        zones.append(
            _svg.element(
                "polygon",
                {"class": f"zone zone-{color}", "data-color": color, "points": _polyline(points),
                 "fill": TINT[color], "fill-opacity": 0.16, "stroke": TINT[color],
                 "stroke-opacity": 0.55, "stroke-width": 2, "stroke-dasharray": "6 5",
                 "stroke-linejoin": "round"},
            )
        )
    return _svg.group({"class": "zones"}, zones)


def _point_layer(frame: _svg.Frame, board: HexBoard, marks: Features) -> str:
    points = []
    for index, label in enumerate(board.labels):
        cx, cy = frame.point(board, index)
        wall = next((c for c in COLORS if index in marks.walls[c]), None)
        start = next((c for c in COLORS if marks.starts[c] == index), None)
        zone = next((c for c in COLORS if index in marks.zones[c]), None)
        classes = _svg.class_names(
            "point",
            f"wall-{wall}" if wall else None,
            f"zone-{zone}" if zone else None,
            f"start start-{start}" if start else None,
        )
        if start:
            points.append(
                _svg.group(
                    {"class": classes, "data-point": label},
                    [
                        _svg.element("circle", {"cx": cx, "cy": cy, "r": frame.unit * 0.44,
                                                "fill": "none", "stroke": TINT[start],
                                                "stroke-width": 2.5, "stroke-opacity": 0.8}),
                        _svg.element("circle", {"cx": cx, "cy": cy, "r": frame.unit * 0.36,
                                                "fill": TINT[start], "fill-opacity": 0.18,
                                                "stroke": TINT[start], "stroke-width": 1.2,
                                                "stroke-opacity": 0.8}),
                    ],
                )
            )
            continue
        fill = TINT[wall] if wall else INK
        points.append(
            _svg.element(
                "circle",
                {"class": classes, "data-point": label, "cx": cx, "cy": cy,
                 "r": frame.unit * (0.085 if wall else 0.07), "fill": fill},
            )
        )
    return _svg.group({"class": "points"}, points)


def _piece_layer(frame: _svg.Frame, position: Position, board_id: str) -> str:
    """Blocks and men, drawn back to front (top of the board first) so that a stack, a
    crown or a halo overlaps what stands behind it, as on a real board seen at an angle."""
    board: HexBoard = position.board
    blocks = _blocks(position)
    men = _men(position)

    def back_to_front(index: int) -> tuple[float, float]:
        x, y = frame.point(board, index)
        return y, x

    pieces = []
    for index in sorted(blocks | set(men), key=back_to_front):
        man = None if index in blocks else men[index]
        pieces.append(_PIECES.get((frame, board.side, index, man, board_id),
                                  _piece_at, frame, board, index, man, board_id))
    return _svg.group({"class": "pieces"}, pieces)


def _piece_at(frame: _svg.Frame, board: HexBoard, index: int, man: Man | None,
              board_id: str) -> str:
    """The block (``man`` None) or man on point ``index``."""
    at = frame.point(board, index)
    if man is None:
        return _block(frame, board.labels[index], at, board_id)
    return _man(frame, board.labels[index], at, man, board_id)


def _block(frame: _svg.Frame, label: str, at: tuple[float, float], board_id: str) -> str:
    cx, cy = at
    radius = frame.unit * 0.4
    return _svg.group(
        {"class": "block", "data-point": label},
        [
            _svg.element("polygon", {"points": _svg.hexagon(cx, cy + 2.5, radius),
                                     "fill": "#1c1c1c", "fill-opacity": 0.35}),
            _svg.element("polygon", {"points": _svg.hexagon(cx, cy, radius),
                                     "fill": f"url(#{board_id}-block)", "stroke": "#1f1f1f",
                                     "stroke-width": 1.5}),
        ],
    )


def _man(frame: _svg.Frame, label: str, at: tuple[float, float], man: Man, board_id: str) -> str:
    """A stack of checkers seen from above at an angle: one disc edge per checker (up to
    five), the size on top, and badges for king, blessing, curse and lock."""
    cx, cy = at
    unit = frame.unit
    radius = unit * 0.37
    layer = unit * 0.055
    visible = min(man.size, 5)
    top = cy + layer * (visible - 1) / 2.0 - layer * (visible - 1)
    _light, mid, rim = FACE[man.color]
    parts = []
    if man.blessed:
        # A golden halo around the whole stack, with a soft outer glow.
        halo = {"cx": cx, "cy": cy, "r": radius + layer * (visible - 1) / 2 + unit * 0.1}
        parts.append(_svg.group({"class": "blessing"}, [
            # Rays: a blessing differs from every other marker by its shape, not only gold.
            _svg.element("polygon", {"class": "rays",
                                     "points": _rays(cx, cy, halo["r"] + unit * 0.12,
                                                     halo["r"] - unit * 0.02),
                                     "fill": GOLD, "stroke": GOLD_DARK,
                                     "stroke-width": unit * 0.015}),
            _svg.element("circle", {**halo, "fill": GOLD, "fill-opacity": 0.55, "stroke": GOLD,
                                    "stroke-opacity": 0.45, "stroke-width": unit * 0.14}),
            _svg.element("circle", {**halo, "fill": "none", "stroke": GOLD_DARK,
                                    "stroke-width": unit * 0.03}),
        ]))
    parts.append(_svg.element("ellipse", {"cx": cx, "cy": cy + layer * visible / 2 + 2,
                                          "rx": radius, "ry": radius * 0.9, "fill": "#000000",
                                          "fill-opacity": 0.22}))
    for k in range(visible - 1, 0, -1):
        parts.append(_svg.element("circle", {"cx": cx, "cy": top + k * layer, "r": radius,
                                             "fill": mid, "stroke": rim, "stroke-width": 1.2}))
    parts.append(_svg.element("circle", {"class": "checker", "cx": cx, "cy": top, "r": radius,
                                         "fill": f"url(#{board_id}-{man.color})", "stroke": rim,
                                         "stroke-width": 1.6}))
    parts.append(_svg.element("circle", {"cx": cx, "cy": top, "r": radius * 0.72, "fill": "none",
                                         "stroke": "#ffffff", "stroke-opacity": 0.35,
                                         "stroke-width": 1.2}))
    if man.king:
        parts.append(_crown(cx, top - radius * 0.95, unit * 0.34))
    parts.append(
        _svg.text_element(
            cx, top + 1, str(man.size),
            {"class": "size", "fill": "#ffffff", "font-size": unit * 0.34, "font-weight": "bold",
             "text-anchor": "middle", "dominant-baseline": "central",
             "font-family": "Helvetica, Arial, sans-serif", "stroke": rim,
             "stroke-width": 0.6},
        )
    )
    if man.cursed:
        parts.append(_curse_badge(cx + radius * 0.78, top + radius * 0.7, unit * 0.15))
    if man.locked:
        parts.append(_lock_badge(cx - radius * 0.8, top + radius * 0.7, unit * 0.15))
    classes = _svg.class_names(
        "man",
        man.color,
        "king" if man.king else None,
        "blessed" if man.blessed else None,
        "cursed" if man.cursed else None,
        "locked" if man.locked else None,
    )
    return _svg.group(
        {"class": classes, "data-point": label, "data-color": man.color, "data-size": man.size},
        parts,
    )


def _rays(cx: float, cy: float, outer: float, inner: float, count: int = 16) -> str:
    """A starburst outline (``count`` spikes) around a blessed man."""
    points = []
    for k in range(2 * count):
        radius = outer if k % 2 == 0 else inner
        angle = math.pi * k / count
        points.append(f"{_svg.num(cx + radius * math.sin(angle))},"
                      f"{_svg.num(cy - radius * math.cos(angle))}")
    return " ".join(points)


def _crown(cx: float, cy: float, width: float) -> str:
    """A small gold crown centred at (cx, cy), sitting on the checker's rim."""
    w, h = width, width * 0.62
    left, right, bottom, top = cx - w / 2, cx + w / 2, cy + h / 2, cy - h / 2
    d = (
        f"M{_svg.num(left)},{_svg.num(bottom)}"
        f"L{_svg.num(left - w * 0.06)},{_svg.num(top)}"
        f"L{_svg.num(cx - w * 0.25)},{_svg.num(cy + h * 0.05)}"
        f"L{_svg.num(cx)},{_svg.num(top - h * 0.15)}"
        f"L{_svg.num(cx + w * 0.25)},{_svg.num(cy + h * 0.05)}"
        f"L{_svg.num(right + w * 0.06)},{_svg.num(top)}"
        f"L{_svg.num(right)},{_svg.num(bottom)}Z"
    )
    return _svg.element("path", {"class": "crown", "d": d, "fill": GOLD, "stroke": GOLD_DARK,
                                 "stroke-width": 1.2, "stroke-linejoin": "round"})


def _curse_badge(cx: float, cy: float, radius: float) -> str:
    """A dark violet badge with a cross: this man is cursed."""
    arm = radius * 0.5
    cross = (
        f"M{_svg.num(cx - arm)},{_svg.num(cy - arm)}L{_svg.num(cx + arm)},{_svg.num(cy + arm)}"
        f"M{_svg.num(cx + arm)},{_svg.num(cy - arm)}L{_svg.num(cx - arm)},{_svg.num(cy + arm)}"
    )
    return _svg.group(
        {"class": "curse"},
        [
            _svg.element("circle", {"cx": cx, "cy": cy, "r": radius, "fill": "#3d1a4f",
                                    "stroke": "#e1bee7", "stroke-width": 1.2}),
            _svg.element("path", {"d": cross, "stroke": "#e1bee7", "stroke-width": radius * 0.3,
                                  "stroke-linecap": "round"}),
        ],
    )


def _lock_badge(cx: float, cy: float, radius: float) -> str:
    """A grey badge with a padlock: this man moved this turn and may not move again."""
    body_w, body_h = radius * 1.0, radius * 0.75
    shackle = (
        f"M{_svg.num(cx - body_w * 0.3)},{_svg.num(cy - body_h * 0.2)}"
        f"V{_svg.num(cy - body_h * 0.65)}"
        f"A{_svg.num(body_w * 0.3)},{_svg.num(body_w * 0.3)} 0 0 1 "
        f"{_svg.num(cx + body_w * 0.3)},{_svg.num(cy - body_h * 0.65)}"
        f"V{_svg.num(cy - body_h * 0.2)}"
    )
    return _svg.group(
        {"class": "lock"},
        [
            _svg.element("circle", {"cx": cx, "cy": cy, "r": radius, "fill": "#455a64",
                                    "stroke": "#eceff1", "stroke-width": 1.2}),
            _svg.element("path", {"d": shackle, "fill": "none", "stroke": "#eceff1",
                                  "stroke-width": radius * 0.18}),
            _svg.element("rect", {"x": cx - body_w / 2, "y": cy - body_h * 0.25,
                                  "width": body_w, "height": body_h, "rx": radius * 0.12,
                                  "fill": "#eceff1"}),
        ],
    )


def _last_action_layer(
    frame: _svg.Frame, position: Position, last_action: LastActions, board_id: str
) -> str:
    """The last action(s): an arrow from origin to target, or a ring on a drop/block."""
    board: HexBoard = position.board
    marks = []
    for action in _svg.action_list(position, last_action):
        target = frame.point(board, board.index(action.target))
        ring = {"cx": target[0], "cy": target[1], "r": frame.unit * 0.48, "fill": "none",
                "stroke": LAST_ACTION, "stroke-width": 3, "stroke-opacity": 0.8}
        items = [_svg.element("circle", ring)]
        if action.origin is not None:
            origin = frame.point(board, board.index(action.origin))
            items.insert(0, _svg.element("circle", {**ring, "cx": origin[0], "cy": origin[1],
                                                    "stroke-dasharray": "5 4"}))
            items.append(
                _svg.arrow(origin, target, shorten=frame.unit * 0.42,
                           marker_id=f"{board_id}-arrow",
                           values={"stroke": LAST_ACTION, "stroke-width": frame.unit * 0.08,
                                   "stroke-opacity": 0.85, "stroke-linecap": "round"})
            )
        marks.append(
            _svg.group(
                {"class": f"last-action last-{action.kind}", "data-point": action.target,
                 "data-origin": action.origin},
                items,
            )
        )
    return _svg.group({"class": "last-actions"}, marks)
