"""Finished games between named players, played through the HTTP API, for the profile
tests (test_web_profiles.py with FastAPI's TestClient, test_web_profiles_browser.py with
httpx against a real server: both clients have ``get``/``post`` and keep cookies)."""

from __future__ import annotations

from typing import Any


def name_client(client: Any, name: str) -> Any:
    """Give ``client``'s identity the name ``name``; returns the client."""
    answer = client.post("/api/me/name", json={"name": name})
    assert answer.status_code == 200, answer.text
    return client


def play_to_the_end(creator: Any, friend: Any, game: str = "dendria",
                    options: dict[str, Any] | None = None, rated: bool = True,
                    loser: int | None = 1, prefer: str | None = None) -> str:
    """An online game, ``creator`` in seat 0 and ``friend`` in seat 1: each side plays
    (the first legal action, or ``prefer`` when it is legal: ``"swap"`` makes the
    second player take the first player's colour) until both have acted, then seat
    ``loser`` resigns (``None``: the moves go on until the rules end the game, as a
    draw by a turn cap). Returns the game's id."""
    made = creator.post("/api/games", json={"game": game, "mode": "online", "rated": rated,
                                            "options": options or {}})
    assert made.status_code == 201, made.text
    game_id = made.json()["id"]
    claimed = friend.post(f"/api/games/{game_id}/claim",
                          json={"token": made.json()["tokens"][1]})
    assert claimed.json()["seats"] == [1], claimed.text
    tokens = [made.json()["token"], claimed.json()["token"]]
    acted: set[int] = set()
    for _ in range(200):
        views = [creator.get(f"/api/games/{game_id}", params={"token": token}).json()
                 for token in tokens]
        if views[0]["is_over"] or (acted == {0, 1} and loser is not None):
            break
        seat = next(seat for seat, view in enumerate(views) if view["your_turn"])
        legal = [entry["action"] for entry in views[seat]["legal"]]
        action = prefer if prefer in legal else legal[0]
        answer = creator.post(f"/api/games/{game_id}/actions",
                              json={"token": tokens[seat], "action": action})
        assert answer.status_code == 200, answer.text
        acted.add(seat)
    if loser is not None:
        answer = creator.post(f"/api/games/{game_id}/resign", json={"token": tokens[loser]})
        assert answer.status_code == 200, answer.text
    final = creator.get(f"/api/games/{game_id}").json()
    assert final["is_over"], final
    return str(game_id)
