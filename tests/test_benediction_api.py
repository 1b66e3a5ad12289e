"""The public API engines and tools build on: history view, last action and ply,
``outcome()`` with the ``Termination`` enum, the read-only board arrays, ``str()``,
named undo records, and the module boundaries (no privates read outside the engine,
no import cycle)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

import hexgames.benediction as package
from hexgames.benediction import GAME, Man, Position, Rules, Termination
from hexgames.benediction.position import (
    BLESSED,
    BLOCK,
    BLUE,
    CURSED,
    EMPTY,
    KING,
    LOCKED,
    RED,
)
from hexgames.game import CommonTermination, GameState, HistoryView, Outcome

PACKAGE = Path(package.__file__).parent


# ------------------------------------------------------------------------- history
def test_history_is_a_live_read_only_view_not_a_copy():
    p = Position.initial()
    view = p.history
    assert isinstance(view, HistoryView) and view == [] and len(view) == 0
    p.play("e3e4")
    p.play("e7e6")
    assert view == [p.parse_action("e3e4"), p.parse_action("e7e6")]  # follows play
    assert len(view) == 2 and view[-1] == p.parse_action("e7e6")
    assert not hasattr(view, "append") and not hasattr(view, "pop")
    with pytest.raises(TypeError):
        view[0] = p.parse_action("e6e5")  # type: ignore[index]
    p.undo()
    assert view == [p.parse_action("e3e4")]  # follows undo
    snapshot = list(p.history)
    p.play("e7e6")
    assert snapshot == [p.parse_action("e3e4")]


def test_last_action_and_ply_follow_play_and_undo():
    p = Position.initial()
    assert (p.last_action, p.ply) == (None, 0)
    p.play("e3e4")
    assert (p.last_action, p.ply) == (p.parse_action("e3e4"), 1)
    p.play("Bc3")
    assert (str(p.last_action), p.ply) == ("Bc3", 2)
    assert p.undo() == p.parse_action("Bc3")  # undo returns what it took back
    assert (str(p.last_action), p.ply) == ("e3e4", 1)
    p.undo()
    assert (p.last_action, p.ply) == (None, 0)


def test_a_copy_has_its_own_history():
    p = Position.initial()
    p.play("e3e4")
    q = p.copy()
    q.play("e7e6")
    assert (p.ply, q.ply) == (1, 2)
    assert p.history == [p.parse_action("e3e4")]
    q.undo()
    q.undo()
    assert q.ply == 0 and p.ply == 1


def test_positions_satisfy_the_game_state_protocol():
    assert isinstance(Position.initial(), GameState)


# ------------------------------------------------------------------------- outcome
def test_termination_holds_the_reason_words_and_the_common_members():
    assert [t.value for t in Termination] == [
        "king captured", "blessed king", "no legal action", "turn limit",
        "resignation", "timeout", "opponent left",
    ]
    for common in CommonTermination:
        assert Termination(common.value).value == common.value
    assert GAME.termination is Termination
    assert package.Termination is Termination


def test_outcome_is_none_while_the_game_goes_on_and_says_how_it_ended():
    p = Position.from_text("Benediction v1: R-E2 B E8\nR:E2kE7\nB:E8k")
    assert p.outcome() is None and p.win_reason is None
    p.play("e7e8")
    assert p.outcome() == Outcome(Termination.KING_CAPTURED, "red", 0)
    assert p.outcome().describe() == "Red wins (king captured)"  # type: ignore[union-attr]
    assert p.outcome().returns() == p.returns()  # type: ignore[union-attr]
    assert type(p.win_reason) is str and p.win_reason == "king captured"
    p.undo()
    assert p.outcome() is None


def test_a_draw_by_the_turn_cap_has_no_winner_seat():
    p = Position.initial(Rules(max_turns=1))
    p.play("e3e4")
    outcome = p.outcome()
    assert outcome == Outcome(Termination.TURN_LIMIT, None, None)
    assert outcome is not None and outcome.is_draw and outcome.result() == "1/2-1/2"


@pytest.mark.parametrize("seed", range(30))
def test_outcome_agrees_with_winner_and_win_reason_in_random_games(seed):
    rng = random.Random(seed)
    p = Position.initial(Rules(max_turns=60))
    while not p.is_over:
        actions = p.legal_actions()
        p.play(actions[rng.randrange(len(actions))])
    outcome = p.outcome()
    assert outcome is not None
    assert outcome.termination.value == p.win_reason
    assert (outcome.winner or "draw") == p.winner
    assert outcome.returns() == p.returns()
    assert Position.from_text(p.to_text()).outcome() == outcome


def test_a_lost_position_read_from_text_has_its_outcome():
    stuck = Position.from_text("Benediction v1: RWE2 B E8\nR:E2k\nB:E8k")
    assert stuck.outcome() == Outcome(Termination.NO_LEGAL_ACTION, "red", 0)
    drawn = Position.from_text("Benediction v1: R E2 B E8\nR:E2k\nB:E8k")
    assert drawn.outcome() == Outcome(Termination.TURN_LIMIT, None, None)


# ----------------------------------------------------------------- public board view
def test_the_board_arrays_are_live_views_of_every_point():
    p = Position.from_text("Benediction v1: R-E2 B E8\nR:E2kC3b++F4c\nB:E8k\nX:A1")
    owners, sizes, flags = p.owners, p.sizes, p.flags
    n = len(p.board.labels)
    assert len(owners) == len(sizes) == len(flags) == n
    for i, label in enumerate(p.board.labels):
        man = p.man_at(label)
        if man is None:
            assert owners[i] in (EMPTY, BLOCK) and sizes[i] == 0 and flags[i] == 0
            continue
        assert owners[i] == (RED if man.color == "red" else BLUE)
        assert sizes[i] == man.size
        bits = (KING * man.king | BLESSED * man.blessed | CURSED * man.cursed
                | LOCKED * man.locked)
        assert flags[i] == bits
    assert {p.board.labels[i] for i in range(n) if owners[i] == BLOCK} == p.blocks
    c3 = p.board.index("c3")
    p.play("c3c4")
    assert owners[c3] == EMPTY  # the same view shows the new position
    assert p.checker_counts[RED] == 5 and p.to_move_code == RED
    assert p.tables.index["c3"] == c3


def test_start_text_is_the_text_a_position_was_read_from():
    assert Position.initial().start_text is None
    text = "Benediction v1: R-E2 B E8\nR:E2k7\nB:E8k"
    p = Position.from_text(text)
    p.play("e7e6")
    assert p.start_text == text
    # written in the canonical form, whatever form was read
    assert Position.from_text("|Benediction v1: R-E2 B E8|\nR:E2kE7\nB:E8k").start_text == text


def test_str_is_the_board_text():
    p = Position.initial()
    p.play("e3e4")
    assert str(p) == p.to_text()
    assert Position.from_text(str(p)).key == p.key


def test_man_values_are_unchanged():
    assert Man("red", 2, king=True) == Man("red", 2, True, False, False, False)


# ----------------------------------------------------------------- module boundaries
def _modules() -> dict[str, ast.Module]:
    return {path.name: ast.parse(path.read_text()) for path in PACKAGE.glob("*.py")}


def test_only_the_engine_reads_a_positions_private_attributes():
    private_of_position = {
        "_owner", "_size", "_flags", "_to_move", "_tables", "_count", "_bk", "_starts",
        "_zone", "_start_text", "_winner", "_reason", "_al", "_locked", "_history",
        "_undo", "_put", "_set", "_place_block", "_update_skey", "_lose_if_stuck", "_near",
    }
    for name, tree in _modules().items():
        if name == "position.py":
            continue
        used = {
            node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in private_of_position
        }
        assert not used, f"{name} reads {sorted(used)} of a position"


def test_the_text_format_does_not_import_the_engine():
    imported: dict[str, set[str]] = {}
    for name, tree in _modules().items():
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        imported[name] = names
    assert not any("position" in module for module in imported["textformat.py"])
    assert not any(
        module.endswith(("._put", "._place_block", "._update_skey", "._lose_if_stuck"))
        for names in imported.values() for module in names
    )
