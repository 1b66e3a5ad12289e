"""Tests that kill the mutants the other Benediction tests let survive.

Each test pins one rule of ``shared/rules/benediction.md`` (or one ruling listed in
``docs/benediction.md``) that a small change of the engine could break without any
other test noticing (found by manual mutation testing). The engine has two roads to
every action: a listed action (an instance from ``legal_actions``) is played with the
"passed the wall" flag the generator computed, any other action is validated on its own;
where the two could disagree, both roads are checked.
"""

from __future__ import annotations

import pytest

from hexgames import IllegalAction
from hexgames.benediction import Action, Man, Position, Rules
from hexgames.benediction._tables import tables


def pos(*lines: str, header: str = "R-E2 B E8", **options: object) -> Position:
    """A position from text lines (after the header) and rules options."""
    return Position.from_text(
        "\n".join([f"Benediction v1: {header}", *lines]), Rules(**options)  # type: ignore[arg-type]
    )


def legal(p: Position) -> set[str]:
    return {str(a) for a in p.legal_actions()}


def play_listed(p: Position, text: str) -> None:
    """Play the instance ``legal_actions`` lists (the generator's road)."""
    listed = {str(a): a for a in p.legal_actions()}
    assert text in listed, f"{text} is not listed"
    p.play(listed[text])


def play_validated(p: Position, text: str) -> None:
    """Play a freshly parsed action (the validator's road)."""
    p.play(p.parse_action(text))


BOTH_ROADS = pytest.mark.parametrize("play", [play_listed, play_validated],
                                     ids=["listed", "validated"])


# ---------------------------------------------- 4. passing the wall is per path
# On column a (a1..a5) a Red stack going north from a4 reaches a5 in 1 step, then
# through the portal a1, a2, a3 (4 steps) and a5 again (6 steps). A sub-stack of k
# checkers passes the wall only if a path of at most k steps does.
def test_split_merge_passes_the_wall_only_if_the_sub_stacks_path_does():
    # kills: generator judging a split-merge's path by the whole stack (mp <= s, not mp <= k)
    # a4 (4 checkers) reaches a3 through the portal in 4 steps, but a sub-stack of 1 or
    # 3 checkers only by the 1-step path south: it gains no blessing, so a stack of more
    # than 2 without a blessed man may not be built (merge condition 3).
    p = pos("R:A3+4+++E2k", "B:E8k")
    assert "a4-1-a3" not in legal(p)
    assert "a4-3-a3" not in legal(p)
    assert "a4+a3" in legal(p)  # the whole stack (4 steps) passes the wall
    with pytest.raises(IllegalAction, match="needs a blessing"):
        play_validated(p, "a4-1-a3")


@BOTH_ROADS
def test_king_sub_stack_not_passing_the_wall_merges_into_an_unblessed_king(play):
    # kills: generator judging a split-merge's path by the whole stack (mp <= s, not mp <= k)
    p = pos("R:A3A4k+++", "B:E8k")
    play(p, "a4-1-a3")
    assert p.man_at("a3") == Man("red", 2, king=True)
    assert p.man_at("a4") == Man("red", 3, king=True)
    assert p.winner is None


@BOTH_ROADS
def test_king_sub_stack_through_the_portal_merges_into_a_blessed_king(play):
    # kills: split-merge blessed-king exception dropped or limited to one road
    # f8 north-east leaves the board from Blue's wall: the portal lands on a4 (1 step)
    p = pos("R:A4F8k+", "B:E8k")
    play(p, "f8-1-a4")
    assert p.man_at("a4") == Man("red", 2, king=True, blessed=True)
    assert (p.winner, p.win_reason) == ("red", "blessed king")


# ------------------------------------------------------------------ 5. actions
@BOTH_ROADS
def test_a_move_through_the_portal_in_exactly_its_size_in_steps_blesses(play):
    # kills: generator listing a move as passing the wall only when mp < s
    # the 1-checker man on f8 reaches a4 in its one and only step, through the portal;
    # the 2-stack on i5 reaches b2 in its 2 steps (portal to a1, then b2)
    p = pos("R:E2kF8I5+", "B:E8k")
    play(p, "f8a4")
    assert p.man_at("a4") == Man("red", 1, blessed=True, locked=True)
    play(p, "i5b2")  # the turn ends: locks clear
    assert p.man_at("b2") == Man("red", 2, blessed=True)


def test_merge_onto_an_enemy_man_is_refused():
    # kills: validator accepting a merge onto an enemy man
    p = pos("R:C3E2k", "B:C4E8k")
    assert "c3+c4" not in legal(p)
    with pytest.raises(IllegalAction, match="holds an enemy man"):
        p.play("c3+c4")
    assert p.man_at("c4") == Man("blue", 1)
    with pytest.raises(IllegalAction, match="it is empty"):
        p.play("c3+c5")


# ------------------------------------- 5. split-merge: the blessed-king exception
@BOTH_ROADS
def test_plain_sub_stack_through_the_portal_onto_a_king_gives_an_unblessed_king(play):
    # kills: split-merge result blessed whenever the path passed (not only for a king source)
    # Ruling 6 applies to split-merges too: the exception names a king *source* only.
    p = pos("R:A4kF8++", "B:E8k")
    play(p, "f8-1-a4")
    assert p.man_at("a4") == Man("red", 2, king=True)
    assert p.man_at("f8") == Man("red", 2)
    assert p.winner is None


