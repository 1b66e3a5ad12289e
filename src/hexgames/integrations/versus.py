"""Head-to-head: our MCTS player against OpenSpiel's MCTS bot, at equal time per action.

    python -m hexgames.integrations.versus --game dendria --games 20 --seconds 0.5

Both sides get the same wall-clock budget for every action. Ours is
:class:`hexgames.ai.MCTSPlayer` with ``time_limit`` (and the full budget for the later
actions of a turn too, ``continuation_share=1``, so neither side gets less time); theirs is
``open_spiel.python.algorithms.mcts.MCTSBot`` with random rollouts to the end of the game,
playing our OpenSpiel game (:mod:`.openspiel`) and stopped by the clock instead of a
simulation count (:class:`TimedMCTSBot`). Each side plays seat 0 in half of the games.

The report gives, per game, our wins, draws and losses, our score rate
``(wins + draws/2) / games`` with its 95% Wilson interval, and each side's simulations
per second (iterations of our search; OpenSpiel's simulations, each one tree descent and
one random rollout). ``--json`` also keeps a record of every game (seats, result, length,
final position).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hexgames.ai import MCTSPlayer
from hexgames.game import Game, game_names, get_game, parse_option_value
from hexgames.integrations import openspiel as hex_openspiel

__all__ = [
    "Match",
    "TimedMCTSBot",
    "add_arguments",
    "main",
    "play_game",
    "run",
    "run_match",
    "wilson_interval",
]


# --------------------------------------------------------------------- statistics
def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a success rate (95% for ``z = 1.96``).

    Chosen over the normal approximation because it stays inside [0, 1] and is sensible
    for the small samples and lopsided rates a head-to-head produces. ``successes`` may
    count draws as halves.
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


# --------------------------------------------------------------------- OpenSpiel bot
class _OutOfTime(Exception):
    """Raised between two simulations when the bot's clock has run out."""


class TimedMCTSBot(mcts.MCTSBot):
    """OpenSpiel's ``MCTSBot``, stopped by a wall-clock budget per action.

    ``MCTSBot`` runs a fixed number of simulations in a loop we cannot change, so this
    subclass checks the clock at the start of each tree descent and ends the search there
    (the tree is consistent between simulations), once the root has been expanded. It
    counts its simulations and search time so that a rate can be reported.
    """

    def __init__(
        self,
        game: pyspiel.Game,
        seconds: float,
        *,
        uct_c: float = 2.0,
        rollouts: int = 1,
        seed: int | None = None,
        evaluator: Any = None,
    ) -> None:
        random_state = np.random.RandomState(seed)
        super().__init__(
            game,
            uct_c=uct_c,
            max_simulations=2**31 - 1,
            evaluator=evaluator or mcts.RandomRolloutEvaluator(rollouts, random_state),
            solve=True,
            random_state=random_state,
        )
        if seconds <= 0:
            raise ValueError(f"seconds must be positive, got {seconds}")
        self.seconds = seconds
        self.simulations = 0
        self.search_seconds = 0.0
        self._deadline = 0.0
        self._root: Any = None

    def mcts_search(self, state: pyspiel.State) -> Any:
        started = time.perf_counter()
        self._deadline = started + self.seconds
        self._root = None
        try:
            root = super().mcts_search(state)
        except _OutOfTime:
            root = self._root
        self.search_seconds += time.perf_counter() - started
        return root

    def _apply_tree_policy(self, root: Any, state: pyspiel.State) -> Any:
        self._root = root
        # MCTSBot expands the root during its second simulation: stop only after that,
        # so that there is always a child to choose.
        if root.children and time.perf_counter() >= self._deadline:
            raise _OutOfTime
        self.simulations += 1
        return super()._apply_tree_policy(root, state)


