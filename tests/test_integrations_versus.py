"""The head-to-head runner: Wilson intervals, the clock-limited OpenSpiel bot, a tiny
match on each game and the command line."""

from __future__ import annotations

import json
import math
import time

import pytest

pyspiel = pytest.importorskip("pyspiel")

from hexgames.integrations import versus  # noqa: E402


def test_wilson_interval_matches_the_closed_form_and_its_properties() -> None:
    # 0 successes in 10: the upper end is z^2 / (n + z^2) (the closed form at p = 0).
    low, high = versus.wilson_interval(0, 10)
    z2 = 1.96**2
    assert low == 0.0 and high == pytest.approx(z2 / (10 + z2))
    # Symmetric in successes and failures; contains the observed rate.
    a = versus.wilson_interval(7, 20)
    b = versus.wilson_interval(13, 20)
    assert a[0] == pytest.approx(1 - b[1]) and a[1] == pytest.approx(1 - b[0])
    assert a[0] < 7 / 20 < a[1]
    # More games, narrower interval; draws may count as halves.
    narrow = versus.wilson_interval(70, 200)
    assert narrow[1] - narrow[0] < a[1] - a[0]
    assert versus.wilson_interval(2.5, 5)[0] < 0.5 < versus.wilson_interval(2.5, 5)[1]
    assert versus.wilson_interval(0, 0) == (0.0, 1.0)
    assert not math.isnan(versus.wilson_interval(20, 20)[0])


def test_timed_openspiel_bot_keeps_to_its_clock_and_counts_simulations() -> None:
    import hexgames.integrations.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game("dendria(board_side=3)")
    bot = versus.TimedMCTSBot(game, 0.1, seed=1)
    state = game.new_initial_state()
    started = time.perf_counter()
    action = bot.step(state)
    elapsed = time.perf_counter() - started
    assert action in state.legal_actions()
    assert bot.simulations >= 1
    assert 0.1 <= bot.search_seconds <= elapsed
    assert elapsed < 1.0, "one rollout on a side-3 board is far shorter than the slack"
    with pytest.raises(ValueError, match="positive"):
        versus.TimedMCTSBot(game, 0.0)


@pytest.mark.parametrize(
    ("name", "options"),
    [("dendria", {"board_side": 3}), ("benediction", {"board_side": 4, "max_turns": 6})],
)
def test_a_tiny_match_plays_both_seats_and_counts_everything(name: str, options) -> None:
    match = versus.run_match(name, games=2, seconds=0.02, options=options, seed=5)
    assert match.games == 2 == match.wins + match.draws + match.losses
    assert sum(match.wins_by_seat) == match.wins
    assert [record["our_seat"] for record in match.records] == [0, 1]
    assert sum(record["result"] > 0 for record in match.records) == match.wins
    assert sum(record["actions"] for record in match.records) == match.actions
    assert match.actions > 0
    assert match.their_simulations > 0 and match.their_seconds > 0
    summary = match.summary()
    assert summary["score_rate"] == pytest.approx(match.score / 2)
    low, high = summary["wilson95"]
    assert 0 <= low <= summary["score_rate"] <= high <= 1
    json.dumps(summary)  # the --json output must be serialisable


def test_command_line_help_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        versus.main(["--help"])
    assert exit_info.value.code == 0
    assert "--seconds" in capsys.readouterr().out
    assert versus.main(["--games", "0"]) == 2
    assert versus.main(["--game", "dendria", "--set", "colour=4"]) == 2
    assert versus.main(["--game", "dendria", "--set", "board_side=99", "--games", "1"]) == 2


def test_command_line_runs_and_writes_json(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "result.json"
    code = versus.main(
        ["--game", "dendria", "--games", "1", "--seconds", "0.02", "--set", "board_side=3",
         "--json", str(out)]
    )
    assert code == 0
    [result] = json.loads(out.read_text())
    assert result["game"] == "dendria" and result["games"] == 1
    assert "OpenSpiel MCTSBot" in capsys.readouterr().out


def test_openspiel_side_may_use_the_heuristic_evaluator() -> None:
    match = versus.run_match("dendria", games=2, seconds=0.02, options={"board_side": 3}, seed=1,
                             evaluator="heuristic")
    assert match.games == 2 and match.wins + match.draws + match.losses == 2
    with pytest.raises(ValueError, match="evaluator"):
        versus.run_match("dendria", games=1, seconds=0.02, evaluator="neural")
