"""One seat of a game against a uniformly random opponent, as a Gymnasium environment:
the Stable-Baselines3 route that learns (``MaskablePPO``; docs/research.md, "A training
route that learns").

PettingZoo's tutorial wrapper trains one policy on both seats of a self-play game with the
reward of whoever just moved, and at tens of thousands of steps its policy played worse
than an untrained one against random play. Here the agent holds one seat (alternating
between episodes, so it learns both), the environment plays the other seat's actions at
random, and every reward is the agent's: +1 when it wins, -1 when it loses (whoever made
the last action), 0 for a draw or a game stopped at ``max_actions``. Observations are
seen from the agent's side (``player_relative``), so one policy serves both seats.
``action_masks()`` is what sb3-contrib's ``MaskablePPO`` reads.

:func:`score_against_random` measures any policy (a function of observation and mask)
the same way: many games against the random player, seats alternating, a Wilson interval.

    python -m hexgames.integrations.versus_random --game benediction --set board_side=4 \\
        --steps 100000 --seed 0 --out /tmp/ppo-benediction
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

from hexgames.integrations.common import DEFAULT_MAX_ACTIONS
from hexgames.integrations.gym_vector import GymEnv

__all__ = ["Score", "VersusRandom", "score_against_random"]

#: A policy: the observation (the agent's view) and the legal-id mask -> an action id.
Policy = Callable[[np.ndarray, np.ndarray], int]


class VersusRandom(gymnasium.Env):
    """``game`` with rules ``options``: the agent plays one seat, a random player the
    other (see the module docstring). ``seat``: the agent's seat, or ``None`` to
    alternate (0, 1, 0, ... from the first ``reset``).

    ``shaping`` (0: off) adds, for a game that keeps a score (``Game.live_score``), a
    potential-based shaped reward (Ng, Harada and Russell 1999): each step also pays
    ``shaping`` times the change of (the agent's score - the opponent's) / board cells.
    Its sum over a game is the final margin (so it leaves the best policy as it is) but
    it arrives turn by turn, which a long game's single result does not."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (as Gymnasium declares it)

    def __init__(self, game: str = "benediction", *, seat: int | None = None,
                 max_actions: int | None = DEFAULT_MAX_ACTIONS, shaping: float = 0.0,
                 **options: Any) -> None:
        if seat not in (None, 0, 1):
            raise ValueError(f"seat must be 0, 1 or None (alternate), not {seat!r}")
        if not 0.0 <= shaping <= 100.0:
            raise ValueError(f"shaping must be in 0..100, not {shaping!r}")
        self.game = GymEnv(game, max_actions=max_actions, player_relative=True,
                           illegal_action="raise", **options)
        self.observation_space = self.game.observation_space
        self.action_space = self.game.action_space
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.episodes = 0
        self._mask = np.zeros(int(self.action_space.n), np.bool_)  # type: ignore[attr-defined]
        self._observation: np.ndarray | None = None
        self._info: dict[str, Any] = {}
        cells = int(np.prod(self.observation_space.shape[-2:]))  # type: ignore[index]
        self.shaping = shaping / cells
        self._potential = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self.episodes = 0
        self.seat = self.episodes % 2 if self.fixed_seat is None else self.fixed_seat
        self.episodes += 1
        observation, info = self.game.reset(
            seed=int(self.np_random.integers(0, 2**62)), options=options)
        self._take(observation, info)
        observation, _, over, _, info = self._opponent_plays()
        assert not over, "a game that ends before the agent's first action"
        self._potential = self._margin()
        return observation, info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.game.step(action)
        self._take(observation, info)
        if not (terminated or truncated):  # else the mover (the agent) won or lost by it
            observation, reward, terminated, truncated, info = self._opponent_plays()
        return observation, float(reward) + self._shaped(), terminated, truncated, info

    def _margin(self) -> float:
        """The shaping potential: the agent's score lead, scaled (0 without shaping or
        for a game that keeps no score)."""
        if not self.shaping:
            return 0.0
        assert self.game.state is not None
        scores = self.game.functional.seat_scores(self.game.state, 0)
        return 0.0 if scores is None else self.shaping * (scores[self.seat]
                                                          - scores[1 - self.seat])

    def _shaped(self) -> float:
        before, self._potential = self._potential, self._margin()
        return self._potential - before

    def action_masks(self) -> np.ndarray:
        """The legal ids now (``MaskablePPO`` calls this before each action)."""
        return self._mask.copy()

    def _take(self, observation: np.ndarray, info: dict[str, Any]) -> None:
        self._observation, self._info = observation, info
        self._mask = np.asarray(info["action_mask"], np.bool_)

    def _opponent_plays(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The random player acts until it is the agent's turn or the game ends; the
        reward is the agent's (the negative of the random player's last one)."""
        info = self._info
        assert self._observation is not None
        observation, reward = self._observation, 0.0
        while int(info["current_player"]) != self.seat:
            legal = np.flatnonzero(self._mask)
            choice = int(legal[self.np_random.integers(len(legal))])
            observation, mover_reward, terminated, truncated, info = self.game.step(choice)
            self._take(observation, info)
            if terminated or truncated:
                return observation, -float(mover_reward), terminated, truncated, info
        return observation, reward, False, False, info


class Score:
    """A result against the random player: points (a win 1, a draw 1/2) of ``games``."""

    def __init__(self, points: float, games: int) -> None:
        self.points, self.games = points, games

    @property
    def rate(self) -> float:
        return self.points / self.games if self.games else 0.0

    def wilson(self, z: float = 1.96) -> tuple[float, float]:
        """The 95% Wilson interval of :attr:`rate`."""
        n, p = self.games, self.rate
        if n == 0:
            return 0.0, 1.0
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def __str__(self) -> str:
        low, high = self.wilson()
        return (f"{self.points:g} of {self.games} ({100 * self.rate:.1f}%, 95% "
                f"{100 * low:.1f}-{100 * high:.1f}%)")


def score_against_random(policy: Policy, game: str, games: int = 200, seed: int = 0,
                         **options: Any) -> Score:
    """``policy`` against the random player over ``games`` games, seats alternating,
    seeded: a win counts 1, a draw or a stopped game 1/2."""
    env = VersusRandom(game, **options)
    points = 0.0
    observation, _ = env.reset(seed=seed)
    for played in range(games):
        if played:
            observation, _ = env.reset()
        while True:
            observation, reward, terminated, truncated, _ = env.step(
                policy(observation, env.action_masks()))
            if terminated or truncated:
                points += 1.0 if reward > 0 else 0.5 if reward == 0 else 0.0
                break
    return Score(points, games)


def random_policy(seed: int = 0) -> Policy:
    """The control: a uniformly random legal id (scores about 50% by construction)."""
    rng = np.random.default_rng(seed)
    return lambda observation, mask: int(rng.choice(np.flatnonzero(mask)))


def train(game: str, steps: int, seed: int = 0, envs: int = 4, shaping: float = 0.0,
          **options: Any) -> Any:
    """Train sb3-contrib's ``MaskablePPO`` (an MLP policy) on :class:`VersusRandom`
    copies (``shaping`` as there) for ``steps`` environment steps; the model (the
    ``train`` extra)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)  # small nets: threads cost more than they give, and
    torch.manual_seed(seed)   # one thread keeps a seeded run the same run after run
    vector = DummyVecEnv([lambda rank=rank: VersusRandom(  # type: ignore[misc]
        game, shaping=shaping, **options) for rank in range(envs)])
    vector.seed(seed)
    model = MaskablePPO("MlpPolicy", vector, n_steps=256, batch_size=256, n_epochs=4,
                        learning_rate=3e-4, gamma=0.99, ent_coef=0.01, seed=seed,
                        policy_kwargs={"net_arch": [128, 128]}, verbose=0, device="cpu")
    model.learn(total_timesteps=steps)
    return model