# ------------------------------------------------------------------------- playing
@dataclass
class Match:
    """Results of one game's head-to-head, from our player's point of view."""

    game: str
    options: dict[str, Any]
    seconds: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    #: Wins of our player as seat 0 and as seat 1.
    wins_by_seat: list[int] = field(default_factory=lambda: [0, 0])
    capped: int = 0
    actions: int = 0
    our_iterations: int = 0
    our_seconds: float = 0.0
    their_simulations: int = 0
    their_seconds: float = 0.0
    #: One entry per game: our seat, our result, its length and its final position.
    records: list[dict[str, Any]] = field(default_factory=list)

    @property
    def score(self) -> float:
        return self.wins + 0.5 * self.draws

    def summary(self) -> dict[str, Any]:
        low, high = wilson_interval(self.score, self.games)
        return {
            **asdict(self),
            "score_rate": self.score / self.games if self.games else 0.0,
            "wilson95": [low, high],
            "our_iterations_per_second": _rate(self.our_iterations, self.our_seconds),
            "their_simulations_per_second": _rate(self.their_simulations, self.their_seconds),
        }


def _rate(count: float, seconds: float) -> float:
    return count / seconds if seconds > 0 else 0.0


def play_game(
    spiel_game: pyspiel.Game,
    ours: MCTSPlayer,
    theirs: TimedMCTSBot,
    our_seat: int,
    match: Match,
) -> float:
    """Play one game; returns our result (+1 win, 0 draw, -1 loss) and adds the search
    statistics of both sides and a record of the game to ``match``."""
    hex_game: Game = get_game(match.game)
    state = spiel_game.new_initial_state()
    ours.reset()
    while not state.is_terminal():
        if state.current_player() == our_seat:
            position = state.position
            action = ours.choose(position)
            stats = ours.last_stats
            match.our_iterations += int(stats.get("iterations", 0))
            match.our_seconds += float(stats.get("seconds", 0.0))
            state.apply_action(hex_game.action_to_id(position, action))
        else:
            state.apply_action(theirs.step(state))
        match.actions += 1
    if not state.position.is_over:
        match.capped += 1
    result = float(state.returns()[our_seat])
    match.records.append(
        {
            "our_seat": our_seat,
            "result": result,
            "actions": len(state.history()),
            "capped": not state.position.is_over,
            "final_position": state.position.to_text(),
        }
    )
    return result


def run_match(
    game_name: str,
    games: int,
    seconds: float,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    evaluator: str = "random",
) -> Match:
    """``games`` games of ``game_name`` (alternating seats, ours first as seat 0).

    ``evaluator`` is OpenSpiel's leaf evaluation: ``"random"`` (a random rollout, the
    default) or ``"heuristic"`` (:class:`~hexgames.integrations.baselines.
    HeuristicEvaluator`, the game's own heuristic). Our player values its leaves as the
    game asks (Benediction: the heuristic; Dendria: whole random games)."""
    if evaluator not in ("random", "heuristic"):
        raise ValueError(f"evaluator must be random or heuristic, got {evaluator!r}")
    options = dict(options or {})
    params = hex_openspiel.params_from_options(get_game(game_name), options)
    spiel_game = pyspiel.load_game(game_name, params)
    match = Match(game=game_name, options=options, seconds=seconds)
    task = None
    if progress is not None:
        task = progress.add_task(f"{game_name} (ours 0-0-0)", total=games)
    for index in range(games):
        our_seat = index % 2
        ours = MCTSPlayer(
            game_name, time_limit=seconds, continuation_share=1.0, seed=seed + index
        )
        leaf = None
        if evaluator == "heuristic":
            from hexgames.integrations.baselines import HeuristicEvaluator

            leaf = HeuristicEvaluator()
        theirs = TimedMCTSBot(spiel_game, seconds, seed=seed + 1000 + index, evaluator=leaf)
        result = play_game(spiel_game, ours, theirs, our_seat, match)
        match.their_simulations += theirs.simulations
        match.their_seconds += theirs.search_seconds
        match.games += 1
        if result > 0:
            match.wins += 1
            match.wins_by_seat[our_seat] += 1
        elif result < 0:
            match.losses += 1
        else:
            match.draws += 1
        if progress is not None and task is not None:
            progress.update(
                task,
                advance=1,
                description=f"{game_name} (ours {match.wins}-{match.draws}-{match.losses})",
            )
    return match


