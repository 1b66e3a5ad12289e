"""Targeted Dendria rules checks found by manual mutation testing.

Each test pins one rule of ``shared/rules/dendria.md`` (or a ruling in ``docs/dendria.md``)
that a small deliberate mutation of the engine broke while every other Dendria test still
passed, or that only the randomised property tests noticed. The comment on each test names
the rule and the mutation it guards against.
"""

import pytest

from hexgames import IllegalAction
from hexgames.dendria import Position, Rules, Step


def make(side=7, to_move="dark", header="", rules=None, **pieces):
    """A position from keyword groups such as ``dark_seeds=["a1", "a2"]``."""
    lines = [f"Dendria v1: size={side} to-move={to_move} {header}".strip()]
    for name, cells in pieces.items():
        color, kind = name.split("_")
        if cells:
            lines.append(f"{color} {kind}: {' '.join(cells)}")
    return Position.from_text("\n".join(lines), rules or Rules(board_side=side))


def snapshot(p):
    return p.to_text(), p.key, p.history, p.turn_steps()


def assert_refused(position, step, fragment):
    before = snapshot(position)
    with pytest.raises(IllegalAction, match=fragment):
        position.play(step)
    assert snapshot(position) == before


def kinds(p, kind):
    return {str(s) for s in p.legal_actions() if s.kind == kind}


# ---------------------------------------------------------------- converting
def test_a_soil_fertilized_only_by_the_owner_blocks_conversion():
    # Rule: an enemy forest converts only when EVERY fertile soil is fertilized by one of
    # the mover's dendrids. The light forest a1 a2 has fertile soils a3 (seen by the dark
    # dendrid on a5) and b1 (seen only by the light dendrid on d1). The owner's dendrid on
    # b1 must not stand in for a missing dark one.
    # Mutations: the check or the generator counts the owner's dendrids as the mover's.
    p = make(light_trees=["a1", "a2"], dark_seeds=["b2", "b3"], dark_dendrids=["a5"],
             light_dendrids=["d1"])
    assert p.fertile_soils("a1") == ["a3", "b1"]
    assert "a3" in p.fertilized_cells("dark") and "b1" not in p.fertilized_cells("dark")
    assert "b1" in p.fertilized_cells("light") and "a3" not in p.fertilized_cells("light")
    assert p.convertible_forests() == []
    p.play("m7")
    assert "convert" not in {s.kind for s in p.legal_actions()}
    assert_refused(p, "=a1", "fertile soil b1 of the forest is fertilized by no dark dendrid")
    assert str(p.piece_at("a1")) == "light tree"


# ---------------------------------------------------------- dendrid moves
def test_a_continuation_may_pass_a_friendly_dendrid():
    # Rule: a continuation moves "under the same rules" as the first leg, so the moving
    # dendrid passes friendly dendrids. Dark dendrids on g7 and g10; g7 goes north to g8.
    # Mutation: continuations treat friendly dendrids as blockers.
    p = make(dark_dendrids=["g7", "g10"])
    p.play("g7-g8")
    assert p.dendrid_destinations("g8") == ["g9", "g11", "g12", "g13"]
    assert kinds(p, "continue") == {"-g9", "-g11", "-g12", "-g13"}
    p.play("-g11")
    p.play("end")
    assert str(p.piece_at("g11")) == str(p.piece_at("g10")) == "dark dendrid"
    assert p.piece_at("g7") is None and p.piece_at("g8") is None


# ------------------------------------------------------------ no repetition
def test_the_position_after_a_pass_may_not_be_repeated():
    # Rule: a turn may not end in the position (board + player to move) at the end of ANY
    # earlier turn -- including a turn that was a pass (ruling 2).
    # Turn 1 Dark passes: a1 + i5, Light to move. Turns 2-4 shuffle the dendrids; then
    # a2-a1 would recreate turn 1's position and nothing can follow it (a1 is a corner).
    # Mutation: positions after a pass are not remembered.
    p = make(5, dark_dendrids=["a1"], light_dendrids=["i5"])
    for turn in ("pass", "i5-i4", "a1-a2", "i4-i5"):
        p.play_turn(turn)
    assert Step.parse("a2-a1") not in p.legal_actions()
    assert "a1" not in p.dendrid_destinations("a2")
    assert {"a3", "a4", "a5"} <= set(p.dendrid_destinations("a2"))
    assert_refused(p, "a2-a1", "could not end without repeating an earlier position")


