"""Tournament tables: per-player results, head-to-head scores and Elo ratings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.table import Table

from hexgames.arena.match import GameResult
from hexgames.arena.tournament.elo import Game1v1, Ratings, fit


@dataclass
class Line:
    """One player's results over a tournament."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def score(self) -> float:
        """Points (win 1, draw 0.5) per game."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


@dataclass
class Standings:
    lines: list[Line]
    #: ``head_to_head[a][b]``: (points of a against b, games between them).
    head_to_head: dict[str, dict[str, tuple[float, int]]]
    ratings: Ratings
    seat0_score: float


def standings(results: Sequence[GameResult], names: Sequence[str]) -> Standings:
    """Tally ``results`` for the players ``names`` (in that display order)."""
    lines = {name: Line(name) for name in names}
    h2h: dict[str, dict[str, tuple[float, int]]] = {a: {} for a in names}
    rated = []
    seat0_points = 0.0
    for result in results:
        for seat in (0, 1):
            me, other = result.players[seat], result.players[1 - seat]
            line = lines[me]
            line.games += 1
            points = result.score_of_seat(seat)
            if points == 1.0:
                line.wins += 1
            elif points == 0.0:
                line.losses += 1
            else:
                line.draws += 1
            old_points, old_games = h2h[me].get(other, (0.0, 0))
            h2h[me][other] = (old_points + points, old_games + 1)
        rated.append(Game1v1(result.players[0], result.players[1], result.score_of_seat(0)))
        seat0_points += result.score_of_seat(0)
    ratings = fit(rated, names)
    ordered = sorted(lines.values(), key=lambda line: -ratings.of(line.name).elo)
    seat0 = seat0_points / len(results) if results else 0.0
    return Standings(ordered, h2h, ratings, seat0)


def results_table(table_data: Standings) -> Table:
    """The rich table printed by ``hexgames arena``."""
    table = Table(title="Results", title_justify="left")
    for header in ("player", "games", "wins", "draws", "losses", "score", "Elo (95%)"):
        table.add_column(header, justify="left" if header == "player" else "right")
    for line in table_data.lines:
        rating = table_data.ratings.of(line.name)
        table.add_row(
            line.name,
            str(line.games),
            str(line.wins),
            str(line.draws),
            str(line.losses),
            f"{100 * line.score:.1f}%",
            f"{rating.elo:+.0f} ± {rating.margin:.0f}",
        )
    return table


def head_to_head_table(table_data: Standings) -> Table:
    """Score of the row player against the column player."""
    names = [line.name for line in table_data.lines]
    table = Table(title="Head to head (row's score vs column)", title_justify="left")
    table.add_column("")
    for name in names:
        table.add_column(name, justify="right")
    for a in names:
        cells = []
        for b in names:
            points, games = table_data.head_to_head[a].get(b, (0.0, 0))
            cells.append(f"{points:g}/{games}" if games else "-")
        table.add_row(a, *cells)
    return table
