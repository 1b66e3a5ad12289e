"""Tournaments between AI players, Elo ratings, and designers' balance reports.

Like :mod:`hexgames.ai`, the arena reaches games only through :mod:`hexgames.game`.
Commands: ``hexgames arena`` (:mod:`.tournament.cli`), ``hexgames report`` (:mod:`.report.cli`) and
``hexgames sweep`` (:mod:`.sweep.cli`); the designer tools are described in ``docs/design.md``.
"""

from hexgames.arena.match import GameResult, play_game
from hexgames.arena.report.markdown import write_report
from hexgames.arena.report.stats import Balance, analyse, wilson
from hexgames.arena.tournament.elo import Game1v1, Ratings, fit
from hexgames.arena.tournament.schedule import Pairing, Setup, gauntlet, round_robin, run_all
from hexgames.arena.tournament.standings import Standings, standings

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
