"""Designer-report metrics (issue 15, items 10-14): draws as half, capped games, real
decisions, rule usage by replay, Ludii-style metrics, skill trace, bins, CSV, --help."""

from __future__ import annotations

import csv
import itertools
from collections import Counter

import pytest

from hexgames.ai.levels import from_spec
from hexgames.arena.match import CAPPED, GameResult, play_game
from hexgames.arena.replay import option_binding, replay, usage_spec
from hexgames.arena.report import ludii
from hexgames.arena.report.cli import options_help
from hexgames.arena.report.markdown import integer_bins, write_report
from hexgames.arena.report.stats import (
    analyse,
    findings,
    skill_trend,
    skill_verdict,
    wilson_score,
)
from hexgames.cli import main
from hexgames.game import Game, game_names, get_game


def result(index, winner, turns=10, reason="x", branching=()) -> GameResult:
    returns = {0: (1.0, -1.0), 1: (-1.0, 1.0), None: (0.0, 0.0)}[winner]
    return GameResult(index, ("p", "p"), returns, winner, turns, 2 * turns, reason, 0.1,
                      branching=list(branching))


def played(name: str, options: dict, seeds, spec: str = "random", cap=None) -> list:
    game = get_game(name)
    rules = game.make_rules(**options)
    out = []
    for seed in seeds:
        players = [from_spec(game, spec, seed=seed * 2 + s) for s in (0, 1)]
        out.append(play_game(game, rules, players, index=seed, max_actions=cap,
                             track_branching=True))
    return out


# ------------------------------------------------------------ 10. draws and the cap
def test_draws_count_half_and_decisive_games_are_reported_apart() -> None:
    results = [result(0, 0), result(1, None, reason=CAPPED), result(2, None, reason=CAPPED),
               result(3, 1), result(4, 0)]
    balance = analyse(results)
    assert balance.seat0_score == pytest.approx((2 + 1) / 5)
    assert balance.seat0_score_interval == wilson_score(3.0, 5)
    assert balance.decisive == 3 and balance.decisive_seat0_rate == pytest.approx(2 / 3)
    assert balance.capped == 2 and balance.cap_rate == pytest.approx(0.4)
    assert balance.decisiveness == pytest.approx(0.6)


def test_all_capped_run_warns_loudly_and_claims_no_seat_is_better(tmp_path) -> None:
    balance = analyse([result(i, None, reason=CAPPED) for i in range(6)])
    assert balance.seat0_score == 0.5 and balance.decisive_seat0_rate is None
    write_report(tmp_path, balance, title="T", options={}, player="L1")
    text = (tmp_path / "report.md").read_text()
    assert "**WARNING: 6 of 6 games (100%) hit the action cap" in text
    assert "No decisive game" in text and "score rate 50.0%" in text
    assert "0.0%" not in text.split("## Results")[1].split("##")[0].split("score rate")[0]


# ------------------------------------------------------- 11. real decisions only
def test_branching_leaves_out_forced_steps() -> None:
    branching = [(1, 1), (1, 9), (2, 1), (2, 11), (3, 1), (3, 5)]
    balance = analyse([result(0, 0, turns=3, branching=branching)])
    assert balance.forced_decisions == 3 and balance.decisions == 6
    assert balance.real_branching_by_phase == {"opening": 9, "middle": 11, "end": 5}
    assert balance.branching_by_phase == {"opening": 5, "middle": 6, "end": 3}


# ----------------------------------------------------------- 12. rule usage
def test_replay_counts_every_action_kind_and_game_events() -> None:
    results = played("dendria", {"board_side": 4}, range(3))
    for r in results:
        seen = replay(get_game("dendria"), r.record)
        assert sum(seen.usage[k] for k in ("plant", "leg", "continue", "sprout", "grow",
                                            "convert", "end", "pass", "swap")) == r.actions
        assert seen.usage["quiet-limit end"] == (r.end_reason == "quiet limit")


def test_benediction_usage_sees_portal_passes_curses_and_stacks() -> None:
    game = get_game("benediction")
    results = played("benediction", {"board_side": 4}, range(6))
    balance = analyse(results, game, {"board_side": 4})
    kinds = {"drop", "block", "move", "merge", "split"}
    assert kinds <= set(balance.usage)
    assert sum(balance.usage[k][1] for k in kinds) == sum(r.actions for r in results)
    assert balance.peaks["largest stack"] >= 2
    assert "curse" in balance.usage  # random splits onto empty points curse


