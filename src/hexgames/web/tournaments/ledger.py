"""A stored tournament read as the pure core's inputs, and its standings.

The storage keeps rows (:class:`~hexgames.web.storage.records.TournamentState`: players,
and one row per pairing); the core wants a Swiss crosstable, arena score sheets, the
players waiting for a wave. This module turns the one into the other, with no I/O, so
that every process reading the same rows computes the same pairing and standings.

- A Swiss round with no row for a player (joined later, withdrew, paused, or kept from a
  player they block) is an absence; a live game counts as an absence until it ends (the
  tiebreaks are provisional until the round is over), a void one (its game could not be
  created) as an absence.
- An arena game's turns are split between the players: the first mover played the odd
  turns (so ``(turns + 1) // 2`` of their own).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from hexgames.web.storage.records import TournamentGame, TournamentState
from hexgames.web.tournaments import arena, swiss, tiebreaks
from hexgames.web.tournaments.model import TournamentSettings
from hexgames.web.tournaments.results import Crosstable, RoundResult

#: A finished game's points for the player who moved first, by result.
_FIRST_POINTS = {"first": 1.0, "second": 0.0, "draw": 0.5}


def settings_of(state: TournamentState) -> TournamentSettings:
    """The tournament's settings, as checked when it was created."""
    return TournamentSettings(**state.tournament.settings)


def settings_json(settings: TournamentSettings) -> dict[str, Any]:
    """The settings as stored (and shown)."""
    return asdict(settings)


def finished(game: TournamentGame) -> bool:
    """A game played to its end (not live, not a bye, not void)."""
    return game.result in _FIRST_POINTS and game.second_id is not None


def opponent(game: TournamentGame, player: str) -> str | None:
    """The other player of a pairing (``None`` for a bye)."""
    return game.second_id if game.first_id == player else game.first_id


def in_live_game(state: TournamentState) -> set[str]:
    """Everyone paired in a game not over yet: never paired again until it ends."""
    return {player for game in state.games if game.live
            for player in (game.first_id, game.second_id) if player is not None}


def rounds_paired(state: TournamentState) -> int:
    """The number of the last round (Swiss) or wave (arena) paired."""
    return max((game.step for game in state.games), default=0)


# ------------------------------------------------------------------ Swiss
def _round_result(game: TournamentGame | None, player: str) -> RoundResult:
    if game is None or game.result is None or game.result == "void":
        return RoundResult.absent()
    if game.result == "bye":
        return RoundResult.bye()
    first = game.first_id == player
    points = _FIRST_POINTS[game.result]
    other = opponent(game, player)
    assert other is not None
    return RoundResult.game(other, points if first else 1.0 - points, first)


def crosstable(state: TournamentState) -> Crosstable:
    """Every player's results, round by round, up to the last round paired."""
    rounds = rounds_paired(state)
    by_round: dict[tuple[int, str], TournamentGame] = {}
    for game in state.games:
        for player in (game.first_id, game.second_id):
            if player is not None:
                by_round[(game.step, player)] = game
    return {entry.player_id: [_round_result(by_round.get((number, entry.player_id)),
                                            entry.player_id)
                              for number in range(1, rounds + 1)]
            for entry in state.players}


def swiss_players(state: TournamentState,
                  avoid: Mapping[str, frozenset[str]] | None = None) -> list[swiss.SwissPlayer]:
    """The pairing's view of the players; withdrawn and paused ones are inactive, and
    ``avoid`` (player -> others) is added to their past opponents, so that the pairing
    keeps them apart as it keeps rematches apart."""
    ratings = {entry.player_id: entry.rating for entry in state.players}
    inactive = frozenset(entry.player_id for entry in state.players
                         if entry.withdrawn or entry.paused)
    players = swiss.players_from_crosstable(crosstable(state), ratings, inactive)
    if not avoid:
        return players
    return [swiss.SwissPlayer(p.id, p.rating, p.score, p.opponents | avoid.get(p.id, frozenset()),
                              p.byes, p.forfeit_win, p.seats, p.active) for p in players]


# ------------------------------------------------------------------ arena
def _arena_game(game: TournamentGame, player: str, ratings: Mapping[str, float],
                berserk: bool) -> arena.ArenaGame:
    first = game.first_id == player
    points = _FIRST_POINTS[str(game.result)]
    mine = points if first else 1.0 - points
    outcome: arena.Outcome = "win" if mine == 1.0 else "draw" if mine == 0.5 else "loss"
    other = opponent(game, player)
    return arena.ArenaGame(outcome, game.turns, (game.turns + 1) // 2 if first else game.turns // 2,
                           berserk and (game.first_berserk if first else game.second_berserk),
                           ratings.get(other or "", 0.0))


