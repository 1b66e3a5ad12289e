"""The Benediction board-text format (rules section 8)."""

import pytest

from hexgames.benediction import Man, Position, Rules
from hexgames.benediction._tables import tables

DESIGNER = "Benediction v1: R-E2 B E8\nR:D12E12k3F12\nB:D78E78k9F78\nX:E5G3"


def test_designer_example_reads_and_writes_back_unchanged():
    p = Position.from_text(DESIGNER)
    assert p.to_text() == DESIGNER
    assert p.blocks == {"e5", "g3"}
    assert p.man_at("e2") == Man("red", 1, king=True)
    assert p.man_at("e9") == Man("blue", 1)
    assert (p.to_move, p.actions_left) == ("red", 2)


def test_stack_and_flag_suffixes():
    p = Position.from_text("Benediction v1: R-E2 B E8\nR:E2k+3k+7c\nB:E8kA1b++l")
    assert p.man_at("e2") == Man("red", 2, king=True)
    assert p.man_at("e3") == Man("red", 2, king=True)
    assert p.man_at("e7") == Man("red", 1, cursed=True)
    assert p.man_at("a1") == Man("blue", 3, blessed=True, locked=True)


def test_header_flags_name_who_acts_and_how_many_actions_are_left():
    second = Position.from_text("Benediction v1: R E2 B=E8\nR:E2k\nB:E8k")
    assert (second.to_move, second.actions_left, second.is_turn_start()) == ("blue", 1, False)
    first = Position.from_text("Benediction v1: R E2 B-E8\nR:E2k\nB:E8k")
    assert (first.to_move, first.actions_left, first.is_turn_start()) == ("blue", 2, True)
    assert first.key != second.key


def test_header_flags_x_and_w_record_the_result():
    taken = Position.from_text("Benediction v1: RWE2 BxE8\nR:E2kE8l\nB:E7")
    assert (taken.winner, taken.win_reason, taken.is_over) == ("red", "king captured", True)
    assert taken.legal_actions() == []
    blessed = Position.from_text("Benediction v1: R E2 BWE8\nR:E2k\nB:E8kA1kb")
    assert (blessed.winner, blessed.win_reason) == ("blue", "blessed king")
    draw = Position.from_text("Benediction v1: R E2 B E8\nR:E2k\nB:E8k")
    assert (draw.winner, draw.win_reason) == ("draw", "turn limit")
    for p in (taken, blessed, draw):
        assert Position.from_text(p.to_text()).key == p.key


def test_lines_wrapped_in_bars_read_like_plain_lines():
    wrapped = "\n".join(f"|{line}|" for line in DESIGNER.splitlines())
    assert Position.from_text(wrapped).to_text() == DESIGNER
    spaced = "\n".join(f"  | {line} |  " for line in DESIGNER.splitlines())
    assert Position.from_text(spaced).key == Position.from_text(DESIGNER).key


def test_locked_suffix_round_trips():
    p = Position.from_text("Benediction v1: R=E2 B E8\nR:C3lE2k\nB:E8k")
    assert p.man_at("c3").locked  # type: ignore[union-attr]
    assert "C3l" in p.to_text()
    assert "c3c4" not in {str(a) for a in p.legal_actions()}


def test_the_12_star_opening_is_written_with_one_action_left():
    p = Position.initial()
    assert p.to_text().splitlines()[0] == "Benediction v1: R=E2 B E8"
    q = Position.from_text(p.to_text())
    assert (q.key, q.actions_left) == (p.key, 1)
    two = Position.initial(Rules(first_turn_actions=2))
    assert two.to_text() == "\n".join(DESIGNER.splitlines()[:3])


@pytest.mark.parametrize("side", [6, 7])
def test_sides_6_and_7_use_the_comma_form(side):
    p = Position.initial(Rules(board_side=side))
    text = p.to_text()
    assert "," in text.splitlines()[1]
    assert Position.from_text(text, p.rules).to_text() == text
    assert Position.from_text(text).rules.board_side == side  # inferred from the header


