"""TV: the featured game of each game, the highest-rated online game being played
(docs/web.md, "TV").

A game's rating is the mean of its two players' current ratings in the game's rating
pool (1500 for a player with none). Rated games come first, best first; unrated ones
after them, the most recently active first. Private invitations are never shown. The
answer is computed from the ``TV_CANDIDATES`` most recently active games being played (of
every game) and kept ``TV_TTL_S`` seconds per game, so that many TV pages cost a few
reads a second, not a scan each.
"""

from __future__ import annotations

import time
from typing import Any

from hexgames.game import game_names, get_game
from hexgames.web.game.clocks import TimeControl
from hexgames.web.play.live_games import LiveGames
from hexgames.web.ratings.games import current, rating_pool
from hexgames.web.ratings.glicko2 import Rating
from hexgames.web.storage import Mode, StoredGame

__all__ = ["TV_CANDIDATES", "TV_TTL_S", "Television", "rank_key"]

#: Games being played read per answer (most recently active first), and the ones of the
#: asked game whose players' ratings are read.
TV_CANDIDATES = 200
TV_RATED_READS = 40
#: Seconds an answer is kept per game.
TV_TTL_S = 2.0


def rank_key(rated: bool, mean: float) -> tuple[int, float]:
    """Sorted ascending: rated games first, by rating (best first), then unrated ones;
    ties (and unrated games) by the most recent activity (the caller sorts by
    ``updated_at`` descending first: the sort is stable)."""
    return (0, -mean) if rated else (1, 0.0)


class Television:
    """The featured game of each game, for ``/api/tv/<game>``."""

    def __init__(self, games: LiveGames) -> None:
        self.games = games
        self._kept: dict[str, tuple[float, dict[str, Any]]] = {}

    def forget(self) -> None:
        """Drop the kept answers (a test that ended a game asks again at once)."""
        self._kept.clear()

    async def featured(self, game_name: str) -> dict[str, Any]:
        """The featured game of ``game_name`` (``{"game_id": None, ...}`` when none)."""
        if game_name not in game_names():
            raise KeyError(game_name)
        kept = self._kept.get(game_name)
        moment = time.monotonic()
        if kept is not None and moment - kept[0] < TV_TTL_S:
            return kept[1]
        answer = await self._choose(game_name)
        self._kept[game_name] = (moment, answer)
        return answer

    async def _choose(self, game_name: str) -> dict[str, Any]:
        calls, storage = self.games.calls, self.games.storage
        playing = await calls.call(storage.games_with_status, "playing", TV_CANDIDATES)
        shown = [stored for stored in playing
                 if stored.game == game_name and stored.mode == Mode.ONLINE
                 and len(stored.players) == 2
                 and all(player.get("player_id") and not player.get("invite")
                         for player in stored.players)][:TV_RATED_READS]
        empty: dict[str, Any] = {"game": game_name, "title": get_game(game_name).title,
                                 "game_id": None, "players": []}
        if not shown:
            return empty
        ids = sorted({str(player["player_id"]) for stored in shown
                      for player in stored.players})
        ratings = {(record.player_id, record.pool): float(current(record).rating)
                   for record in await calls.call(storage.ratings_of_players, ids)}
        names = await calls.call(storage.player_names, ids)

        def rating_of(stored: StoredGame, player_id: str) -> float:
            pool = rating_pool(stored.game, stored.options)
            return ratings.get((player_id, pool), float(Rating().rating))

        def mean(stored: StoredGame) -> float:
            values = [rating_of(stored, str(p["player_id"])) for p in stored.players]
            return sum(values) / len(values)

        ranked = sorted(shown, key=lambda stored: stored.updated_at, reverse=True)
        ranked.sort(key=lambda stored: rank_key(stored.rated, mean(stored)))
        best = ranked[0]
        try:
            control = TimeControl.parse(best.meta.control) \
                if best.meta.control else TimeControl()
            time_text = control.describe()
        except ValueError:
            time_text = ""
        colors = list(get_game(best.game).colors)
        return {**empty, "game_id": best.id, "rated": best.rated,
                "rating": round(mean(best)), "time": time_text,
                "updated_at": best.updated_at, "url": f"/play/{best.id}",
                "players": [{"seat": seat,
                             "color": colors[seat] if seat < len(colors) else None,
                             "name": names.get(str(player["player_id"]), "?"),
                             "rating": round(rating_of(best, str(player["player_id"])))}
                            for seat, player in enumerate(best.players)]}
