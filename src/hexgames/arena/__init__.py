"""Tournaments between AI players, Elo ratings, and designers' balance reports.

Like :mod:`hexgames.ai`, the arena reaches games only through :mod:`hexgames.game`.
Commands: ``hexgames arena`` (:mod:`.cli`), ``hexgames report`` (:mod:`.report_cli`) and
``hexgames sweep`` (:mod:`.sweep`); the designer tools are described in ``docs/design.md``.
"""

from hexgames.arena.elo import Game1v1, Ratings, fit
from hexgames.arena.match import GameResult, play_game
from hexgames.arena.report import Balance, analyse, wilson
from hexgames.arena.report_md import write_report
from hexgames.arena.standings import Standings, standings
from hexgames.arena.tournament import Pairing, Setup, gauntlet, round_robin, run_all

__all__ = [
    "Balance",
    "Game1v1",
    "GameResult",
    "Pairing",
    "Ratings",
    "Setup",
    "Standings",
    "analyse",
    "fit",
    "gauntlet",
    "play_game",
    "round_robin",
    "run_all",
    "standings",
    "wilson",
    "write_report",
]
