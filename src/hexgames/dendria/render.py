"""Dendria drawn for people: a text board for terminals and an SVG board for the web.

Both drawings show the soils and every piece (seeds, trees and dendrids of both colours)
so that seedbeds, forests and the dendrids' lines of sight read at a glance. The SVG can
also overlay the cells each player's dendrids fertilize and the cells where a seed may be
planted, which is what a player checks before growing, converting or planting. It
follows the conventions of :mod:`hexgames._svg` so the web front end can map clicks to
cell labels without knowing the game.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from hexgames import _svg
from hexgames.dendria._words import color_title
from hexgames.dendria.position import Piece, Position
from hexgames.dendria.steps import Step
from hexgames.game import word
from hexgames.hexgrid import HexBoard
from hexgames.phrases import N_, Phrase

__all__ = ["OVERLAYS", "ascii_board", "svg"]

COLORS = ("dark", "light")
KINDS = ("seed", "tree", "dendrid")
#: Overlays :func:`svg` can draw on empty cells.
OVERLAYS = ("fertilized-dark", "fertilized-light", "plantable")
#: The overlays' names on the game page's toggles (it shows ``t(cap(name))``, dashes as
#: spaces).
OVERLAY_NAMES = {"fertilized-dark": N_("Fertilized dark"),
                 "fertilized-light": N_("Fertilized light"), "plantable": N_("Plantable")}

#: Piece fill, outline and contrasting ink, per colour.
PAINT = {
    "dark": {"fill": "#2b2724", "edge": "#0d0b0a", "ink": "#f1e7d2", "tree": "#3b4a33"},
    "light": {"fill": "#f6eedc", "edge": "#7d6a4c", "ink": "#3a2f22", "tree": "#cfe3b4"},
}
SOILS = ("#b98f5b", "#ae8552", "#c39a64")
SOIL_EDGE = "#7c5a32"
BACKDROP = "#4e3a22"
INK = "#f3e6cc"
LAST_STEP = "#ff7043"

#: What ``svg(last_action=...)`` takes: a step, its notation, several of them, or none.
LastSteps = Step | str | Sequence[Step | str] | None

def _pieces(position: Position) -> dict[int, Piece]:
    board: HexBoard = position.board
    pieces = {}
    for index, label in enumerate(board.labels):
        piece = position.piece_at(label)
        if piece is not None:
            pieces[index] = piece
    return pieces


def _indices(board: HexBoard, labels: Iterable[str]) -> set[int]:
    return _svg.labels_to_indices(board, labels)


def _check_position(position: object) -> Position:
    if not isinstance(position, Position):
        raise ValueError(f"expected a Dendria Position, got {type(position).__name__}")
    return position


def _label_list(position: Position, labels: object, what: str) -> list[str]:
    """``labels`` (cell names; ``None`` for none) checked against the board: a
    ``ValueError`` names the argument and the bad value."""
    if labels is None:
        return []
    if isinstance(labels, str) or not isinstance(labels, Iterable):
        raise ValueError(Phrase("{what} must be a list of cell names, got {value}", what=what,
                                value=repr(labels)))
    out = []
    for label in labels:
        if not isinstance(label, str) or not position.board.is_label(label):
            raise ValueError(Phrase("{what}: {label} is not a cell of the side-{side} board",
                                    what=what, label=repr(label), side=position.board.side))
        out.append(label)
    return out


def _step_list(position: Position, steps: LastSteps) -> list[Step]:
    """``last_action`` as steps; anything that is not a step or its notation is refused
    (``IllegalAction``, a ``ValueError``)."""
    if steps is None:
        return []
    items = [steps] if isinstance(steps, (str, Step)) or not isinstance(steps, Sequence) \
        else list(steps)
    return [s if isinstance(s, Step) else position.parse_action(s) for s in items]


def status_line(position: Position) -> str:
    """Who is to act (whether a turn is under way, whether the pie rule's swap is open),
    and the score; or the result and why the game ended."""
    return str(status_phrase(position))


def status_phrase(position: Position) -> Phrase:
    """:func:`status_line` as a translatable phrase."""
    dark, light = _scores(position)
    score = Phrase("Score: Dark {dark}, Light {light}.", dark=_points(dark),
                   light=_points(light))
    if position.is_over:
        reason = position.end_reason
        if position.winner in COLORS:
            winner = color_title(str(position.winner))
            if reason:
                return Phrase("{winner} wins ({reason}). {score}", winner=winner,
                              reason=word(str(reason)), score=score)
            return Phrase("{winner} wins. {score}", winner=winner, score=score)
        if reason:
            return Phrase("The game is drawn ({reason}). {score}", reason=word(str(reason)),
                          score=score)
        return Phrase("The game is drawn. {score}", score=score)
    mover = color_title(position.to_move)
    if not position.is_turn_start():
        return Phrase("{player} to move (turn under way: follow up, or end). {score}",
                      player=mover, score=score)
    if position.pie_pending:
        return Phrase("{player} to move, and may swap colours (pie rule). {score}",
                      player=mover, score=score)
    return Phrase("{player} to move. {score}", player=mover, score=score)


def _scores(position: Position) -> tuple[float, float]:
    score = position.score()
    return score["dark"], score["light"]


def _points(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


# --------------------------------------------------------------------------- text

#: Text tokens: seeds are small letters, trees capitals, dendrids capitals in angles.
TOKENS = {
    ("dark", "seed"): "x",
    ("dark", "tree"): "X",
    ("dark", "dendrid"): "<X>",
    ("light", "seed"): "o",
    ("light", "tree"): "O",
    ("light", "dendrid"): "<O>",
}
#: Legend lines, as (text, style) fragments so that a coloured board colours them too.
LEGEND: tuple[tuple[tuple[str, str | None], ...], ...] = (
    (("Dark: ", None), ("x seed  X tree  <X> dendrid", "dark"), ("    Light: ", None),
     ("o seed  O tree  <O> dendrid", "light")),
    ((". empty soil  ", None), ("[ ]", "highlight"), (" highlighted", None)),
)


def ascii_board(position: Position, highlights: Iterable[str] = (), *, color: bool = False) -> str:
    """The board as text, with column letters, row numbers, a legend and a status line.

    ``highlights`` are labels shown in ``[ ]``; ``color=True`` adds ANSI colours.
    """
    position = _check_position(position)
    highlights = _label_list(position, highlights, "highlights")
    board: HexBoard = position.board
    pieces = _pieces(position)
    tokens: list[tuple[str, str | None]] = []
    for index in range(board.size):
        piece = pieces.get(index)
        if piece is None:
            tokens.append((".", "muted"))
        else:
            tokens.append((TOKENS[(piece.color, piece.kind)], piece.color))
    legend = [*LEGEND, ((status_line(position), None),)]
    return _svg.text_board(
        board,
        tokens,
        highlights=_indices(board, highlights),
        column_width=4,
        color=color,
        legend=legend,
    )


# --------------------------------------------------------------------------- SVG


def svg(
    position: Position,
    highlights: Iterable[str] = (),
    *,
    size: int = 600,
    show_labels: bool = True,
    last_action: LastSteps = None,
    overlays: Iterable[str] = (),
    selected: Iterable[str] = (),
    board_id: str = "dendria-board",
    flip: bool = False,
) -> str:
    """A standalone SVG drawing of the position, ``size`` pixels wide.

    ``highlights`` and ``selected`` are cell labels (the next possible clicks, the clicks
    made so far). ``last_action`` is a step, its notation, or a sequence of them (e.g. the
    steps of the last turn). ``overlays`` is any of :data:`OVERLAYS`. ``flip`` turns the
    board half a turn (text stays upright). Bad arguments raise ``ValueError`` naming them.
    """
    position = _check_position(position)
    highlights = _label_list(position, highlights, "highlights")
    selected = _label_list(position, selected, "selected")
    last_action = _step_list(position, last_action)
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not size > 0:
        raise ValueError(f"size must be a positive number of pixels, got {size!r}")
    if not isinstance(board_id, str):
        raise ValueError(f"board_id must be a string, got {board_id!r}")
    board: HexBoard = position.board
    if overlays is None or isinstance(overlays, str) or not isinstance(overlays, Iterable):
        raise ValueError(Phrase("overlays must be a list of names from {names}, got {value}",
                                names=str(OVERLAYS), value=repr(overlays)))
    overlays = tuple(overlays)
    unknown = [name for name in overlays if name not in OVERLAYS]
    if unknown:
        raise ValueError(Phrase("unknown overlay {name}; expected some of {names}",
                                name=repr(unknown[0]), names=str(OVERLAYS)))
    # The backdrop reaches 1.43 units beyond the outer cells' centres when it carries the
    # labels, 0.75 otherwise.
    frame = _svg.Frame.around(board, margin=_svg.UNIT * (1.45 if show_labels else 0.77))
    frame = frame.flipped(bool(flip))
    overlay_cells = _overlay_cells(position, overlays)
    if any(overlay_cells.values()):
        soil = _soil_layer(frame, board, overlay_cells, framed=show_labels)
    else:  # the same in every position of a game: drawn once
        soil = _FIXED_LAYERS.get(
            (frame, board.side, show_labels), _soil_layer, frame, board, {}, show_labels)
    layers = [
        soil,
        _overlay_layer(frame, board, overlay_cells),
        _piece_layer(frame, position),
        _last_step_layer(frame, position, last_action, board_id),
    ]
    if show_labels:
        layers.append(_svg.label_layer(frame, board, INK))
    chosen = _indices(board, selected)
    layers.append(
        _svg.hit_layer(
            frame,
            board,
            _indices(board, highlights),
            "hexagon",
            {index: "selected" for index in chosen},
        )
    )
    to_move = "none" if position.is_over else position.to_move
    dark, light = _scores(position)
    return _svg.svg_document(
        frame=frame,
        size=size,
        root_id=board_id,
        classes=f"hexgames-board hexgames-dendria to-move-{to_move}",
        data={"game": "dendria", "side": board.side, "to-move": to_move,
              "score-dark": _points(dark), "score-light": _points(light),
              **({"flipped": "true"} if flip else {})},
        title=Phrase("{game} board, side {side}: {status}", game=word("Dendria"), side=board.side,
                     status=status_phrase(position)),
        style=_svg.HIT_STYLE,
        defs=_svg.arrow_marker(f"{board_id}-arrow", LAST_STEP),
        layers=layers,
    )


#: The soil layer of a board without overlays (see :func:`svg`), and drawn pieces.
_FIXED_LAYERS = _svg.Memo(64)
_PIECES = _svg.Memo(8192)


def _overlay_cells(position: Position, overlays: Sequence[str]) -> dict[str, set[int]]:
    board: HexBoard = position.board
    cells: dict[str, set[int]] = {}
    for name in overlays:
        if name == "plantable":
            cells[name] = _indices(board, position.plantable_cells())
        else:
            color = name.removeprefix("fertilized-")
            cells[name] = _indices(board, position.fertilized_cells(color))
    return cells


def _soil_layer(
    frame: _svg.Frame, board: HexBoard, overlay_cells: dict[str, set[int]], framed: bool
) -> str:
    """The soils, in three tones so that no two neighbours share one, on a dark backdrop
    made of the same hexagons drawn with a wide stroke: it outlines the whole board, and
    when ``framed`` it is wide enough to carry the edge labels."""
    radius = frame.unit / _svg.SQRT3
    backdrop = []
    soils = []
    for index, label in enumerate(board.labels):
        cx, cy = frame.point(board, index)
        x, y = board.coords[index]
        backdrop.append(_svg.element("polygon", {"points": _svg.hexagon(cx, cy, radius)}))
        classes = _svg.class_names(
            "cell", *(name for name, cells in overlay_cells.items() if index in cells)
        )
        soils.append(
            _svg.element(
                "polygon",
                {"class": classes, "data-point": label,
                 "points": _svg.hexagon(cx, cy, radius * 0.97), "fill": SOILS[(x + y) % 3],
                 "stroke": SOIL_EDGE, "stroke-width": 1.2},
            )
        )
    return _svg.group(
        {"class": "soils"},
        [
            _svg.group({"class": "backdrop", "fill": BACKDROP, "stroke": BACKDROP,
                        "stroke-width": frame.unit * (1.7 if framed else 0.35),
                        "stroke-linejoin": "round"},
                       backdrop),
            *soils,
        ],
    )


def _overlay_layer(frame: _svg.Frame, board: HexBoard, overlay_cells: dict[str, set[int]]) -> str:
    """Small marks on empty cells: a dot per colour whose dendrids fertilize the cell
    (dark on the left, light on the right), and a green sprout ring where one may plant."""
    unit = frame.unit
    marks = []
    for name, cells in overlay_cells.items():
        for index in sorted(cells):
            cx, cy = frame.point(board, index)
            label = board.labels[index]
            if name == "plantable":
                marks.append(_svg.element(
                    "circle",
                    {"class": "overlay plantable", "data-point": label, "cx": cx, "cy": cy,
                     "r": unit * 0.16, "fill": "#8bc34a", "fill-opacity": 0.35,
                     "stroke": "#33691e", "stroke-width": 1.5, "stroke-dasharray": "3 2"},
                ))
                continue
            color = name.removeprefix("fertilized-")
            dx = -0.22 if color == "dark" else 0.22
            marks.append(_svg.element(
                "circle",
                {"class": f"overlay {name}", "data-point": label, "cx": cx + dx * unit,
                 "cy": cy - unit * 0.2, "r": unit * 0.08, "fill": PAINT[color]["fill"],
                 "stroke": PAINT[color]["ink"], "stroke-width": 1.2},
            ))
    return _svg.group({"class": "overlays"}, marks)


def _piece_layer(frame: _svg.Frame, position: Position) -> str:
    board: HexBoard = position.board
    drawn = []
    for index, piece in sorted(_pieces(position).items()):
        drawn.append(_PIECES.get((frame, board.side, index, piece.kind, piece.color),
                                 _piece, frame, board, index, piece.kind, piece.color))
    return _svg.group({"class": "pieces"}, drawn)


def _piece(frame: _svg.Frame, board: HexBoard, index: int, kind: str, color: str) -> str:
    at = frame.point(board, index)
    draw = {"seed": _seed, "tree": _tree, "dendrid": _dendrid}[kind]
    return _svg.group(
        {"class": f"piece {kind} {color}", "data-point": board.labels[index],
         "data-kind": kind, "data-color": color},
        draw(frame.unit, at, color),
    )


def _seed(unit: float, at: tuple[float, float], color: str) -> list[str]:
    """An almond-shaped seed, tilted, with a seam."""
    cx, cy = at
    paint = PAINT[color]
    rx, ry = unit * 0.2, unit * 0.13
    turn = f"rotate(-35 {_svg.num(cx)} {_svg.num(cy)})"
    seam = f"M{_svg.num(cx - rx * 0.6)},{_svg.num(cy)}Q{_svg.num(cx)},{_svg.num(cy - ry * 0.55)} " \
        f"{_svg.num(cx + rx * 0.6)},{_svg.num(cy)}"
    return [
        _svg.element("ellipse", {"cx": cx + 1.5, "cy": cy + 2, "rx": rx, "ry": ry,
                                 "transform": turn, "fill": "#000000", "fill-opacity": 0.25}),
        _svg.element("ellipse", {"cx": cx, "cy": cy, "rx": rx, "ry": ry, "transform": turn,
                                 "fill": paint["fill"], "stroke": paint["edge"],
                                 "stroke-width": 1.4}),
        _svg.element("path", {"d": seam, "transform": turn, "fill": "none",
                              "stroke": paint["ink"], "stroke-width": 1.2,
                              "stroke-opacity": 0.7}),
    ]


def _tree(unit: float, at: tuple[float, float], color: str) -> list[str]:
    """The whole soil taken in the owner's colour, with a conifer on it: forests read as
    territory."""
    cx, cy = at
    paint = PAINT[color]
    radius = unit / _svg.SQRT3 * 0.86
    w, h = unit * 0.34, unit * 0.2
    crowns = []
    for k, (top, width) in enumerate(((cy - h * 1.45, w * 0.7), (cy - h * 0.85, w))):
        base = top + h
        crowns.append(
            _svg.element(
                "path",
                {"d": f"M{_svg.num(cx)},{_svg.num(top)}L{_svg.num(cx + width / 2)},"
                      f"{_svg.num(base)}L{_svg.num(cx - width / 2)},{_svg.num(base)}Z",
                 "fill": "#2e7d32" if k else "#43a047", "stroke": "#1b5e20",
                 "stroke-width": 1, "stroke-linejoin": "round"},
            )
        )
    trunk = _svg.element("rect", {"x": cx - unit * 0.035, "y": cy + h * 0.15,
                                  "width": unit * 0.07, "height": h * 0.55, "fill": "#5d4037"})
    return [
        _svg.element("polygon", {"points": _svg.hexagon(cx, cy, radius), "fill": paint["fill"],
                                 "stroke": paint["edge"], "stroke-width": 2}),
        trunk,
        *reversed(crowns),
    ]


def _dendrid(unit: float, at: tuple[float, float], color: str) -> list[str]:
    """A disc with a six-armed branching mark: the dendrid sees along the six lines."""
    cx, cy = at
    paint = PAINT[color]
    radius = unit * 0.31
    arms = []
    for k in range(6):
        angle = math.pi / 3.0 * k - math.pi / 2.0
        ux, uy = math.cos(angle), math.sin(angle)
        tip = radius * 0.72
        mid = radius * 0.42
        arms.append(f"M{_svg.num(cx)},{_svg.num(cy)}L{_svg.num(cx + ux * tip)},"
                    f"{_svg.num(cy + uy * tip)}")
        for side in (-1, 1):
            bx = math.cos(angle + side * 0.7) * radius * 0.22
            by = math.sin(angle + side * 0.7) * radius * 0.22
            arms.append(f"M{_svg.num(cx + ux * mid)},{_svg.num(cy + uy * mid)}"
                        f"l{_svg.num(bx)},{_svg.num(by)}")
    return [
        _svg.element("circle", {"cx": cx + 1.5, "cy": cy + 2.5, "r": radius, "fill": "#000000",
                                "fill-opacity": 0.3}),
        _svg.element("circle", {"cx": cx, "cy": cy, "r": radius, "fill": paint["fill"],
                                "stroke": paint["edge"], "stroke-width": 2}),
        _svg.element("path", {"d": "".join(arms), "stroke": paint["ink"],
                              "stroke-width": unit * 0.04, "stroke-linecap": "round",
                              "fill": "none"}),
        _svg.element("circle", {"cx": cx, "cy": cy, "r": unit * 0.045, "fill": paint["ink"]}),
    ]


def _last_step_layer(
    frame: _svg.Frame, position: Position, last_action: LastSteps, board_id: str
) -> str:
    """The last step(s): an arrow for a dendrid's leg or continuation, a ring on the cell
    a plant or follow-up names. A continuation starts where the previous leg stopped."""
    board: HexBoard = position.board
    marks = []
    stop: str | None = None
    for step in _svg.action_list(position, last_action):
        if step.target is None:
            continue
        target = frame.point(board, board.index(step.target))
        origin_label = {"leg": step.origin, "continue": stop}.get(step.kind)
        ring = _svg.hexagon(*target, frame.unit / _svg.SQRT3 * 0.88)
        items = [
            _svg.element("polygon", {"points": ring, "fill": "none", "stroke": LAST_STEP,
                                     "stroke-width": 3, "stroke-opacity": 0.9})
        ]
        if origin_label is not None:
            origin = frame.point(board, board.index(origin_label))
            items.append(
                _svg.arrow(origin, target, shorten=frame.unit * 0.36, marker_id=f"{board_id}-arrow",
                           values={"stroke": LAST_STEP, "stroke-width": frame.unit * 0.07,
                                   "stroke-opacity": 0.9, "stroke-linecap": "round"})
            )
        if step.kind in ("leg", "continue"):
            stop = step.target
        marks.append(
            _svg.group(
                {"class": f"last-action last-{step.kind}", "data-point": step.target,
                 "data-origin": origin_label},
                items,
            )
        )
    return _svg.group({"class": "last-actions"}, marks)