# ---------------------------------------------------------------------- end
def test_a_second_pass_that_is_also_the_2kth_quiet_turn_ends_as_both_passed():
    # Ruling 5: when a second consecutive pass is also the 2K-th turn without a plant,
    # the end reason is "both passed". Mutation: the quiet limit is tested first.
    p = Position.initial(Rules(quiet_limit=1))
    p.play_turn("pass")
    assert not p.is_over
    p.play_turn("pass")
    assert (p.quiet_turns, p.consecutive_passes) == (2, 2)
    assert p.is_over and p.end_reason == "both passed"
    q = make(header="quiet=2 passes=2", rules=Rules(quiet_limit=1), dark_trees=["a1"])
    assert q.is_over and q.end_reason == "both passed"


@pytest.mark.parametrize(("k", "quiet"), [(10, 20), (2, 4)])
def test_a_text_exactly_at_the_quiet_limit_reads_as_a_finished_game(k, quiet):
    # Rules section 4 (2K turns without a plant end the game) and ruling 9: a text with
    # quiet=2K is a finished game, not an error; only quiet > 2K is refused.
    # Mutation: quiet=2K refused when reading.
    p = make(header=f"quiet={quiet}", rules=Rules(quiet_limit=k), dark_trees=["a1"])
    assert p.is_over and p.end_reason == "quiet limit" and p.winner == "dark"
    assert p.legal_actions() == []
    with pytest.raises(ValueError, match="beyond the end of the game"):
        make(header=f"quiet={quiet + 1}", rules=Rules(quiet_limit=k), dark_trees=["a1"])


# ------------------------------------------------------------- follow-ups
def test_an_enemy_seed_that_may_sprout_is_offered_after_a_plant():
    # Rule: the follow-up ^x sprouts a seed of EITHER colour. The light seed on g7 has
    # six nourishers: light trees g8 h7 h6 g6, dark trees f6 f7 (4 against 2).
    # Mutation: legal_actions() lists only the mover's own seeds.
    p = make(light_seeds=["g7"], light_trees=["g8", "h7", "h6", "g6"],
             dark_trees=["f6", "f7"])
    assert p.sproutable_seeds() == ["g7"]
    p.play("a1")
    assert kinds(p, "sprout") == {"^g7"}
    p.play("^g7")
    assert str(p.piece_at("g7")) == "light dendrid"


def test_a_seedbed_without_fertile_soil_is_never_offered_to_grow():
    # Rule: a seedbed may grow only when it has AT LEAST ONE fertile soil ("every soil
    # fertilized" is vacuous without one). Dark seedbed a1 a2 is enclosed by b1 b2 b3 a3.
    # Mutation: the generator keeps seedbeds without fertile soil.
    p = make(dark_seeds=["a1", "a2"], light_trees=["b2", "b3"], light_seeds=["a3", "b1"],
             dark_dendrids=["a5", "d1"])
    assert p.fertile_soils("a1") == []
    assert p.growable_seedbeds() == []
    p.play("m7")
    assert kinds(p, "grow") == set()


def test_only_a_seed_may_sprout():
    # Rule: "a SEED may sprout". A light tree (or dendrid) whose lines would satisfy the
    # nourisher majority is not a seed. Mutation: the sprout check accepts any piece.
    p = make(light_trees=["g7", "g8", "h7", "h6", "g6"], dark_trees=["f6", "f7"],
             light_dendrids=["m7"])
    p.play("a1")
    assert kinds(p, "sprout") == set()
    assert_refused(p, "^g7", "there is no seed on g7")
    assert_refused(p, "^m7", "there is no seed on m7")
    assert_refused(p, "^b1", "there is no seed on b1")