# ----------------------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        action="append",
        choices=game_names(),
        help="game to play (repeat for several; default: every game)",
    )
    parser.add_argument("--games", type=int, default=10, help="games per game (default 10)")
    parser.add_argument(
        "--seconds", type=float, default=0.5, help="seconds per action for each side (0.5)"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="rules option for every game played (e.g. --set board_side=5); repeatable",
    )
    parser.add_argument(
        "--evaluator", choices=("random", "heuristic"), default="random",
        help="OpenSpiel's leaf evaluation: a random rollout (default) or the game's "
        "heuristic",
    )
    parser.add_argument("--seed", type=int, default=0, help="base random seed (default 0)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON here")


def _parse_options(game: Game, assignments: list[str]) -> dict[str, Any]:
    """The ``--set`` assignments that name options of ``game`` (others are skipped, so
    one command can set options of several games)."""
    options: dict[str, Any] = {}
    by_name = {option.name: option for option in game.options}
    for text in assignments:
        name, sep, raw = text.partition("=")
        if not sep:
            raise ValueError(f"--set expects OPTION=VALUE, got {text!r}")
        option = by_name.get(name.strip())
        if option is not None:
            options[option.name] = parse_option_value(option, raw)
    return options


def run(args: argparse.Namespace) -> int:
    # Off a terminal (nohup, CI logs) rich would wrap the table at 80 columns.
    console = Console() if sys.stdout.isatty() else Console(width=120)
    if args.games < 1:
        console.print("[red]--games must be at least 1[/red]")
        return 2
    if args.seconds <= 0:
        console.print("[red]--seconds must be positive[/red]")
        return 2
    names = args.game or game_names()
    known = {option.name for name in names for option in get_game(name).options}
    for text in args.set:
        if text.partition("=")[0].strip() not in known:
            console.print(f"[red]--set {text}: no game played has that option[/red]")
            return 2
    try:
        plans = [(name, _parse_options(get_game(name), args.set)) for name in names]
        for name, options in plans:
            get_game(name).make_rules(**options)  # refuse bad values before playing
    except ValueError as error:
        console.print(f"[red]{error}[/red]")
        return 2
    matches: list[Match] = []
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as progress:
        for name, options in plans:
            matches.append(
                run_match(name, args.games, args.seconds, options, args.seed, progress,
                          evaluator=args.evaluator)
            )
    console.print(_table(matches, args.evaluator))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump([match.summary() for match in matches], handle, indent=2)
    return 0


def _table(matches: list[Match], evaluator: str = "random") -> Table:
    leaf = "random rollouts" if evaluator == "random" else "heuristic evaluator"
    table = Table(title=f"hexgames MCTS vs OpenSpiel MCTSBot ({leaf})")
    for heading in (
        "game", "s/act", "games", "W-D-L", "score", "95% CI", "ours it/s", "OS sims/s", "capped",
    ):
        table.add_column(heading, no_wrap=True)
    for match in matches:
        summary = match.summary()
        low, high = summary["wilson95"]
        table.add_row(
            match.game,
            f"{match.seconds:g}",
            str(match.games),
            f"{match.wins}-{match.draws}-{match.losses}",
            f"{summary['score_rate']:.2f}",
            f"[{low:.2f}, {high:.2f}]",
            f"{summary['our_iterations_per_second']:.0f}",
            f"{summary['their_simulations_per_second']:.0f}",
            str(match.capped),
        )
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hexgames.integrations.versus",
        description="Play hexgames' MCTS player against OpenSpiel's MCTSBot at equal "
        "wall-clock time per action and report win rates and search speeds.",
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