def test_an_option_that_never_comes_into_play_is_flagged(tmp_path) -> None:
    game = get_game("benediction")
    options = {"board_side": 4, "max_stack": 15, "supply": 1}
    results = played("benediction", options, range(4))
    balance = analyse(results, game, options)
    games, differing, decisions = balance.binding["max_stack=15"]
    assert games == differing == 0 and decisions == sum(r.actions for r in results)
    assert balance.binding["supply=1"][0] > 0  # one checker in reserve: drops run out
    assert balance.usage["supply exhausted"][0] > 0
    write_report(tmp_path, balance, title="T", options=options, player="random")
    text = (tmp_path / "report.md").read_text()
    assert "**WARNING: option `max_stack=15` never came into play**" in text
    assert "WARNING: option `supply=1`" not in text


def test_option_binding_compares_legal_actions_with_the_default() -> None:
    game = get_game("dendria")
    position = game.new(board_side=3)
    for step in ("b2", "end", "swap", "c3", "end"):
        position.play(step)
    record = game.write_record(position, {})
    # Without the pie rule the swap is illegal: the game differs from the swap on.
    assert option_binding(game, record, "pie", False) == (3, 5)
    assert option_binding(game, record, "quiet_limit", 10)[0] == 0


def test_options_at_their_default_report_their_rule_events() -> None:
    game = get_game("dendria")
    results = played("dendria", {"board_side": 3}, range(6))
    balance = analyse(results, game, {"board_side": 3})
    swaps = sum(replay(game, r.record).usage["swap"] > 0 for r in results)
    if swaps:
        assert ("pie=true", "swap", swaps) in balance.used_options
    else:
        assert ("pie=true", "swap") in balance.unused_options
    assert list(balance.binding) == []  # a board of another size: no usage line


@pytest.mark.parametrize(
    ("text", "action", "events"),
    [
        ("R:A123B4D2k", "b4a4", ["bridge"]),  # a1..a4 join Red's wall to Blue's
        ("R:A4D2k", "a4a1", ["portal pass"]),  # north through Blue's wall onto a1
        ("R:A1b++++++B1D2k", "b1+a1", ["stack built at the limit"]),
    ],
)
def test_benediction_events_are_recognised(text: str, action: str, events: list) -> None:
    game = get_game("benediction")
    position = game.position_from_text(
        f"Benediction v1: R-D2 B D6\n{text}\nB:D6k", game.make_rules(board_side=4)
    )
    spec = usage_spec(game)
    move = position.parse_action(action)
    assert move in position.legal_actions()
    token = spec.before(position, move)
    position.play(move)
    assert list(spec.after(position, move, token)) == events


def test_usage_specs_only_name_events_their_options_exist_for() -> None:
    for name in game_names():
        game = get_game(name)
        names = {option.name for option in game.options}
        assert set(usage_spec(game).option_events) <= names


# ------------------------------------------------- 13. Ludii-style metrics, skill
def test_ludii_metrics_lead_changes_drama_colours_and_swaps() -> None:
    game = get_game("dendria")
    results = played("dendria", {"board_side": 4}, range(8))
    balance = analyse(results, game, {"board_side": 4})
    assert len(balance.lead_changes) == 8 and all(c >= 0 for c in balance.lead_changes)
    decisive = [r for r in results if r.winning_seat is not None]
    assert len(balance.drama) == len(decisive)
    assert all(0.0 <= d <= 1.0 for d in balance.drama)
    assert sum(balance.color_wins.values()) == len(decisive)
    swapped = sum(replay(game, r.record).swapped for r in results)
    assert balance.swaps == swapped


def test_a_swapped_game_is_won_by_the_colour_the_winner_held() -> None:
    game = get_game("dendria")
    position = game.new(board_side=3)
    for step in ("b2", "end", "swap", "c3", "end"):
        position.play(step)
    seen = replay(game, game.write_record(position, {}))
    assert seen.swapped and seen.usage["swap"] == 1