# ------------------------------------------------ no repetition, finer points
def test_a_stop_is_offered_when_only_a_follow_up_makes_the_turn_finishable():
    # Rule: a dendrid stop is offered when SOME way of finishing the turn is legal -- a
    # follow-up counts, not only a continuation. Side 5: the dark seed on e1 may sprout
    # (nourishers: dark trees e2 f1, light tree d1). Light's i4-i5 recreates the start
    # position and i5 is a corner, but ^e1 then makes the position new.
    # Mutation: only continuations are searched when deciding whether a stop can finish.
    p = make(5, dark_dendrids=["a1"], light_dendrids=["i5"], dark_seeds=["e1"],
             dark_trees=["e2", "f1"], light_trees=["d1"])
    assert p.sproutable_seeds() == ["e1"]
    for turn in ("a1-a2", "i5-i4", "a2-a1"):
        p.play_turn(turn)
    assert Step.parse("i4-i5") in p.legal_actions()
    assert "i5" in p.dendrid_destinations("i4")
    p.play("i4-i5")
    assert [str(s) for s in p.legal_actions()] == ["^e1"]
    p.play_turn(["^e1"])
    assert str(p.piece_at("e1")) == "dark dendrid" and p.to_move == "dark"


def test_a_continuation_that_only_leads_into_a_repetition_is_not_offered():
    # Rule: a dendrid stop (continuations included) is offered only when the turn can
    # still finish. Side 5: after a1-a2, i5-i3, a2-a1, Light's i3-i4 may end, but -i5
    # would recreate the start position from a corner with nothing left to do.
    # Mutation: continuations are listed without the finishability filter.
    p = make(5, dark_dendrids=["a1"], light_dendrids=["i5"])
    for turn in ("a1-a2", "i5-i3", "a2-a1"):
        p.play_turn(turn)
    p.play("i3-i4")
    assert p.dendrid_destinations("i4") == []
    assert [str(s) for s in p.legal_actions()] == ["end"]
    assert_refused(p, "-i5", "could not end without repeating an earlier position")


def conversion_shuffle():
    """Side 5: the lone light tree a1 (only fertile soil a2, as b1 b2 hold light seeds).
    Dark's b5-b3 blocks the light dendrid on c4 from a2 and converts a1; Light steps
    c4-c5, Dark goes back b3-b5; Light is to move."""
    p = make(5, light_trees=["a1", "c3"], light_seeds=["b1", "b2"], light_dendrids=["c4"],
             dark_dendrids=["b5"])
    assert p.fertile_soils("a1") == ["a2"]
    for turn in ("b5-b3 =a1", "c4-c5", "b3-b5"):
        p.play_turn(turn)
    assert str(p.piece_at("a1")) == "dark tree"
    return p


def test_a_follow_up_that_only_leads_into_a_repetition_is_not_offered():
    # Rule: follow-ups too are offered only when the turn can still finish (ruling 1).
    # Light's c5-c4 may end the turn, but =a1 would recreate the start position, and the
    # light dendrid cannot go on (c3 is a tree), so =a1 is a dead end.
    # Mutation: follow-ups after a stop are listed without the finishability filter.
    p = conversion_shuffle()
    p.play("c5-c4")
    assert p.convertible_forests() == ["a1"]  # the board alone would allow it
    assert [str(s) for s in p.legal_actions()] == ["end"]
    assert_refused(p, "=a1", "could not end without repeating an earlier position")
    p.play("end")
    assert str(p.piece_at("a1")) == "dark tree"