@BOTH_ROADS
def test_plain_sub_stack_through_the_portal_onto_a_plain_man_is_not_blessed(play):
    # kills: split-merge result blessed whenever the path passed (not only for a king source)
    p = pos("R:A4F8++E2k", "B:E8k")
    play(p, "f8-1-a4")
    assert p.man_at("a4") == Man("red", 2)
    assert p.man_at("f8") == Man("red", 2)


# ---------------------------------------------------------- 6. order after an action
def test_a_king_capture_still_crowns_the_capturer_on_a_starting_point():
    # kills: crowning skipped after a king capture
    # Section 6: every step applies after a winning step, so the man that took the king
    # on Blue's starting point is crowned there.
    p = pos("R:E2kE7", "B:E8k")
    p.play("e7e8")
    assert (p.winner, p.win_reason) == ("red", "king captured")
    assert p.man_at("e8") == Man("red", 1, king=True, locked=True)


def test_pending_split_curses_land_after_a_blessed_king_win():
    # kills: pending curses skipped after a blessed-king win
    # c5 (3 checkers) splits 2 north-west to a5 (c5 -> b5 -> a5): a1..a5 becomes a bridge
    # with the king on a2, so Red wins; the part left on c5 is not in the bridge and its
    # pending curse still lands (section 6: every step applies after a win).
    p = pos("R:A12k34C5++", "B:E8k")
    p.play("c5-2-a5")
    assert (p.winner, p.win_reason) == ("red", "blessed king")
    assert p.man_at("a5") == Man("red", 2, blessed=True, locked=True)
    assert p.man_at("c5") == Man("red", 1, cursed=True)


def one_block_left(header: str, men: str, rules: Rules) -> tuple[str, str]:
    """Side-4 board text in which blocks cover the board so that exactly one more block
    can be placed (it is returned too); ``men`` are the R:/B: lines, whose points are
    kept free of blocks."""
    t = tables(4)
    taken = {t.board.index(x) for x in ("d2", "d6")}  # starting points: never blocks
    p = Position.from_text(f"Benediction v1: {header}\n{men}", rules)
    taken |= {t.board.index(x) for x in p.men()}
    chosen: list[int] = []
    for i in range(len(t.board.labels)):
        if i not in taken and not any(j in chosen for j in t.block_adjacent[i]):
            chosen.append(i)
    last = t.board.labels[chosen.pop()]
    blocks = "X:" + "".join(t.board.labels[i].upper() for i in chosen)
    return f"Benediction v1: {header}\n{men}\n{blocks}", last


def test_turn_cap_draw_comes_before_the_no_legal_action_loss():
    # kills: no-legal-action test run after the turn-cap draw (overriding it)
    # Blue has no men and Red fills Blue's zone: Blue can neither move nor drop. Red
    # places the last block, which ends the last allowed turn: the game is a draw,
    # although Blue would have no legal action (ruling 12).
    rules = Rules(board_side=4, max_turns=1)
    text, last = one_block_left("R=D2 B D6", "R:C56D57k6E56\nB:", rules)
    p = Position.from_text(text, rules)
    assert f"B{last}" in legal(p)
    p.play(f"B{last}")
    assert (p.winner, p.win_reason) == ("draw", "turn limit")
    # without the cap the same action makes Blue lose
    p = Position.from_text(text, Rules(board_side=4))
    p.play(f"B{last}")
    assert (p.winner, p.win_reason) == ("red", "no legal action")


def test_a_player_left_without_a_second_action_loses_in_mid_turn():
    # kills: no-legal-action test only at the start of a turn
    # Red has no men and Blue fills Red's zone. Red has two actions but, after placing
    # the last block, no legal action: Red loses at once (rule 6.6 applies to the player
    # due to act next, here Red again).
    rules = Rules(board_side=4)
    text, last = one_block_left("R-D2 B D6", "R:\nB:C12D123E12k", rules)
    p = Position.from_text(text, rules)
    assert legal(p) == {f"B{last}"}
    p.play(f"B{last}")
    assert (p.winner, p.win_reason) == ("blue", "no legal action")
    assert p.legal_actions() == [] and p.actions_left == 0


# ------------------------------------------------------------- 7. notation
def test_split_counts_of_two_digits_are_read_in_full():
    # kills: notation reading only the first digit of a split count
    # With max_stack=15 a split may take 10 or more checkers (section 2 option).
    assert Action.parse("C3-12-C4") == Action("split", "c3", "c4", 12)
    assert str(Action.parse("c3-12-c4")) == "c3-12-c4"
    p = pos("R:C3++++++++++++E2k", "B:E8k", max_stack=15)  # a 13-stack on c3
    p.play("c3-12-c4")
    # c4 is 1 step north, and 8 steps north through the portal (c7 -> c1): both paths
    # reach it, so the sub-stack passed the wall and is blessed; the part left is cursed
    assert p.man_at("c4") == Man("red", 12, blessed=True, locked=True)
    assert p.man_at("c3") == Man("red", 1, cursed=True)


# --------------------------------------------------------------- 8. board text
def test_a_man_read_as_locked_is_unlocked_when_the_turn_ends():
    # kills: board-text reader not registering 'l' men for unlocking at the turn end
    p = pos("R:C3lE2k", "B:E8k", header="R=E2 B E8")
    assert p.man_at("c3") == Man("red", 1, locked=True)
    assert "c3c4" not in legal(p)
    p.play("Ba1")
    assert p.man_at("c3") == Man("red", 1)
    p.play("Bi3")
    p.play("Bg3")
    assert "c3c4" in legal(p)