def test_report_cli_skill_trace_csv_and_help(tmp_path, capsys) -> None:
    out = tmp_path / "r"
    code = main(["report", "dendria", "--set", "board_side=3", "--games", "4", "--player", "random",
                 "--trace", "greedy", "--jobs", "1", "--out", str(out)])
    assert code == 0
    text = (out / "report.md").read_text()
    assert "## Skill trace" in text and "| `greedy` | 4 |" in text and "| `random` | 4 |" in text
    assert "## Rule usage" in text and "## Game quality" in text
    with (out / "games.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 and {"turns", "end_reason", "lead_changes", "used_plant"} <= set(rows[0])
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    help_text = capsys.readouterr().out
    assert "board_side: an integer from 4 to 7 (default 5)" in help_text
    assert "supply: an integer from 1 to 2000, or none (off) (default off)" in help_text
    assert "pie: true or false (default true)" in help_text
    assert options_help().count("\n    ") == sum(
        len(get_game(n).options) for n in ("benediction", "dendria"))


# ------------------------------------------------------------- 14. histograms
def test_integer_bins_cover_whole_numbers_only() -> None:
    edges = integer_bins([3, 4, 4, 9])
    assert edges == [2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5]
    wide = integer_bins(list(range(0, 301)), most=30)
    assert {b - a for a, b in itertools.pairwise(wide)} == {11}  # ceil(301 / 30)
    assert all(edge % 1 == 0.5 for edge in wide) and len(wide) - 1 <= 30
    assert wide[0] < 0 < 300 < wide[-1]


def test_report_cli_warns_about_an_option_that_never_bound(tmp_path, capsys) -> None:
    code = main(["report", "benediction", "--set", "board_side=4", "--set", "max_stack=15",
                 "--games", "3", "--player", "random", "--jobs", "1",
                 "--out", str(tmp_path / "r")])
    assert code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "option max_stack=15 never came into play" in out


# ------------------------------------ issue 30: board metrics, players, games/s
def benediction_back_and_forth() -> tuple[Game, str]:
    """Four men step out and back: the fifth turn starts where the first did."""
    game = get_game("benediction")
    position = game.new(board_side=4, first_turn_actions=2)
    for step in ("c2c3", "e2e3", "c5b5", "e5f5", "c3c2", "e3e2", "b5c5", "f5e5", "c2c3"):
        position.play(step)
    return game, game.write_record(position, {})


def test_replay_measures_coverage_pieces_and_repetition() -> None:
    game, record = benediction_back_and_forth()
    seen = replay(game, record)
    assert seen.turns == 5 and seen.repeats == 1 and seen.repetition == pytest.approx(0.2)
    assert (seen.covered, seen.cells) == (14 + 4, 37)  # the 14 men's points and 4 steps
    assert seen.pieces == [{"red": 7, "blue": 7}] * 6
    dendria = get_game("dendria")
    position = dendria.new(board_side=3)
    for step in ("b2", "end", "swap", "c3", "end"):
        position.play(step)
    seen = replay(dendria, dendria.write_record(position, {}))
    assert (seen.covered, seen.cells, seen.repeats) == (2, 19, 0)
    assert seen.pieces == [{}, {"dark": 1}, {"dark": 1}, {"dark": 1, "light": 1}]


def test_the_report_shows_board_coverage_pieces_and_repetition(tmp_path) -> None:
    game, record = benediction_back_and_forth()
    result = GameResult(0, ("p", "p"), (0.0, 0.0), None, 5, 9, CAPPED, 0.1, record=record)
    balance = analyse([result], game, {"board_side": 4, "first_turn_actions": 2})
    assert balance.coverage == [pytest.approx(18 / 37)] and balance.repetition == [0.2]
    assert balance.final_pieces == {"red": [7], "blue": [7]}
    assert balance.pieces_by_turn == {color: {t: 7.0 for t in range(1, 6)}
                                      for color in ("red", "blue")}
    paths = write_report(tmp_path, balance, title="T", options={}, player="p")
    text = (tmp_path / "report.md").read_text()
    assert "## Board and pieces" in text
    assert "a game): mean 48.6%, median 48.6%, min 48.6%, max 48.6%" in text
    assert "Red pieces on the board at the end: mean 7.0" in text
    assert "Repetition (turns that start from a position already seen in the same game): " \
        "20.0% of turns on average; 1 of 1 games repeat a position" in text
    assert tmp_path / "pieces.png" in paths and "![pieces on the board by turn]" in text
    with (tmp_path / "games.csv").open() as handle:
        row = next(csv.DictReader(handle))
    assert (row["repeated_turns"], row["coverage"], row["pieces_red"]) == ("1", "0.486", "7")


def test_report_counts_every_game_played_and_says_which_players_made_it(tmp_path,
                                                                      capsys) -> None:
    out = tmp_path / "r"
    code = main(["report", "dendria", "--set", "board_side=3", "--games", "3", "--player",
                 "random", "--trace", "greedy,L1", "--jobs", "1", "--out", str(out)])
    assert code == 0
    console = " ".join(capsys.readouterr().out.split())
    assert "9 games in" in console  # 3 self-play and 3 for each traced player
    text = (out / "report.md").read_text()
    assert "- Played 9 games in" in text
    assert "- Balance figures: self-play of `random` in both seats, 3 games" in text
    assert "- Skill trace: also `greedy` (3 games), `L1` (3 games) in both seats" in text
    with (out / "games.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3  # the balance games only
    for row in rows:  # one scoring convention: 1 / 0.5 / 0, as the old column here
        assert row["seat0_score"] == row["seat0_result"]
        assert row["seat0_score"] == {"0": "1", "1": "0", "": "0.5"}[row["winning_seat"]]


def test_a_report_has_a_skill_trace_unless_asked_not_to(tmp_path, capsys) -> None:
    command = ["report", "dendria", "--set", "board_side=3", "--games", "2", "--player",
               "random", "--jobs", "1"]
    assert main([*command, "--out", str(tmp_path / "auto")]) == 0
    text = (tmp_path / "auto" / "report.md").read_text()
    assert "## Skill trace" in text and "| `L1` | 2 |" in text and "| `random` | 2 |" in text
    assert main([*command, "--trace", "none", "--out", str(tmp_path / "none")]) == 0
    text = (tmp_path / "none" / "report.md").read_text()
    assert "## Skill trace" not in text and "- No skill trace: every figure comes" in text
    assert "4 games in" in capsys.readouterr().out.replace("\n", " ")


def test_the_skill_verdict_reads_the_trend_from_weak_to_strong() -> None:
    def line(spec, score, low, high):
        return (spec, 100, score, (low, high), 0)

    grows = skill_verdict([line("L3", 0.70, 0.61, 0.78), line("L1", 0.52, 0.42, 0.60)])
    assert grows is not None and "from 52.0% (`L1`) to 70.0% (`L3`)" in grows
    assert "grows with strength" in grows and "weakest to the strongest" in grows
    shrinks = skill_verdict([line("random", 0.30, 0.22, 0.39), line("L2", 0.50, 0.40, 0.60)])
    assert shrinks is not None and "shrinks with strength" in shrinks
    flat = skill_verdict([line("pkg:a", 0.50, 0.40, 0.60), line("pkg:b", 0.55, 0.45, 0.64)])
    assert flat is not None and "no trend" in flat and "in the order given" in flat.lower()
    assert skill_verdict([line("L1", 0.5, 0.4, 0.6)]) is None
    assert skill_trend([line("L3", 0.70, 0.61, 0.78), line("L1", 0.52, 0.42, 0.60)]) == (
        "the bias grows with strength: the game's")


# ------------------------------------------- issue 41 row 9: options that change the board
def test_board_size_options_are_declared_and_get_no_usage_line(tmp_path) -> None:
    for name in game_names():
        changing = [o.name for o in get_game(name).options if o.changes_board]
        assert changing == ["board_side"], name
    game = get_game("benediction")
    options = {"board_side": 4, "max_stack": 15}
    results = played("benediction", options, range(3))
    balance = analyse(results, game, options)
    assert list(balance.binding) == ["max_stack=15"]  # board_side=4 is not asked about
    write_report(tmp_path, balance, title="T", options=options, player="random")
    text = (tmp_path / "report.md").read_text()
    assert "board_side=4`" not in text and "`max_stack=15`" in text


# ------------------------------------------- issue 41 row 8: findings for the designer
def test_a_limit_that_ends_most_games_is_a_finding(tmp_path) -> None:
    limits = usage_spec(get_game("dendria")).limit_ends
    assert limits == {"quiet limit"}
    assert usage_spec(get_game("benediction")).limit_ends == {"turn limit"}
    results = [result(i, None if i < 37 else 0, reason="quiet limit" if i < 37 else
                      "both passed") for i in range(40)]
    balance = analyse(results)
    assert findings(balance) == []  # without the game, no end reason is known as a limit
    balance.limit_ends = limits
    [sentence] = findings(balance)
    assert sentence.startswith("37 of 40 games (92%) ended by the quiet limit, a limit")
    write_report(tmp_path, balance, title="T", options={}, player="L2")
    text = (tmp_path / "report.md").read_text()
    assert "## Findings for the designer" in text and "**37 of 40 games (92%)" in text
    balance.endings = Counter({("quiet limit", None): 20, ("both passed", 0): 20})
    assert findings(balance) == []  # half is not most


def test_a_pie_rule_the_players_almost_never_use_is_a_finding() -> None:
    balance = analyse([result(i, i % 2, reason="both passed") for i in range(40)])
    balance.used_options = [("pie=true", "swap", 1)]
    [sentence] = findings(balance)
    assert "`pie=true` came into play (swap) in only 1 of 40 games" in sentence
    assert "almost never use it" in sentence
    balance.used_options = [("pie=true", "swap", 4)]
    assert findings(balance) == []  # 10% of the games: used
    balance.used_options, balance.unused_options = [], [("pie=true", "swap")]
    assert "never came into play (no swap in 40 games)" in findings(balance)[0]


# --------------------------- issue 41 row 10: uncertainty, stability, threshold, distance
def test_evaluation_metrics_follow_their_definitions() -> None:
    assert ludii.uncertainty([0.0, 0.5, -1.0]) == pytest.approx(0.5)
    assert ludii.uncertainty([]) is None
    # p0 = 1, 0: each seat's variance 0.25, summed over the two seats
    assert ludii.stability([1.0, -1.0]) == pytest.approx(0.5)
    assert ludii.stability([0.3, 0.3, 0.3]) == pytest.approx(0.0)
    trace = [0.2, -0.4, 0.6]  # seat 1's chances 0.4, 0.7, 0.2: its best is 0.7
    assert ludii.decisiveness_threshold(trace, 0) == pytest.approx(0.7)
    assert ludii.decisiveness_threshold(trace, None) is None
    # seat 0's chances 0.6, 0.3, 0.8: first above 0.7 at the third turn start
    assert ludii.decided_at(trace, 0) == pytest.approx(2 / 3)
    assert ludii.decided_at([0.0, 0.0], 1) == 1.0  # never above: decided at the end


def test_move_distance_is_the_board_distance_of_every_move() -> None:
    for name, options, kinds in (("benediction", {"board_side": 4},
                                  {"move", "merge", "split"}),
                                 ("dendria", {"board_side": 4}, {"leg", "continue"})):
        game = get_game(name)
        for r in played(name, options, range(3)):
            end, _tags = game.read_record(r.record)
            board = game.board(end.rules)
            position = game.new_position(end.rules)
            expected = []
            for action in end.history:
                if action.kind in kinds:
                    origin = (action.origin if action.kind != "continue"
                              else position.history[-1].target)
                    expected.append(board.distance(board.index(origin),
                                                   board.index(action.target)))
                position.play(action)
            assert replay(game, r.record).distances == expected
            assert all(d >= 1 for d in expected)


def test_the_report_shows_and_writes_the_evaluation_metrics(tmp_path) -> None:
    game = get_game("dendria")
    results = played("dendria", {"board_side": 4}, range(6))
    balance = analyse(results, game, {"board_side": 4})
    assert len(balance.uncertainty) == len(balance.stability) == 6
    decisive = sum(r.winning_seat is not None for r in results)
    assert len(balance.thresholds) == len(balance.decided_at) == decisive
    assert all(0.0 <= u <= 1.0 for u in balance.uncertainty)
    assert all(0.0 <= t <= 1.0 for t in balance.thresholds)
    assert len(balance.move_distance) == sum(bool(replay(game, r.record).distances)
                                             for r in results)
    write_report(tmp_path, balance, title="T", options={"board_side": 4}, player="random")
    text = (tmp_path / "report.md").read_text()
    for words in ("- Uncertainty (", "- Stability (", "- Move distance ("):
        assert words in text
    with (tmp_path / "games.csv").open() as handle:
        row = next(csv.DictReader(handle))
    assert {"uncertainty", "stability", "decisiveness_threshold", "decided_at",
            "move_distance"} <= set(row)


def test_report_cli_prints_the_findings_once(tmp_path, capsys) -> None:
    out = tmp_path / "findings"
    assert main(["report", "dendria", "--set", "board_side=3", "--games", "12", "--player",
                 "random", "--trace", "none", "--jobs", "1", "--out", str(out)]) == 0
    console = " ".join(capsys.readouterr().out.split())
    # Seed 0: random players swap in one game of twelve.
    assert "FINDING: Option `pie=true` came into play (swap) in only 1 of 12 games" in console
    # An option that never came into play is a WARNING already, not a second FINDING.
    assert "WARNING: option quiet_limit=10 never came into play" in console
    assert "FINDING: Option `quiet_limit=10`" not in console
    text = (out / "report.md").read_text()
    findings_section = text.split("## Findings for the designer")[1].split("## Results")[0]
    assert "`pie=true` came into play (swap) in only 1 of 12 games" in findings_section
