"""``hexgames loadtest``: play many online games against a running server and measure it.

Each simulated game is created over HTTP (``POST /api/games``, mode ``online``) and played
by two WebSocket clients, one per seat, each answering its turn at once with a random legal
action, as fast as the server lets them. When a game ends, a new one takes its slot, so the
number of live games stays constant for the whole run.

It reports moves per second, the latency of a move (from sending it to receiving the state
that contains it) as percentiles, errors (error messages, failed connections, HTTP
failures) and **lost moves**: at the end every game is read back from the server and each
move a client saw acknowledged must be in the stored history, in order.

Only loopback or a server you run: the tool refuses addresses other than localhost unless
``--allow-remote`` is given, its loops are bounded in time, and it starts nothing it does
not stop (it starts nothing at all: the server is given).
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import random
import statistics
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: Default mix: half Benediction, half Dendria on a side-5 board (the measured workload).
DEFAULT_MIX = ("benediction", "dendria:board_side=5")


@dataclass
class Stats:
    """What the run measured, shared by every simulated client."""

    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    games_started: int = 0
    games_finished: int = 0
    errors: list[str] = field(default_factory=list)
    #: game id -> notations of the moves that clients saw acknowledged, in order.
    acknowledged: dict[str, list[str]] = field(default_factory=dict)
    #: Ask the server for delta states (``?delta=1``: the move list's new tail only).
    delta: bool = True
    #: Servers the players connect to, in turn (players of one game on different
    #: servers when there are several: they must see each other's moves).
    urls: list[str] = field(default_factory=list)

    def error(self, text: str) -> None:
        if len(self.errors) < 1000:  # bounded: a broken server must not eat the memory
            self.errors.append(text[:300])


@dataclass(frozen=True)
class GameSpec:
    game: str
    options: dict[str, Any]

    @classmethod
    def parse(cls, text: str) -> GameSpec:
        """``dendria:board_side=5,pie=false`` -> game and options (ints and booleans)."""
        name, _, rest = text.partition(":")
        options: dict[str, Any] = {}
        for item in filter(None, rest.split(",")):
            key, sep, raw = item.partition("=")
            if not sep:
                raise ValueError(f"expected option=value in {text!r}, got {item!r}")
            value: Any = raw
            if raw.lower() in {"true", "false"}:
                value = raw.lower() == "true"
            elif raw.lstrip("-").isdigit():
                value = int(raw)
            options[key.strip()] = value
        return cls(name.strip(), options)


def source_address(base: str, index: int) -> str | None:
    """The address simulated game ``index`` connects from: a server counts sockets and
    requests per client address (docs/web.md, "Limits"), and N games are N visitors, not
    one. On Linux every 127.x.y.z is this machine, so against an IPv4 loopback server
    each game gets one of its own; elsewhere None (the system's choice)."""
    host = urllib.parse.urlsplit(base).hostname or ""
    try:
        loopback = ipaddress.ip_address(host).is_loopback and ":" not in host
    except ValueError:
        loopback = False
    if not loopback or not sys.platform.startswith("linux"):
        return None
    return f"127.77.{index // 250 % 250}.{1 + index % 250}"


def http_json(method: str, url: str, body: Any = None, timeout: float = 10.0,
              source: str | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    if source is not None:  # from this local address (see source_address)
        import http.client

        parts = urllib.parse.urlsplit(url)
        kind = (http.client.HTTPSConnection if parts.scheme == "https"
                else http.client.HTTPConnection)
        connection = kind(parts.hostname or "", parts.port, timeout=timeout,
                          source_address=(source, 0))
        try:
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            connection.request(method, path or "/", body=data,
                               headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            payload = response.read()
            if response.status >= 400:
                raise urllib.error.HTTPError(url, response.status, response.reason,
                                             response.headers, None)
            return json.loads(payload.decode())
        finally:
            connection.close()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read().decode())


def websocket_url(base: str, game_id: str, token: str, delta: bool = True) -> str:
    """The game socket's address; ``delta`` opts in to what the bundled front end asks
    for: the move list's new tail (``delta=1``) and board patches (``svg=patch``)."""
    parts = urllib.parse.urlsplit(base)
    scheme = "wss" if parts.scheme == "https" else "ws"
    opt_in = {"delta": "1", "svg": "patch"} if delta else {}
    query = urllib.parse.urlencode({"token": token, **opt_in})
    return f"{scheme}://{parts.netloc}/ws/games/{game_id}?{query}"


async def play_seat(
    base: str,
    game_id: str,
    token: str,
    rng: random.Random,
    stats: Stats,
    deadline: float,
    max_moves: int,
    source: str | None = None,
) -> bool:
    """One player: connect (from ``source``, if given), answer every turn with a random
    legal action until the game ends, the deadline passes or ``max_moves`` were made.
    True when the game ended."""
    import websockets

    sent_at: float | None = None
    sent_ply = -1
    made = 0
    board: list[str] = []  # the board's SVG cut into pieces, as patches edit it
    try:
        async with websockets.connect(
            websocket_url(base, game_id, token, stats.delta), max_size=2**24, open_timeout=10,
            **({"local_addr": (source, 0)} if source else {}),  # type: ignore[arg-type]
        ) as socket:
            while time.monotonic() < deadline:
                try:
                    left = max(0.1, deadline - time.monotonic())
                    raw = await asyncio.wait_for(socket.recv(), timeout=left)
                except TimeoutError:
                    break
                message = json.loads(raw)
                kind = message.get("type")
                if kind == "error":
                    stats.error(f"{game_id}: {message.get('message')}")
                    sent_at = None
                    continue
                if kind != "state":
                    continue
                ply = int(message.get("ply", 0))
                if sent_at is not None and ply > sent_ply:
                    stats.latencies.append(time.monotonic() - sent_at)
                    sent_at = None
                note_acknowledged(stats, game_id, message)
                if not note_board(board, message):
                    stats.error(f"{game_id}: a board patch arrived before any board")
                if message.get("is_over"):
                    return True
                legal = message.get("legal") or []
                if not message.get("your_turn") or not legal or sent_at is not None:
                    continue
                if made >= max_moves:
                    break
                action = rng.choice(legal)["action"]
                sent_at, sent_ply = time.monotonic(), ply
                await socket.send(json.dumps({"type": "action", "action": action, "ply": ply}))
                stats.moves += 1
                made += 1
    except Exception as error:  # a failed connection is a measured error, not a crash
        stats.error(f"{game_id}: {type(error).__name__}: {error}")
    return False


def note_board(board: list[str], message: dict[str, Any]) -> bool:
    """Keep the board a client shows (as its SVG cut at the patch separator) up to date
    from a state: its whole ``svg``, or an ``svg_patch`` of the one held. False when a
    patch arrives with no board to apply it to (a server error)."""
    svg = message.get("svg")
    if isinstance(svg, str):
        board[:] = svg.split("><")
        return True
    patch = message.get("svg_patch")
    if patch is None:
        return True
    if not board:
        return False
    for at, remove, pieces in patch:
        board[at:at + remove] = pieces
    return True


def note_acknowledged(stats: Stats, game_id: str, message: dict[str, Any]) -> None:
    """Remember the moves a state message shows as played (its history, or the tail of
    a delta state: ``history_tail`` from ``history_since``)."""
    seen = stats.acknowledged.setdefault(game_id, [])
    history = message.get("history")
    if isinstance(message.get("history_tail"), list):
        history = message["history_tail"]
        start = int(message.get("history_since", 0))
        ply = start + len(history)
    elif isinstance(history, list):
        ply = int(message.get("ply", len(history)))
        start = ply - len(history)  # a state may carry only the latest part of the history
    else:
        return
    notations = [str(entry.get("notation")) for entry in history if isinstance(entry, dict)]
    if start <= len(seen):
        seen[start:] = notations
        del seen[ply:]


async def play_slot(
    base: str, spec: GameSpec, seed: int, stats: Stats, deadline: float, max_moves: int,
    source: str | None = None,
) -> list[str]:
    """Keep one game slot busy until the deadline (its client connecting from ``source``,
    if given); returns the ids of its games."""
    rng = random.Random(seed)
    ids: list[str] = []
    while time.monotonic() < deadline:
        try:
            created = await asyncio.to_thread(
                http_json,
                "POST",
                f"{base}/api/games",
                {"game": spec.game, "mode": "online", "options": spec.options},
                10.0,
                source,
            )
        except (urllib.error.URLError, OSError, ValueError) as error:
            stats.error(f"create {spec.game}: {error}")
            await asyncio.sleep(0.2)
            continue
        game_id, tokens = created["id"], created["tokens"]
        ids.append(game_id)
        stats.games_started += 1
        urls = stats.urls or [base]
        players = [
            play_seat(urls[(seed + seat) % len(urls)], game_id, token,
                      random.Random(rng.random()), stats, deadline, max_moves, source)
            for seat, token in enumerate(tokens)
        ]
        results = await asyncio.gather(*players)
        if any(results):
            stats.games_finished += 1
        if max_moves and all(not ended for ended in results):
            break  # the move budget, not the game, ended this slot
    return ids


def lost_moves(base: str, stats: Stats, ids: Sequence[str]) -> tuple[int, int]:
    """(acknowledged moves, of which missing from the stored history).

    With several server processes, the one read back may hear of the very last moves a
    few milliseconds after the others: a game that looks short is read again (at most
    20 times, 0.1 s apart) before its missing moves count as lost."""
    acknowledged = lost = 0
    for game_id in ids:
        seen = stats.acknowledged.get(game_id, [])
        acknowledged += len(seen)
        missing = 0
        for attempt in range(20):
            if attempt:
                time.sleep(0.1)
            try:
                stored = http_json("GET", f"{base}/api/games/{game_id}")
            except (urllib.error.URLError, OSError, ValueError) as error:
                stats.error(f"read back {game_id}: {error}")
                missing = len(seen)
                break
            history = [entry["notation"] for entry in stored.get("history", [])]
            if int(stored.get("ply", len(history))) != len(history):
                history = full_history(base, game_id, history)
            missing = 0
            for index, notation in enumerate(seen):
                if index >= len(history) or history[index] != notation:
                    missing = len(seen) - index
                    break
            if not missing:
                break
        lost += missing
    return acknowledged, lost


def full_history(base: str, game_id: str, fallback: list[str]) -> list[str]:
    """The whole stored history, from the game record when a state carries only a tail."""
    request = urllib.request.Request(f"{base}/api/games/{game_id}/record")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
    except (urllib.error.URLError, OSError):
        return fallback
    body = [line for line in text.splitlines() if line and not line.startswith("[")]
    moves = [token for line in body for token in line.split() if not token.endswith(".")]
    return [m for m in moves if m not in {"*", "1-0", "0-1", "1/2-1/2"}]


def cpu_seconds(pids: Sequence[int]) -> float:
    """CPU time (user + system) the processes used so far, from ``/proc`` (Linux)."""
    import os

    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def percentile(values: Sequence[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


async def run_load(
    base: str,
    games: int,
    seconds: float,
    mix: Sequence[GameSpec],
    seed: int,
    max_moves: int = 0,
    urls: Sequence[str] = (),
    delta: bool = True,
    server_pids: Sequence[int] = (),
) -> dict[str, Any]:
    """Play ``games`` games at once for ``seconds``; games are created through ``base``
    and their players connect to ``urls`` in turn (default: ``base``). With
    ``server_pids``, also report the CPU time those processes used per move (a figure
    that depends less on what else the machine runs than moves/s does)."""
    stats = Stats(delta=delta, urls=list(urls))
    cpu_before = cpu_seconds(server_pids)
    started = time.monotonic()
    deadline = started + seconds
    slots = [
        play_slot(base, mix[i % len(mix)], seed * 100_003 + i, stats, deadline, max_moves or 10**9,
                  source_address(base, i))
        for i in range(games)
    ]
    id_lists = await asyncio.gather(*slots)
    elapsed = time.monotonic() - started
    cpu = cpu_seconds(server_pids) - cpu_before
    ids = [game_id for group in id_lists for game_id in group]
    acknowledged, lost = await asyncio.to_thread(lost_moves, base, stats, ids)
    latencies = stats.latencies
    return {
        "server": base,
        "games": games,
        "seconds": round(elapsed, 2),
        "moves": stats.moves,
        "moves_per_s": round(len(latencies) / elapsed, 1) if elapsed else 0.0,
        "acknowledged": acknowledged,
        "p50_ms": round(1000 * percentile(latencies, 0.50), 1),
        "p90_ms": round(1000 * percentile(latencies, 0.90), 1),
        "p99_ms": round(1000 * percentile(latencies, 0.99), 1),
        "max_ms": round(1000 * max(latencies), 1) if latencies else float("nan"),
        "mean_ms": round(1000 * statistics.fmean(latencies), 1) if latencies else float("nan"),
        "games_started": stats.games_started,
        "games_finished": stats.games_finished,
        "errors": len(stats.errors),
        "error_samples": stats.errors[:5],
        "lost_moves": lost,
        "server_cpu_ms_per_move": round(1000 * cpu / len(latencies), 2)
        if server_pids and latencies else None,
    }


def engine_reference(spec: GameSpec) -> str:
    """The engine's random-game speed on this machine now (``hexgames.bench``)."""
    from hexgames.bench import measure
    from hexgames.game import get_game

    game = get_game(spec.game)
    result = measure(game, spec.options, runs=1, seconds=2.0)
    actions = result.games_per_s * result.mean_game_length
    return (
        f"engine {spec.game} {result.variant}: {actions:,.0f} random actions/s "
        f"({result.play_undo_per_s:,.0f} play+undo/s, {result.generations_per_s:,.0f} "
        "legal-action generations/s)"
    )


def check_target(base: str, allow_remote: bool) -> None:
    """Refuse anything but loopback unless told otherwise: a load test is a small attack."""
    host = urllib.parse.urlsplit(base).hostname or ""
    if allow_remote or host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise SystemExit(
        f"refusing to load-test {host!r}: only loopback by default; "
        "pass --allow-remote for a server of your own elsewhere"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", action="append",
                        help="server to test (default http://127.0.0.1:8000); repeat it for "
                        "several processes of one site: games are created on the first, and "
                        "the two players of a game connect to different ones")
    parser.add_argument("--full-history", action="store_true",
                        help="ask for the whole move list and board in every state (the "
                        "default opts in to deltas and board patches, as the bundled front "
                        "end does)")
    parser.add_argument("--games", type=int, default=100, help="concurrent online games")
    parser.add_argument("--seconds", type=float, default=15.0, help="length of the run")
    parser.add_argument(
        "--mix",
        action="append",
        help="game[:option=value,...] to play, repeatable; default: "
        + " and ".join(DEFAULT_MIX),
    )
    parser.add_argument("--moves-per-game", type=int, default=0,
                        help="stop each player after this many moves (0: no limit)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--server-pid", type=int, action="append", default=[],
                        help="a server process on this machine (repeatable): report the CPU "
                        "time it used per move")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--reference",
        action="store_true",
        help="also measure the engine's own speed (random actions/s of the first game of "
        "the mix, 2 s in this process) right after the run, as a yardstick of how busy "
        "the machine was",
    )
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow a server that is not on this machine (your own!)")


def run(args: argparse.Namespace) -> int:
    urls = [url.rstrip("/") for url in (args.url or ["http://127.0.0.1:8000"])]
    base = urls[0]
    for url in urls:
        check_target(url, args.allow_remote)
    if args.games < 1 or args.seconds <= 0:
        print("error: --games must be at least 1 and --seconds positive", file=sys.stderr)
        return 2
    try:
        mix = [GameSpec.parse(text) for text in (args.mix or DEFAULT_MIX)]
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    figures = asyncio.run(
        run_load(base, args.games, args.seconds, mix, args.seed, args.moves_per_game,
                 urls=urls, delta=not args.full_history, server_pids=args.server_pid)
    )
    if args.reference:
        figures["reference"] = engine_reference(mix[0])
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"{figures['games']} games for {figures['seconds']} s against {base}: "
            f"{figures['moves_per_s']} moves/s, p50 {figures['p50_ms']} ms, "
            f"p90 {figures['p90_ms']} ms, p99 {figures['p99_ms']} ms, "
            f"max {figures['max_ms']} ms; {figures['games_finished']} games finished; "
            f"errors {figures['errors']}, lost moves {figures['lost_moves']} "
            f"(of {figures['acknowledged']} acknowledged)"
        )
        if figures["server_cpu_ms_per_move"] is not None:
            print(f"server CPU: {figures['server_cpu_ms_per_move']} ms per move")
        if "reference" in figures:
            print(f"reference: {figures['reference']}")
        for sample in figures["error_samples"]:
            print(f"  error: {sample}")
    return 0 if figures["errors"] == 0 and figures["lost_moves"] == 0 else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="hexgames loadtest",
        description="Play many online games against a running hexgames server (loopback) "
        "and print moves/s, latency percentiles, errors and lost moves.",
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