def test_comma_form_with_rows_above_nine():
    p = Position.from_text(
        "Benediction v1: R-G2 B G12\nR:G1,2k,12+\nB:G13", Rules(board_side=7)
    )
    assert p.man_at("g1") == Man("red", 1)
    assert p.man_at("g2") == Man("red", 1, king=True)
    assert p.man_at("g12") == Man("red", 2)
    assert p.man_at("g13") == Man("blue", 1)


def test_side_4_uses_the_compact_form_and_is_inferred():
    p = Position.initial(Rules(board_side=4))
    assert "," not in p.to_text()
    assert Position.from_text(p.to_text()).rules.board_side == 4


def test_other_starting_points_round_trip():
    text = "Benediction v1: R-C3 B G6\nR:C3k\nB:G6k"
    p = Position.from_text(text)
    assert p.starting_points == ("c3", "g6")
    assert p.to_text() == text


@pytest.mark.parametrize(
    "text,where,reason",
    [
        ("", "line 1, column 1", "empty board text"),
        ("Benediktion v1: R-E2 B E8", "line 1, column 1", "must start with"),
        ("Benediction v1: R?E2 B E8", "line 1, column 17", "expected 'R<flag><start>"),
        ("Benediction v1: R-E2 B-E8", "line 1, column 18", "both players cannot be acting"),
        ("Benediction v1: R-E2 B E8\nQ:E2k", "line 2, column 1", "'R:', 'B:' or 'X:'"),
        ("Benediction v1: R-E2 B E8\nR:D12E12k3F1Z", "line 2, column 13", "not a column"),
        ("Benediction v1: R-E2 B E8\n| R:D1Z |", "line 2, column 7", "not a column"),
        ("Benediction v1: R-E2 B E8\nR:A6", "line 2, column 4", "'a6' is not a point"),
        ("Benediction v1: R-E2 B E8\nR:A1\nB:A1", "line 3, column 4", "a1 is listed twice"),
        ("Benediction v1: R-E2 B E8\nR:A1++++++++", "line 2, column 4", "exceeds the largest"),
        ("Benediction v1: R-E2 B E8\nR:A1kc", "line 2, column 4", "cannot be cursed"),
        ("Benediction v1: R-E2 B E8\nR:A1kk", "line 2, column 6", "flag 'k' given twice"),
        ("Benediction v1: R-E2 B E8\nR:a1", "line 2, column 3", "unexpected 'a'"),
        ("Benediction v1: R-E2 B E8\nX:A1k", "line 2, column 5", "a block takes no flags"),
        ("Benediction v1: R-E2 B E8\nX:E2", "line 2, column 4", "starting point e2"),
        ("Benediction v1: R-E2 B E8\n|R:A1", "line 2, column 5", "must also end with '|'"),
        ("Benediction v1: R-E2 B E8\nR:A1\nR:A2", "line 3, column 1", "a second 'R:' line"),
        ("Benediction v1: R-E2 B xE8", "line 1", "'x'"),
        ("Benediction v1: R-E2 B E8\nR:E2kb", "line 1", "blessed king"),
        ("Benediction v1: R-E2 B E2", "line 1, column 19", "must differ"),
    ],
)
def test_malformed_text_names_line_and_column(text, where, reason):
    with pytest.raises(ValueError, match=reason) as info:
        Position.from_text(text)
    assert str(info.value).startswith(where)


def test_a_player_to_act_without_any_legal_action_has_lost_when_read():
    # Side 4: Blue has no men, Red fills Blue's zone, blocks cover every other point.
    t = tables(4)
    taken = {t.board.index(x) for x in ("c5", "c6", "d5", "d7", "d6", "e5", "e6", "d2")}
    chosen: list[int] = []
    for i in range(len(t.board.labels)):
        if i not in taken and not any(j in chosen for j in t.block_adjacent[i]):
            chosen.append(i)
    blocks = "".join(t.board.labels[i].upper() for i in chosen)
    text = f"Benediction v1: R D2 B-D6\nR:C56D57k6E56\nB:\nX:{blocks}"
    p = Position.from_text(text, Rules(board_side=4))
    assert (p.winner, p.win_reason, p.legal_actions()) == ("red", "no legal action", [])
    assert p.to_text().splitlines()[0] == "Benediction v1: RWD2 B D6"