def games_by_player(state: TournamentState) -> dict[str, list[TournamentGame]]:
    """Each player's pairings, in the stored order: read once, so that the arena's
    sheets take time linear in the games (not players times games)."""
    found: dict[str, list[TournamentGame]] = {}
    for game in state.games:
        for player in (game.first_id, game.second_id):
            if player is not None:
                found.setdefault(player, []).append(game)
    return found


def _finished_games(games: list[TournamentGame]) -> list[TournamentGame]:
    """One player's finished games (of their pairings ``games``), oldest first."""
    return sorted((game for game in games if finished(game)),
                  key=lambda game: (game.ended_at or 0, game.step, game.board))


def arena_players(state: TournamentState,
                  by_player: Mapping[str, list[TournamentGame]] | None = None
                  ) -> list[arena.ArenaPlayer]:
    """Every player with their finished games, oldest first (berserk counts only where
    the settings allow it); ``by_player``: :func:`games_by_player`, if already read."""
    ratings = {entry.player_id: entry.rating for entry in state.players}
    berserk = settings_of(state).berserk
    by_player = games_by_player(state) if by_player is None else by_player
    return [arena.ArenaPlayer(entry.player_id, entry.rating, tuple(
        _arena_game(game, entry.player_id, ratings, berserk)
        for game in _finished_games(by_player.get(entry.player_id, []))))
        for entry in state.players]


def waiting(state: TournamentState) -> list[arena.Waiting]:
    """The players a wave may pair: in, not paused, in no live game."""
    busy = in_live_game(state)
    streaks = settings_of(state).streaks
    by_player = games_by_player(state)
    sheets = {player.id: player.games for player in arena_players(state, by_player)}
    found = []
    for entry in state.players:
        if entry.withdrawn or entry.paused or entry.player_id in busy:
            continue
        mine = by_player.get(entry.player_id, [])
        games = _finished_games(mine)
        seats = [game.first_id == entry.player_id for game in mine
                 if game.second_id is not None and game.result != "void"]
        last = games[-1] if games else None
        found.append(arena.Waiting(
            entry.player_id, arena.total(sheets[entry.player_id], streaks), entry.rating,
            opponent(last, entry.player_id) if last else None,
            float(last.ended_at or 0) if last else float(entry.joined_at),
            sum(1 if seat else -1 for seat in seats)))
    return found


# ------------------------------------------------------------------ standings
@dataclass(frozen=True)
class Line:
    """One line of the standings, whichever the kind: ``tiebreaks`` holds Buchholz and
    Sonneborn-Berger (Swiss) or the performance (arena); ``on_fire`` the arena's streak."""

    rank: int
    player: str
    score: float
    games: int
    tiebreaks: Mapping[str, float | None]
    on_fire: bool = False
    withdrawn: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "player": self.player, "score": self.score,
                "games": self.games, "tiebreaks": dict(self.tiebreaks),
                "on_fire": self.on_fire, "withdrawn": self.withdrawn}


def standings(state: TournamentState) -> list[Line]:
    """The standings as the core ranks them (Swiss: FIDE tiebreaks; arena: lichess)."""
    left = {entry.player_id for entry in state.players if entry.withdrawn}
    if state.tournament.kind == "arena":
        lines = arena.standings(arena_players(state), settings_of(state).streaks)
        return [Line(line.rank, line.player, line.score, line.games,
                     {"performance": line.performance}, line.on_fire, line.player in left)
                for line in lines]
    table = crosstable(state)
    played = {player: sum(1 for result in results if result.played)
              for player, results in table.items()}
    return [Line(line.rank, line.player, line.score, played[line.player],
                 {"buchholz": line.buchholz, "sonneborn_berger": line.sonneborn_berger},
                 withdrawn=line.player in left)
            for line in tiebreaks.standings(table)]


def game_json(game: TournamentGame) -> dict[str, Any]:
    """A pairing as the API shows it."""
    return {"round": game.step, "board": game.board, "first": game.first_id,
            "second": game.second_id, "game_id": game.game_id, "result": game.result,
            "turns": game.turns, "berserk": [game.first_berserk, game.second_berserk]}

