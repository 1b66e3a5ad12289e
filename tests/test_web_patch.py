"""Board patches (``svg=patch``, issue 10): a state may carry ``svg_patch``, the edits
that turn the board the client holds into the new one, instead of the whole SVG. The
client's board rebuilt from patches is byte for byte the board a plain socket receives,
through moves, undos, presence changes and a queue that drops states for a slow reader.
Also the batched storage of moves made at once (each still its own write)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hexgames.web.app import create_app
from hexgames.web.game.matches import SVG_PATCH_SEPARATOR, Match, svg_patch
from hexgames.web.loadtest import note_board
from hexgames.web.play.hub import QUEUE_SIZE, Connection
from hexgames.web.storage import StoredGame


def apply(old: list[str], ops: list[Any]) -> list[str]:
    pieces = list(old)
    for at, remove, inserted in ops:
        pieces[at:at + remove] = inserted
    return pieces


def test_a_patch_turns_any_list_into_any_other_or_is_refused() -> None:
    rng = random.Random(10)
    made = 0
    for _ in range(3000):
        old = [rng.choice("abcd/") for _ in range(rng.randrange(0, 90))]
        new = list(old)
        for _ in range(rng.randrange(0, 6)):  # a few local edits, as between positions
            at = rng.randrange(0, len(new) + 1)
            inserted = [rng.choice("abcdx") for _ in range(rng.randrange(4))]
            new[at:at + rng.randrange(0, 4)] = inserted
        if rng.random() < 0.2:  # or anything at all
            new = [rng.choice("abcd") for _ in range(rng.randrange(0, 90))]
        ops = svg_patch(old, new)
        if ops is not None:
            made += 1
            assert apply(old, ops) == new
    assert made > 2500
    assert svg_patch(["a"] * 300, ["b"] * 300) is None  # too different: send it whole


@pytest.mark.parametrize("game,options", [("benediction", {}), ("dendria", {"board_side": 3})])
def test_patched_boards_equal_the_whole_boards_through_moves_and_undos(
    tmp_path: Path, game: str, options: dict[str, Any]
) -> None:
    with TestClient(create_app(data_dir=tmp_path, ai_processes=1)) as client:
        created = client.post("/api/games", json={"game": game, "mode": "hotseat",
                                                  "options": options}).json()
        path = f"/ws/games/{created['id']}?token={created['token']}"
        with (client.websocket_connect(path + "&delta=1&svg=patch") as patched,
              client.websocket_connect(path) as whole):
            board: list[str] = []
            first = patched.receive_json()
            assert "svg_patch" not in first and note_board(board, first)
            note_board(board, patched.receive_json())  # the second socket arriving
            state = whole.receive_json()
            rng = random.Random(3)
            patches = 0
            for step in range(24):
                if step % 9 == 8:
                    patched.send_json({"type": "undo"})
                else:
                    if state["is_over"]:
                        break
                    action = rng.choice(state["legal"])["action"]
                    patched.send_json({"type": "action", "action": action, "ply": state["ply"]})
                message = patched.receive_json()
                state = whole.receive_json()
                assert "svg_patch" not in state and "history" in state  # not opted in
                patches += "svg_patch" in message
                assert "svg" not in message or "svg_patch" not in message
                assert note_board(board, message)
                assert SVG_PATCH_SEPARATOR.join(board) == state["svg"]
            assert patches >= 10


def test_a_slow_reader_never_gets_a_patch_of_a_board_it_missed() -> None:
    """States dropped from a full queue never leave the client with a patch for a board
    it did not receive: the next state patches the board it really holds."""
    stored = StoredGame(
        id="slow", game="dendria", options={"board_side": 3}, mode="hotseat",
        players=[{"kind": "human", "level": None}] * 2, seat_tokens=[None, None],
        status="playing", winner=None, reason=None, created_at="", updated_at="",
        actions=[],
    )

    class Reader:
        """A client at the other end of a socket: reads only when told to."""

        def __init__(self) -> None:
            self.received: list[str] = []
            self.go = asyncio.Event()

        async def send_text(self, text: str) -> None:
            await self.go.wait()
            self.received.append(text)

        async def close(self, code: int = 1000) -> None:
            pass

    async def scenario() -> None:
        import json

        from hexgames.web.play.hub import Hub

        match = Match(stored)
        reader = Reader()
        connection = Connection(reader, None, delta=True, svg_patch=True)  # type: ignore[arg-type]
        rng = random.Random(5)
        for _ in range(3 * QUEUE_SIZE):
            Hub.send_state(connection, match, [])
            await asyncio.sleep(0)
            if match.is_over:
                break
            match.play_for_seat(match.position.current_seat,
                                rng.choice(match.legal_for_client())["action"])
        Hub.send_state(connection, match, [])
        reader.go.set()
        for _ in range(100):
            await asyncio.sleep(0)
        connection.stop()
        assert connection.dropped > 0
        board: list[str] = []
        history: list[str] = []
        for text in reader.received:
            state = json.loads(text)
            assert note_board(board, state)
            history = history[: state["history_since"]] + [
                entry["notation"] for entry in state["history_tail"]]
        assert SVG_PATCH_SEPARATOR.join(board) == match.svg()
        assert history == [ply.notation for ply in match.plies]

    asyncio.run(scenario())


def test_moves_of_many_games_at_once_are_stored_in_batches_each_on_its_own(
    tmp_path: Path,
) -> None:
    """Moves made together go to the storage thread together (one hop), yet each is its
    own write: all are stored before they are acknowledged, and a conflicting write in
    the same batch fails alone."""
    from hexgames.web.engine.workers import AiWorkers
    from hexgames.web.play.hub import Hub
    from hexgames.web.service import GameService
    from hexgames.web.storage import StaleWrite, open_storage

    async def scenario() -> None:
        service = GameService(open_storage(data_dir=tmp_path), AiWorkers(1), Hub())
        await service.start()
        try:
            games = [await service.create("dendria", {"board_side": 3}, "hotseat")
                     for _ in range(6)]
            rng = random.Random(2)
            for _ in range(4):
                moves = []
                for match, tokens in games:
                    action = rng.choice(match.legal_for_client())["action"]
                    moves.append(service.act(match.id, tokens[0], action, len(match.plies)))
                await asyncio.gather(*moves)
            first, _ = games[0]
            clash = service.calls.call_batched(service.storage.append_actions, first.id, 1,
                                           ["x"], "now")  # ply 1 is taken: refused
            fine = service.calls.call_batched(service.storage.set_seats, first.id,
                                          first.stored.players, first.stored.seat_tokens,
                                          "now")
            results = await asyncio.gather(clash, fine, return_exceptions=True)
            assert isinstance(results[0], StaleWrite)
            assert isinstance(results[1], int)  # stored: the row's new version
            for match, _ in games:
                stored = service.storage.load_game(match.id)
                assert stored is not None
                assert stored.actions == [ply.notation for ply in match.plies]
                assert len(stored.actions) == 4
        finally:
            await service.close()

    asyncio.run(scenario())