def model_policy(model: Any) -> Policy:
    """A trained ``MaskablePPO`` as a :data:`Policy` (its most likely legal action)."""
    def choose(observation: np.ndarray, mask: np.ndarray) -> int:
        action, _ = model.predict(observation, action_masks=mask, deterministic=True)
        return int(action)
    return choose


def main(argv: list[str] | None = None) -> int:
    """Train, then score against the random player (the trained policy and, as the
    control, random play itself), and save the model."""
    import argparse
    import time

    from hexgames.game import get_game, parse_settings

    parser = argparse.ArgumentParser(
        prog="python -m hexgames.integrations.versus_random",
        description="MaskablePPO against a random opponent: train, then score.")
    parser.add_argument("--game", default="benediction")
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                        help="a rules option (repeatable), e.g. board_side=4")
    parser.add_argument("--steps", type=int, default=100_000, help="environment steps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=200, help="games of the score")
    parser.add_argument("--shaping", type=float, default=0.0,
                        help="weight of the score-margin shaping (games that keep a "
                             "score; 0: the result alone)")
    parser.add_argument("--out", default=None, help="save the model here (.zip)")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.games < 1:
        parser.error("--steps and --games must be positive")
    try:
        options = dict(parse_settings(get_game(args.game), args.set))
    except (ValueError, LookupError) as error:
        parser.error(str(error))
    began = time.perf_counter()
    model = train(args.game, args.steps, args.seed, shaping=args.shaping, **options)
    took = time.perf_counter() - began
    score = score_against_random(model_policy(model), args.game, args.games,
                                 seed=args.seed + 1, **options)
    control = score_against_random(random_policy(args.seed), args.game, args.games,
                                   seed=args.seed + 1, **options)
    print(f"{args.game} {options}: {args.steps} steps in {took:.0f} s (seed {args.seed}, "
          f"shaping {args.shaping:g}); "
          f"trained policy against random: {score}; random against random: {control}")
    if args.out:
        model.save(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
