"""Render a mid-game board of each game to PNG for the documentation.

    .venv/bin/python tools/render_examples.py [--out docs/images] [--width 900]

Writes ``benediction-board.png`` and ``dendria-board.png``. The positions are fixed (board
texts, and for Dendria a turn played from one), so the images only change when
the drawings do.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cairosvg

from hexgames.benediction import Position as BenedictionPosition
from hexgames.benediction.gestures import gesture
from hexgames.benediction.render import svg as benediction_svg
from hexgames.dendria import Position as DendriaPosition
from hexgames.dendria.render import svg as dendria_svg

#: Red to act (second action of the turn): kings, stacks up to 3, blessed, cursed and
#: locked men, blocks, and an empty starting point (Blue's king left e8).
BENEDICTION_MIDGAME = """\
Benediction v1: R=E2 B E8
R:C2+D3E2kE4b++E6lF3cG2+H5
B:B4C5++D7+E7k+9F7bG5c
X:B2D5G4
"""
BENEDICTION_LAST = ("f5e6",)

#: Dark to move with two forests each side, seedbeds and dendrids of both colours.
DENDRIA_BEFORE = """\
Dendria v1: size=7 to-move=dark
dark seeds: c6 c7 f6 h4 i4 e10
dark trees: d3 d4 e4 e5
dark dendrids: b2 f9 a5
light seeds: h10 h11 g10 j4 k9
light trees: j6 j7 k7 k8
light dendrids: k3 g12 i6
"""
DENDRIA_TURN = "f9-d9 +c6 end"


def benediction_example() -> tuple[BenedictionPosition, tuple[str, ...]]:
    return BenedictionPosition.from_text(BENEDICTION_MIDGAME), BENEDICTION_LAST


def dendria_example() -> tuple[DendriaPosition, list[str]]:
    """The position after Dark's last turn, and that turn's steps (played by the engine,
    so the picture shows a legal turn: the dendrid f9 slides to d9, which lets the
    seedbed c6-c7 grow into a forest)."""
    position = DendriaPosition.from_text(DENDRIA_BEFORE)
    turn = DENDRIA_TURN.split()
    for step in turn:
        position.play(step)
    return position, turn


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"), help="output folder")
    parser.add_argument("--width", type=int, default=900, help="PNG width in pixels")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    position, last = benediction_example()
    # As the web board shows it after a click on g2: the points that complete an action.
    origin = "g2"
    targets = {
        g.points[1]
        for g in (gesture(position, a) for a in position.legal_actions())
        if g.points[:1] == (origin,) and len(g.points) == 2
    }
    document = benediction_svg(position, targets, last_action=last, selected=(origin,))
    cairosvg.svg2png(
        bytestring=document.encode(),
        write_to=str(args.out / "benediction-board.png"),
        output_width=args.width,
    )

    garden, last_turn = dendria_example()
    document = dendria_svg(
        garden, last_action=last_turn, overlays=("fertilized-dark", "fertilized-light")
    )
    cairosvg.svg2png(
        bytestring=document.encode(),
        write_to=str(args.out / "dendria-board.png"),
        output_width=args.width,
    )
    for name in ("benediction-board.png", "dendria-board.png"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
