"""Rules section 6 after a winning action: every step still applies.

The winner is the one decided first (a king capture before a blessed king), but
crowning, bridge blessings and the pending curses of the last action land all the same,
so the final position of a won game shows them: in ``men()``, in the board text, in the
SVG, and ``undo`` takes all of it back exactly.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from hexgames.benediction import Man, Position, Termination
from hexgames.benediction.render import svg

SVG = "{http://www.w3.org/2000/svg}"


def pos(*lines: str) -> Position:
    return Position.from_text("\n".join(["Benediction v1: R-E2 B E8", *lines]))


#: (men before, winning action, termination, final board text, men that show section 6)
CASES = [
    pytest.param(
        ("R:E2kE7", "B:E8k"), "e7e8", Termination.KING_CAPTURED,
        "Benediction v1: RWE2 BxE8\nR:E2k8kl\nB:",
        {"e8": Man("red", 1, king=True, locked=True)},  # crowned on Blue's start
        id="king-capture-crowns",
    ),
    pytest.param(
        ("R:E2E7", "B:E8k"), "e7e8", Termination.KING_CAPTURED,
        "Benediction v1: RWE2 BxE8\nR:E2k8kl\nB:",
        {  # a text position may hold an uncrowned man on a starting point
            "e2": Man("red", 1, king=True),
            "e8": Man("red", 1, king=True, locked=True),
        },
        id="king-capture-crowns-both-starts",
    ),
    pytest.param(
        ("R:A1234B5E2k", "B:A5kE8k"), "b5a5", Termination.KING_CAPTURED,
        "Benediction v1: RWE2 BxE8\nR:A1b2b3b4b5blE2k\nB:E8k",
        {  # the capture completes the a1-a5 bridge, which blesses its members
            "a1": Man("red", 1, blessed=True),
            "a4": Man("red", 1, blessed=True),
            "a5": Man("red", 1, blessed=True, locked=True),
        },
        id="king-capture-blesses-bridge",
    ),
    pytest.param(
        ("R:C3+E2k", "B:C4kE8k"), "c3-1-c4", Termination.KING_CAPTURED,
        "Benediction v1: RWE2 BxE8\nR:C3c4clE2k\nB:E8k",
        {  # a split that captures a king still curses both parts
            "c3": Man("red", 1, cursed=True),
            "c4": Man("red", 1, cursed=True, locked=True),
        },
        id="king-capture-by-split-curses",
    ),
    pytest.param(
        ("R:A12k34C5++", "B:E8k"), "c5-2-a5", Termination.BLESSED_KING,
        "Benediction v1: RWE2 B E8\nR:A1b2kb3b4b5bl+C5c\nB:E8k",
        {  # the bridge blesses the king; the part left behind is still cursed
            "a2": Man("red", 1, king=True, blessed=True),
            "a5": Man("red", 2, blessed=True, locked=True),
            "c5": Man("red", 1, cursed=True),
        },
        id="blessed-king-split-curses-part-left",
    ),
]


@pytest.mark.parametrize(("men", "action", "termination", "text", "shown"), CASES)
def test_the_final_position_of_a_won_game_shows_every_step(
    men, action, termination, text, shown
):
    p = pos(*men)
    p.play(action)
    outcome = p.outcome()
    assert outcome is not None
    assert (outcome.termination, outcome.winner, outcome.winner_seat) == (termination, "red", 0)
    assert p.win_reason == termination.value
    for label, man in shown.items():
        assert p.man_at(label) == man, label
    assert p.to_text() == text
    assert str(p) == text
    # The board text of the final position reads back to the same position.
    again = Position.from_text(text)
    assert (again.key, again.men(), again.outcome()) == (p.key, p.men(), outcome)


@pytest.mark.parametrize(("men", "action", "termination", "text", "shown"), CASES)
def test_the_svg_of_a_won_game_draws_the_crown_blessings_and_curses(
    men, action, termination, text, shown
):
    p = pos(*men)
    p.play(action)
    root = ET.fromstring(svg(p))
    drawn = {
        g.get("data-point"): g
        for g in root.iter()
        if "man" in g.get("class", "").split()
    }
    for label, man in shown.items():
        classes = set(drawn[label].get("class", "").split())
        marks = {
            mark
            for mark in ("crown", "blessing", "curse", "lock")
            for e in drawn[label].iter()
            if mark in e.get("class", "").split()
        }
        for flag, mark in (("king", "crown"), ("blessed", "blessing"), ("cursed", "curse")):
            assert (flag in classes) == getattr(man, flag), (label, flag)
            assert (mark in marks) == getattr(man, flag), (label, mark)
    assert f"Red wins ({termination.value})" in svg(p)


@pytest.mark.parametrize(("men", "action", "termination", "text", "shown"), CASES)
def test_undo_of_a_winning_action_restores_the_position_exactly(
    men, action, termination, text, shown
):
    p = pos(*men)
    before = (p.to_text(), p.key, p.men(), p.to_move, p.actions_left, p.ply, p.outcome())
    legal = sorted(map(str, p.legal_actions()))
    p.play(action)
    assert p.undo() == p.parse_action(action)
    assert (p.to_text(), p.key, p.men(), p.to_move, p.actions_left, p.ply, p.outcome()) == before
    assert sorted(map(str, p.legal_actions())) == legal
    # and the listed instance (the generator's road) gives the same final position
    listed = {str(a): a for a in p.legal_actions()}
    p.play(listed[action])
    assert p.to_text() == text
