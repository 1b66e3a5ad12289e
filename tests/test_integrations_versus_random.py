"""The Stable-Baselines3 route that learns (issue 41, row 3): one seat against a random
player, rewards always the agent's, and a CI-sized MaskablePPO run that already scores
above random play (seeded, one torch thread: the same run every time)."""

from __future__ import annotations

import numpy as np
import pytest

from hexgames.integrations.versus_random import (
    Score,
    VersusRandom,
    random_policy,
    score_against_random,
)


@pytest.mark.parametrize("game", ["benediction", "dendria"])
def test_the_agent_acts_on_its_turns_only_and_every_reward_is_its_own(game: str) -> None:
    env = VersusRandom(game, board_side=4)
    rng = np.random.default_rng(5)
    seats, results = [], []
    observation, info = env.reset(seed=11)
    for _ in range(12):
        seats.append(env.seat)
        while True:
            assert int(info["current_player"]) == env.seat  # the agent's turn
            assert observation in env.observation_space
            mask = env.action_masks()
            observation, reward, terminated, truncated, info = env.step(
                int(rng.choice(np.flatnonzero(mask))))
            if terminated or truncated:
                # The engine's own reward of the last step, for the agent's seat.
                assert reward == float(env.game.state.rewards[0, env.seat])
                results.append(reward)
                break
            assert reward == 0.0
        observation, info = env.reset()
    assert seats == [0, 1] * 6
    assert set(results) <= {-1.0, 0.0, 1.0} and len(set(results)) > 1


def test_a_fixed_seat_and_bad_seats() -> None:
    env = VersusRandom("benediction", seat=1, board_side=4)
    env.reset(seed=0)
    env.reset()
    assert env.seat == 1
    with pytest.raises(ValueError, match="seat must be"):
        VersusRandom("benediction", seat=2)


def test_random_play_scores_about_half_and_the_interval_says_so() -> None:
    score = score_against_random(random_policy(3), "benediction", games=120, seed=4,
                                 board_side=4)
    low, high = score.wilson()
    assert low < 0.5 < high
    assert str(Score(86, 100)) == "86 of 100 (86.0%, 95% 77.9-91.5%)"


def test_a_ci_sized_maskable_ppo_run_scores_above_random() -> None:
    """A few thousand steps on Benediction side 4: the trained policy's whole Wilson
    interval lies above one half (the full route, 30,000 steps, reaches 86%)."""
    pytest.importorskip("sb3_contrib", reason="the train extra (sb3-contrib, torch)")
    from hexgames.integrations.versus_random import model_policy, train

    model = train("benediction", 3000, seed=0, board_side=4)
    score = score_against_random(model_policy(model), "benediction", games=100, seed=1,
                                 board_side=4)
    assert score.wilson()[0] > 0.5, str(score)


def test_shaping_pays_the_score_margin_turn_by_turn_and_sums_to_it() -> None:
    """Dendria keeps a score: the shaped rewards of a game add up to the result plus the
    final margin (scaled by the shaping over the board's cells); Benediction keeps none,
    so its rewards are the results alone."""
    env = VersusRandom("dendria", board_side=4, shaping=4.0)
    plain = VersusRandom("dendria", board_side=4)
    rng = np.random.default_rng(2)
    margins = []
    for game in range(6):
        env.reset(seed=game)
        total, last = 0.0, 0.0
        while True:
            mask = env.action_masks()
            _, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += reward
            if terminated or truncated:
                last = float(env.game.state.rewards[0, env.seat]) if terminated else 0.0
                break
        scores = env.game.functional.seat_scores(env.game.state, 0)
        margin = scores[env.seat] - scores[1 - env.seat]
        margins.append(margin)
        assert total == pytest.approx(last + env.shaping * margin)
    assert any(margins), "no game ended with a score margin"
    assert env.shaping == pytest.approx(4.0 / 49) and plain.shaping == 0.0
    benediction = VersusRandom("benediction", board_side=4, shaping=4.0)
    benediction.reset(seed=0)
    assert benediction.game.functional.seat_scores(benediction.game.state, 0) is None
    with pytest.raises(ValueError, match="shaping must be"):
        VersusRandom("dendria", shaping=-1)