# ---------------------------------------------------------------- whose move
def test_only_the_movers_dendrids_are_offered_moves():
    # Rule: "Move a dendrid: one of THEIR dendrids slides". At the start of Dark's turn
    # the light dendrid on m7 has no destinations and no legs.
    # Mutations: move generation or dendrid_destinations() accept either colour.
    p = make(dark_dendrids=["a1"], light_dendrids=["m7"])
    assert p.dendrid_destinations("m7") == []
    assert p.dendrid_destinations("a1") != []
    assert {s.origin for s in p.legal_actions() if s.kind == "leg"} == {"a1"}
    assert_refused(p, "m7-m6", "m7 \\(light dendrid\\) is not a dark dendrid")
    p.play_turn("a1-a2")
    assert p.dendrid_destinations("a2") == []
    assert {s.origin for s in p.legal_actions() if s.kind == "leg"} == {"m7"}


def test_each_player_plants_a_seed_of_their_own_colour():
    # Rule: "Plant: put a seed of THEIR colour". Mutation: every plant is a dark seed.
    p = Position.initial()
    p.play_turn("g7")
    p.play_turn("a1")
    assert str(p.piece_at("g7")) == "dark seed" and str(p.piece_at("a1")) == "light seed"
    q = make(to_move="light", dark_trees=["m7"])
    q.play_turn("a1")
    assert str(q.piece_at("a1")) == "light seed"
    # After a swap Light (now the first seat) still plants light seeds.
    r = Position.initial()
    r.play_turn("g7")
    r.play_turn("swap")
    r.play_turn("a1")
    assert str(r.piece_at("a1")) == "light seed" and r.seat_of("light") == 0


# ------------------------------------------------------- follow-ups, in order
def test_several_follow_ups_each_judged_on_the_board_as_it_now_stands():
    # Rule: after a plant the player may make ANY NUMBER of follow-ups, each checked
    # against the board as it now stands. The dark seedbed a1 a2 (fertile soils a3, b1)
    # has a3 fertilized by the dendrid on a5 but not b1; sprouting the dark seed on d1
    # (nourishers: a1, d2, e2 dark; e1 light) puts a dark dendrid that sees c1 and b1,
    # after which the seedbed may grow in the same turn.
    # Mutation: only one follow-up in a row is accepted.
    p = make(dark_seeds=["a1", "a2", "d1"], light_trees=["b2", "b3", "e1"],
             dark_trees=["d2", "e2"], dark_dendrids=["a5"])
    assert p.fertile_soils("a1") == ["a3", "b1"]
    assert p.sproutable_seeds() == ["a1", "d1"] and p.growable_seedbeds() == []
    p.play("m7")
    assert kinds(p, "sprout") == {"^a1", "^d1"} and kinds(p, "grow") == set()
    p.play("^d1")
    assert "b1" in p.fertilized_cells("dark")
    assert p.growable_seedbeds() == ["a1"] and kinds(p, "grow") == {"+a1"}
    p.play("+a2")
    p.play("end")
    assert [str(s) for s in p.history] == ["m7", "^d1", "+a1", "end"]
    assert str(p.piece_at("a1")) == str(p.piece_at("a2")) == "dark tree"
    assert str(p.piece_at("d1")) == "dark dendrid"


def test_follow_ups_may_come_after_a_continuation_stop():
    # Rule: follow-ups are allowed after EACH stop of a dendrid move, continuations
    # included. The dendrid from c5 stops on c3 (which sees neither a3 nor b1), continues
    # to c2 (which sees b1), and the seedbed a1 a2 grows there; then it goes on to c1.
    # Mutation: follow-ups accepted only after the first leg.
    p = make(dark_seeds=["a1", "a2"], light_trees=["b2", "b3"], dark_dendrids=["a5", "c5"])
    p.play("c5-c3")
    assert kinds(p, "grow") == set()
    p.play("-c2")
    assert kinds(p, "grow") == {"+a1"}
    p.play_turn(["+a1", "-c1"])
    assert [str(s) for s in p.history] == ["c5-c3", "-c2", "+a1", "-c1", "end"]
    assert str(p.piece_at("a2")) == "dark tree" and str(p.piece_at("c1")) == "dark dendrid"
