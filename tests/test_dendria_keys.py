"""The Dendria position key (incremental Zobrist) against its computation from scratch and
against text round trips, through every end condition and every pie-rule state; and the
O(1) history accessors."""

import pytest

from hexgames import IllegalAction
from hexgames.dendria import Position, Rules, Step, Termination
from hexgames.dendria._refusal import resolve
from hexgames.dendria.position import (
    PIE_ARMED,
    PIE_OFF,
    PIE_PENDING,
    _TurnState,
    _UndoRecord,
)
from hexgames.game import HistoryView

DENDRIDS = "Dendria v1: size=5 to-move=dark\ndark dendrids: a1\nlight dendrids: i1\n"

# (name, rules, start text or None, turns, pie states met on the way, how it ends)
GAMES = [
    ("pie off, both passed", Rules(board_side=5, pie=False), None, ["pass", "pass"],
     {"off"}, Termination.BOTH_PASSED),
    ("pie armed, both passed at once", Rules(board_side=5), None, ["pass", "pass"],
     {"armed", "off"}, Termination.BOTH_PASSED),
    ("swap offered and declined by a plant", Rules(board_side=5), None,
     ["e5", "a1", "pass", "pass"], {"armed", "offered", "declined"},
     Termination.BOTH_PASSED),
    ("swap offered and declined by a pass", Rules(board_side=5), None,
     ["e5", "pass", "pass"], {"armed", "offered", "declined"}, Termination.BOTH_PASSED),
    ("swapped, both passed", Rules(board_side=5), None, ["e5", "swap", "pass", "pass"],
     {"armed", "offered", "swapped"}, Termination.BOTH_PASSED),
    ("swapped, quiet limit", Rules(board_side=5, quiet_limit=1), None,
     ["e5", "swap", "pass"], {"armed", "offered", "swapped"}, Termination.QUIET_LIMIT),
    ("pie armed, quiet limit on the second pass", Rules(board_side=5, quiet_limit=1), None,
     ["pass", "pass"], {"armed", "off"}, Termination.BOTH_PASSED),
    ("pie off, quiet limit after a dendrid move",
     Rules(board_side=5, pie=False, quiet_limit=1),
     DENDRIDS, ["a1-a3", "pass"], {"off"}, Termination.QUIET_LIMIT),
    ("pie on but not at the start, quiet limit", Rules(board_side=5, quiet_limit=1),
     DENDRIDS, ["a1-a3", "pass"], {"off"}, Termination.QUIET_LIMIT),
]


def pie_state(p: Position) -> str:
    if p._pie == PIE_ARMED:
        return "armed"
    if p._pie == PIE_PENDING:
        return "offered"
    assert p._pie == PIE_OFF
    if p._swapped:
        return "swapped"
    if p.rules.pie and p.turn_number > 2 and p.history and p.history[0].kind == "plant":
        return "declined"  # Dark planted first and Light played on without swapping
    return "off"


def check_key(p: Position) -> None:
    assert p.key == p._key_from_scratch()
    if p.is_turn_start():
        q = Position.from_text(p.to_text(), p.rules)
        assert q.to_text() == p.to_text()
        assert (q._pie, q._swapped, q.is_over, q.end_reason) == (
            p._pie, p._swapped, p.is_over, p.end_reason
        )
        assert q.key == p.key == q._key_from_scratch()
        # Twice round: the text read back writes the same key again.
        assert Position.from_text(q.to_text(), q.rules).key == p.key


@pytest.mark.parametrize(
    ("rules", "start", "turns", "pies", "ending"),
    [game[1:] for game in GAMES],
    ids=[game[0] for game in GAMES],
)
def test_incremental_key_equals_key_from_scratch_and_after_text(
    rules, start, turns, pies, ending
):
    p = Position.from_text(start, rules) if start else Position.initial(rules)
    seen = set()
    check_key(p)
    seen.add(pie_state(p))
    for turn in turns:
        for word in turn.split():
            p.play(word)
            check_key(p)
        if not p.is_turn_start():
            p.play("end")
            check_key(p)
        seen.add(pie_state(p))
    assert seen == pies
    outcome = p.outcome()
    assert outcome is not None and outcome.termination is ending
    assert p.end_reason == ending.value and p.end_reason is ending
    while p.history:
        p.undo()
        check_key(p)


def test_the_opening_of_two_passes_reads_back_with_its_key():
    # make test once failed here: the text of the finished game (empty board, Dark to
    # move, quiet=2 passes=2) read back as Dark's first turn with the pie offer armed.
    p = Position.initial(Rules(board_side=3))
    p.play("pass")
    p.play("pass")
    q = Position.from_text(p.to_text())
    assert q.key == p.key and q.is_over and not q.pie_pending


def test_the_empty_board_is_only_armed_at_the_start():
    assert Position.from_text("Dendria v1: size=5 to-move=dark\n")._pie == PIE_ARMED
    assert Position.from_text("Dendria v1: size=5 to-move=dark quiet=1\n")._pie == PIE_OFF
    assert Position.from_text("Dendria v1: size=5 to-move=light quiet=1 passes=1\n")._pie \
        == PIE_OFF


# ------------------------------------------------------------------ history
def test_history_is_a_live_read_only_view_with_last_action_and_ply():
    p = Position.initial(Rules(board_side=5))
    view = p.history
    assert isinstance(view, HistoryView)
    assert (p.last_action, p.ply, len(view)) == (None, 0, 0)
    p.play_turn("e5")
    assert view is p.history and list(view) == [Step.parse("e5"), Step("end")]
    assert (p.last_action, p.ply) == (Step("end"), 2) and view[-1] == p.last_action
    assert p.turn_ends() == [False, True]
    assert not hasattr(view, "append")
    with pytest.raises(TypeError):
        view[0] = Step("pass")  # type: ignore[index]
    assert p.undo() == Step("end")
    assert (p.last_action, p.ply, len(view)) == (Step.parse("e5"), 1, 1)
    copy = p.copy()
    copy.play("end")
    assert p.ply == 1 and copy.ply == 2 and copy.history is not p.history


def test_refused_steps_resolve_by_the_rules_and_undo_records_are_named():
    p = Position.from_text(DENDRIDS, Rules(board_side=5))
    a1, a3 = p.board.index("a1"), p.board.index("a3")

    def check(text: str) -> tuple[Step, bool]:
        return resolve(p, Step.parse(text), -1, lambda: None)

    # (the step to record, whether the turn stays open after it)
    assert check("a1-a3") == (Step.parse("a1-a3"), True)
    assert check("c3") == (Step.parse("c3"), False)
    assert check("pass") == (Step("pass"), False)
    with pytest.raises(IllegalAction, match="a turn starts with a plant"):
        check("end")
    with pytest.raises(IllegalAction, match="is not a dark dendrid"):
        check("i1-i3")
    p.play("a1-a3")
    record = p._undo_stack[-1]
    assert isinstance(record, _UndoRecord) and isinstance(record.state, _TurnState)
    assert record.changes == [(a3, 0), (a1, p.cells[a3])] and record.remembered is None
    assert (record.state.phase, record.state.to_move, record.state.over) == (0, 0, None)
    p.play("end")
    assert p._undo_stack[-1].remembered is not None  # a turn end adds an earlier position
    assert not hasattr(Step("end"), "is_follow_up")  # removed: nothing used it
