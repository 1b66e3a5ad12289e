"""The conformance suite (pgx's ``api_test``, for hexgames): every registered game, in
every variant :func:`protocol_support.variants` derives from its options (all board
sides, both Benediction turn protocols, stack caps, supply, Dendria sides and the pie
rule...), must keep the whole :mod:`hexgames.game` protocol.

It uses nothing but the protocol, so a third game added to ``hexgames.game.REGISTRY``
is checked by it with no new test code.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

import numpy as np
import pytest

from hexgames import IllegalAction
from hexgames.ai import GreedyPlayer, MCTSPlayer, RandomPlayer, player
from hexgames.ai.knowledge import brute_force_winning_actions, knowledge
from hexgames.arena.replay import replay, usage_spec
from hexgames.game import (
    CommonTermination,
    Game,
    GameState,
    HistoryView,
    Outcome,
    outcome_from_tags,
    outcome_tags,
)
from protocol_support import (
    Variant,
    all_games,
    all_variants,
    assert_gestures_injective,
    board_part,
    find_class,
    parse_svg,
    play_out,
    positions_of_a_random_game,
    random_position,
    random_walk,
    snapshot,
    svg_classes,
)

VARIANTS = all_variants()
GAMES = all_games()


def variant_id(variant: Variant) -> str:
    return str(variant)


by_variant = pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
by_game = pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)


def seed_of(variant: Variant, salt: int = 0) -> int:
    return sum(map(ord, str(variant))) * 7919 + salt


# ---------------------------------------------------------------- the description
@by_game
def test_the_game_description_is_complete(game: Game) -> None:
    assert len(game.colors) == 2 and game.colors[0] != game.colors[1]
    for common in CommonTermination:
        assert game.termination(common.value).value == common.value
    defaults = {option.name: option.default for option in game.options}
    rules = game.make_rules(**defaults)
    assert game.make_rules(**game.rules_options(rules)) == rules
    position = game.new()
    assert isinstance(position, GameState)
    assert position.color_of_seat(0) == game.colors[0]
    assert {position.seat_of(color) for color in game.colors} == {0, 1}


@by_game
def test_option_validation_is_declared_once(game: Game) -> None:
    """``Option.validate`` and the rules refuse exactly the same single values."""
    for option in game.options:
        probes: list[object] = [None, True, "5", 2.5, -(10**9), 10**9]
        for bound in (option.minimum, option.maximum):
            if bound is not None:
                probes += [bound - 1, bound, bound + 1]
        for value in probes:
            try:
                option.validate(value)
                valid = True
            except ValueError as error:
                valid = False
                assert option.name in str(error)
            try:
                game.make_rules(**{option.name: value})
                accepted = True
            except ValueError as error:
                accepted = False
                # The rules say it in the words of the option's own declaration.
                assert f"option {option.name} must be {option.describe_valid()}" in str(error)
            assert valid == accepted, (option.name, value)
    with pytest.raises(ValueError, match="no_such_option"):
        game.make_rules(no_such_option=1)


# ---------------------------------------------------------------- make/unmake
@by_variant
def test_play_then_undo_restores_everything(variant: Variant) -> None:
    position = variant.new()
    rng = random.Random(seed_of(variant))
    seen = [snapshot(position) for position in random_walk(position, rng, 40)]
    for expected in reversed(seen[:-1]):
        position.undo()
        assert snapshot(position) == expected
    with pytest.raises(IndexError):
        position.undo()


@by_variant
def test_the_history_is_a_live_constant_time_view(variant: Variant) -> None:
    position = variant.new()
    history = position.history
    assert isinstance(history, HistoryView)
    assert position.ply == 0 and position.last_action is None and len(history) == 0
    rng = random.Random(seed_of(variant, 1))
    played = []
    for _ in random_walk(position, rng, 12):
        if position.ply > len(played):
            played.append(position.last_action)
        assert len(history) == position.ply == len(played)
        assert list(history) == played
        if played:
            assert history[-1] == position.last_action
    with pytest.raises(TypeError):
        history[0] = None  # type: ignore[index]


@by_variant
def test_every_legal_action_is_accepted_and_nothing_else(variant: Variant) -> None:
    """Every listed action plays and undoes; every other action of the fixed id space
    is refused with ``IllegalAction`` and leaves the position exactly as it was."""
    game = variant.game
    position = variant.new()
    rng = random.Random(seed_of(variant, 2))
    rules = position.rules
    ids = range(game.num_distinct_actions(rules))
    sample = rng.sample(ids, min(len(ids), 300))
    for probe in random_walk(position, rng, 8):
        before = snapshot(probe)
        legal = probe.legal_actions()
        assert len(set(legal)) == len(legal), "an action is listed twice"
        for action in legal:
            probe.play(action)
            assert probe.ply == before[4] + 1
            probe.undo()
        for text in (str(action) for action in legal):
            assert probe.parse_action(text) in legal
        legal_set = set(legal)
        for action_id in sample:
            try:
                action = game.action_from_id(probe, action_id)
            except IllegalAction:
                continue
            if action in legal_set:
                continue
            with pytest.raises(IllegalAction):
                probe.play(action)
            assert snapshot(probe) == before
        for junk in ("", "zz99", "a1a1a1a1", "end end", "9" * 5000):
            try:
                action = probe.parse_action(junk)
            except IllegalAction:
                continue
            if action not in legal_set:
                with pytest.raises(IllegalAction):
                    probe.play(action)
        assert snapshot(probe) == before


# ---------------------------------------------------------------- formats
@by_variant
def test_position_text_round_trips(variant: Variant) -> None:
    game = variant.game
    position = variant.new()
    rng = random.Random(seed_of(variant, 3))
    for probe in random_walk(position, rng, 30):
        text = probe.to_text()
        again = game.position_from_text(text, probe.rules)
        assert again.to_text() == text
        assert str(probe) == text
        if not probe.is_turn_start():
            continue  # mid-turn, the text is the board as it stands (not the turn so far)
        assert again.key == probe.key
        # The text has no history: rules that look back (Dendria's no-repetition) may
        # allow more from it, never less.
        assert set(map(str, again.legal_actions())) >= set(map(str, probe.legal_actions()))
        assert again.outcome() == probe.outcome()


@by_variant
def test_records_round_trip_with_their_outcome(variant: Variant) -> None:
    game = variant.game
    position = play_out(variant.new(), random.Random(seed_of(variant, 4)))
    record = game.write_record(position, {"Event": "conformance"})
    again, tags = game.read_record(record)
    assert [str(a) for a in again.history] == [str(a) for a in position.history]
    assert again.key == position.key
    assert tags["Event"] == "conformance"
    outcome = position.outcome()
    assert tags["Result"] == outcome_tags(outcome)["Result"]
    assert outcome_from_tags(game, again, tags) == outcome


@by_variant
def test_a_resignation_round_trips_through_the_record(variant: Variant) -> None:
    game = variant.game
    position = variant.new()
    for _ in random_walk(position, random.Random(seed_of(variant, 5)), 6):
        pass
    while position.is_over:  # a short random game may end by itself: resign before that
        position.undo()
    resigned = Outcome(
        termination=game.termination(CommonTermination.RESIGNATION.value),
        winner=position.color_of_seat(1),
        winner_seat=1,
    )
    record = game.write_record(position, outcome_tags(resigned))
    again, tags = game.read_record(record)
    assert outcome_from_tags(game, again, tags) == resigned
    forged = dict(tags, Termination="Red wins by a forged tag " * 100)
    assert outcome_from_tags(game, again, forged) is None


@by_variant
def test_the_outcome_agrees_with_the_position(variant: Variant) -> None:
    rng = random.Random(seed_of(variant, 6))
    position = variant.new()
    assert position.outcome() is None
    play_out(position, rng)
    outcome = position.outcome()
    if not position.is_over:
        assert outcome is None
        return
    assert outcome is not None
    assert isinstance(outcome.termination, variant.game.termination)
    assert outcome.returns() == position.returns()
    if position.winner == "draw":
        assert outcome.winner is None and outcome.winner_seat is None
    else:
        assert outcome.winner == position.winner
        assert outcome.winner_seat == position.seat_of(position.winner)
    assert position.legal_actions() == []
    # The heuristic is exact once the game is over.
    assert variant.game.heuristic(position) == position.returns()[0]
    position.undo()
    assert position.outcome() is None and not position.is_over


# ---------------------------------------------------------------- renderers, encodings
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@by_variant
def test_renderers_draw_every_position(variant: Variant) -> None:
    game = variant.game
    position = variant.new()
    labels = list(game.board(position.rules).labels) if game.board is not None else None
    for probe in random_walk(position, random.Random(seed_of(variant, 7)), 6):
        svg = game.render_svg(probe)
        root = parse_svg(svg)
        assert {"hexgames-board", f"hexgames-{game.name}"} <= svg_classes(root)
        assert root.get("data-game") == game.name and root.get("id") == f"{game.name}-board"
        assert root.get("data-to-move") == ("none" if probe.is_over else probe.to_move)
        hits = [node.get("data-point") for node in find_class(root, "hit")]
        if labels is not None:
            assert hits == labels, "one hit target per point, in label order"
        points = {node.get("data-point") for node in root.iter() if node.get("data-point")}
        for action in probe.legal_actions():
            for path in game.gesture(probe, action).paths:
                assert set(path) <= points, (action, path)
        assert game.render_svg(probe.copy()) == svg, "drawings are deterministic"
        text = game.render_text(probe)
        assert isinstance(text, str) and text.strip() and "\x1b[" not in text
        coloured = game.render_text(probe, color=True)
        assert "\x1b[" in coloured and ANSI.sub("", coloured) == text


@by_game
def test_the_svg_options_every_game_accepts(game: Game) -> None:
    """Size, highlights and selection, edge labels and overlays, the same in every game
    (the web board relies on them)."""
    position = random_position(game, game.make_rules(), seed=11, plies=6)
    root = parse_svg(game.render_svg(position, size=300))
    _, _, width, height = map(float, root.get("viewBox", "").split())
    assert float(root.get("width", "0")) == 300
    assert float(root.get("height", "0")) == pytest.approx(300 * height / width, abs=0.01)
    with pytest.raises(ValueError, match="size"):
        game.render_svg(position, size=0)
    assert game.board is not None
    geometry = game.board(position.rules)
    first, second, third = geometry.labels[:3]
    root = parse_svg(game.render_svg(position, [first, second], selected=[third]))
    hits = {h.get("data-point"): svg_classes(h) for h in find_class(root, "hit")}
    assert {p for p, c in hits.items() if "highlighted" in c} == {first, second}
    assert {p for p, c in hits.items() if "selected" in c} == {third}
    # Edge labels: a letter per column and a number per row, or none at all.
    width_in_points = 2 * geometry.side - 1
    expected = set("abcdefghijklmnopqrstuvwxyz"[:width_in_points])
    expected |= {str(n) for n in range(1, width_in_points + 1)}
    assert {t.text for t in find_class(parse_svg(game.render_svg(position)), "edge-label")} == (
        expected
    )
    assert expected <= set(board_part(game.render_text(position)).split())
    assert not find_class(parse_svg(game.render_svg(position, show_labels=False)), "edge-label")
    # Overlays: none is the plain drawing; the declared ones draw; others are named.
    assert game.render_svg(position, overlays=()) == game.render_svg(position)
    for overlay in game.overlays:
        parse_svg(game.render_svg(position, overlays=(overlay,)))
    with pytest.raises(ValueError, match="no-such-overlay"):
        game.render_svg(position, overlays=("no-such-overlay",))


@by_variant
def test_every_legal_action_has_its_own_gesture(variant: Variant) -> None:
    position = variant.new()
    for probe in random_walk(position, random.Random(seed_of(variant, 10)), 30):
        assert_gestures_injective(variant.game, probe)


@by_variant
def test_action_ids_and_observations_round_trip(variant: Variant) -> None:
    game = variant.game
    position = variant.new()
    size = game.num_distinct_actions(position.rules)
    shape = tuple(game.observation_shape(position.rules))
    for probe in positions_of_a_random_game(game, position.rules, seed_of(variant, 8)):
        legal = probe.legal_actions()
        ids = [game.action_to_id(probe, action) for action in legal]
        assert len(set(ids)) == len(ids), "two legal actions share an id"
        assert all(0 <= action_id < size for action_id in ids)
        assert [game.action_from_id(probe, action_id) for action_id in ids] == legal
        assert [game.action_to_id(probe, str(action)) for action in legal] == ids
        if probe.ply % 10:
            continue
        for seat in (0, 1):
            planes = game.observation(probe, seat)
            assert planes.shape == shape and planes.dtype == np.float32
            assert planes.min() >= 0 and planes.max() <= 1
    assert game.max_game_length(position.rules) >= 1


@by_game
@pytest.mark.parametrize("bad", [-1, "total", True, 1.0, "3", None])
def test_malformed_action_ids_are_refused(game: Game, bad: object) -> None:
    position = game.new()
    if bad == "total":
        bad = game.num_distinct_actions(position.rules)
    with pytest.raises(IllegalAction):
        game.action_from_id(position, bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------- AI knowledge
def positions_near_the_end(variant: Variant, games: int) -> Sequence[GameState]:
    """Positions from the last actions of random games, where wins are on offer."""
    found: list[GameState] = []
    for number in range(games):
        position = play_out(variant.new(), random.Random(seed_of(variant, 100 + number)))
        for _ in range(min(6, position.ply)):
            position.undo()
            found.append(position.copy())
    return found


@by_variant
def test_the_ai_hooks_agree_with_brute_force(variant: Variant) -> None:
    hooks = knowledge(variant.game)
    rng = random.Random(seed_of(variant, 9))
    early = [p.copy() for p in random_walk(variant.new(), rng, 10)]
    for position in [*early, *positions_near_the_end(variant, 2)]:
        if position.is_over:
            continue
        before = snapshot(position)
        expected = set(map(str, brute_force_winning_actions(position)))
        assert set(map(str, hooks.winning_actions(position))) == expected
        legal = position.legal_actions()
        assert hooks.random_action(position, rng) in legal
        if hooks.action_priors is not None:
            assert len(hooks.action_priors(position, legal)) == len(legal)
        if not hooks.turn_continues(position):
            for action in legal:
                position.play(action)
                assert position.is_over or position.is_turn_start(), action
                position.undo()
        if not hooks.may_win_this_turn(position):
            assert not expected
        value = hooks.heuristic(position)
        assert -1.0 <= value <= 1.0
        assert snapshot(position) == before


# ---------------------------------------------------------------- players
@by_game
@pytest.mark.parametrize("plies", [0, 25, 80])
def test_players_choose_legal_actions_and_leave_the_position_alone(
    game: Game, plies: int
) -> None:
    for seed in range(3):
        position = random_position(game, game.make_rules(), seed=seed, plies=plies)
        if position.is_over:
            continue
        before = snapshot(position)
        bots = (MCTSPlayer(game, iterations=15, seed=seed), GreedyPlayer(seed),
                RandomPlayer(seed))
        for bot in bots:
            assert bot.choose(position) in position.legal_actions()
            assert snapshot(position) == before


@by_game
def test_levels_play_both_seats_and_the_tree_is_reused(game: Game) -> None:
    position = game.new()
    bots = [player(game, 1, seed=1), player(game.name, 2, seed=2)]
    while not position.is_over and position.ply < 20:
        action = bots[position.current_seat].choose(position)
        assert action in position.legal_actions()
        position.play(action)
    bot = MCTSPlayer(game, iterations=100, seed=3)
    position = game.new()
    reused = []
    for _ in range(8):
        if position.is_over:
            break
        position.play(bot.choose(position))
        reused.append(bot.last_stats.get("reused", 0))
    assert max(reused) > 0, "the search tree follows the game"


# ---------------------------------------------------------------- declared knowledge
@by_game
def test_declared_game_knowledge_is_consistent(game: Game) -> None:
    """``Game.board``, ``symmetries``, ``view_spec`` and ``rule_usage``: whatever a game
    declares must fit its own options, encoding and records."""
    rules = game.make_rules()
    position = game.new_position(rules)
    if game.board is not None:
        geometry = game.board(rules)
        planes = game.observation(position, 0)
        assert planes.shape[1:] == (2 * geometry.side - 1, 2 * geometry.side - 1)
    if game.symmetries:
        assert game.board is not None, "symmetries need the board"
        assert game.symmetries[0].name == "identity"
        assert len({s.name for s in game.symmetries}) == len(game.symmetries)
    if game.view_spec is not None:
        spec = game.view_spec
        count = planes.shape[0]
        used = [plane for pair in spec.color_pairs for plane in pair]
        assert len(set(used)) == len(used)
        assert all(0 <= plane < count for plane in (*used, spec.first_to_move, spec.on_board))
        assert spec.on_board not in used and spec.first_to_move not in used
        on_board = planes[spec.on_board]
        if game.board is not None:
            assert on_board.sum() == game.board(rules).size
    events = usage_spec(game).option_events
    assert set(events) <= {option.name for option in game.options}
    finished = play_out(game.new_position(rules), random.Random(5))
    seen = replay(game, game.write_record(finished, {}))
    assert sum(seen.usage.values()) >= finished.ply
