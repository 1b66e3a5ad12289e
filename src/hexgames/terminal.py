"""``hexgames play``: play any registered game in the terminal.

The terminal game knows games only through :mod:`hexgames.game` (``get_game`` and the
protocol): it draws boards with ``GAME.render_text``, reads actions in the game's notation
with ``position.play``, and saves records with ``GAME.write_record``, so a new game plays
here without a line changing.

A line of input is either a command (``help``, ``moves``, ``undo``, ``board``,
``save FILE``, ``quit``) or one or more actions separated by spaces, e.g. a whole turn
(``e3e4 e5e6``, ``d2-d6 +e5 end``). The actions of a line are played together: if one of
them is refused, the ones before it are taken back, so a typo never leaves half a turn on
the board. When a turn under way allows exactly one action (Dendria's ``end`` after a
plant with no follow-up), it is played for the player and said so.

The whole session runs on an input reader and an output stream, so tests script it with
:func:`run_session` and a list of lines.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import textwrap
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, ClassVar, TextIO

from hexgames.errors import IllegalAction
from hexgames.game import Game, GameState, game_names, get_game, parse_settings

__all__ = ["Session", "add_arguments", "line_reader", "run", "run_session"]

OPPONENTS = ("ai", "random", "human")
#: Reads one line after showing a prompt; ``None`` at the end of the input.
Reader = Callable[[str], str | None]

HELP = """\
Type the actions of your turn in the game's notation, separated by spaces, e.g. {example}.
Commands:
  moves       list every legal action
  board       show the board again
  undo        take back your last turn (and the opponent's reply)
  save FILE   write the game record to FILE
  help        show this help
  quit        leave the game"""


def make_opponent(game: Game, kind: str, level: int, seed: int | None) -> Any:
    """The computer player for ``--opponent`` (``None`` for hot-seat play).

    ``random`` is :class:`hexgames.ai.RandomPlayer`; ``ai`` is :func:`hexgames.ai.player`
    at the chosen level.
    """
    from hexgames.ai import RandomPlayer, player

    if kind == "human":
        return None
    if kind == "random":
        return RandomPlayer(seed)
    if kind != "ai":
        raise ValueError(f"unknown opponent {kind!r}; expected one of {', '.join(OPPONENTS)}")
    return player(game, level, seed=seed)


class Session:
    """One game in the terminal: the position, who sits where, and the dialogue."""

    def __init__(
        self,
        game: Game,
        position: GameState,
        output: TextIO,
        *,
        opponent: Any = None,
        human_seat: int = 0,
        color: bool = False,
        opponent_name: str = "computer",
    ) -> None:
        self.game = game
        self.position = position
        self.output = output
        self.opponent = opponent
        #: Seats played at this keyboard (both when there is no computer opponent).
        self.humans = {0, 1} if opponent is None else {human_seat}
        self.color = color
        self.opponent_name = opponent_name
        #: Points of the last actions played, highlighted on the next board drawn.
        self.last_points: tuple[str, ...] = ()
        self._seat_colors = self._colors_by_seat()

    # ------------------------------------------------------------------ output
    def say(self, text: str = "") -> None:
        print(text, file=self.output)

    def show_board(self) -> None:
        """Draw the board, the last actions' points highlighted.

        Both games' ``render_text`` take ``(position, highlights=(), *, color=False)``;
        ``color`` is passed only when asked for, so a game without colours still works.
        """
        options = {"color": True} if self.color else {}
        self.say(self.game.render_text(self.position, self.last_points, **options))

    def prompt(self) -> str:
        position = self.position
        if position.is_over:
            return "game over> "
        who = ""
        if self.opponent is not None:
            who = " (you)"
        return f"{position.to_move}{who}> "

    def _colors_by_seat(self) -> tuple[str, str]:
        return (self.position.color_of_seat(0), self.position.color_of_seat(1))

    def _notice_swap(self) -> None:
        """Say so when the seats' colours changed (Dendria's pie rule ``swap``)."""
        colors = self._colors_by_seat()
        if colors == self._seat_colors:
            return
        self._seat_colors = colors
        if self.opponent is None:
            self.say(f"The players swapped colours: the first player now plays {colors[0]}.")
        else:
            mine = colors[min(self.humans)]
            self.say(f"The colours were swapped: you now play {mine}.")

    # ------------------------------------------------------------------ loop
    def play(self, read: Reader) -> int:
        """Run the dialogue until the input ends or the player quits; the exit status."""
        self.say(f"{self.game.title}: type `help` for commands, `moves` for legal actions.")
        self.show_board()
        announced = self.position.is_over
        if announced:
            self.announce_result()
        while True:
            if not self.position.is_over and self.position.current_seat not in self.humans:
                self.computer_turn()
                self._notice_swap()
                continue
            if self.position.is_over and not announced:
                self.announce_result()
                announced = True
            line = read(self.prompt())
            if line is None:
                self.say("")
                self.say("Input ended; leaving the game.")
                return 0
            words = line.split()
            if not words:
                continue
            command = words[0].lower()
            if command in ("quit", "exit"):
                self.say("Bye.")
                return 0
            handler = self.COMMANDS.get(command)
            if handler is not None:
                handler(self, words[1:])
            else:
                self.play_line(words)
            self._notice_swap()
            announced = announced and self.position.is_over

    def computer_turn(self) -> None:
        """Let the computer play until it is a human's turn or the game ends."""
        position = self.position
        seat = position.current_seat
        color = position.to_move.capitalize()
        played = []
        points: list[str] = []
        while not position.is_over and position.current_seat == seat:
            with self._thinking(f"{color} ({self.opponent_name}) is thinking..."):
                action = self.opponent.choose(position)
            points.extend(self._points_of(action))
            position.play(action)
            played.append(str(action))
        self.last_points = tuple(points)
        self.say(f"{color} ({self.opponent_name}) plays: {' '.join(played)}")
        self.show_board()

    def _thinking(self, message: str) -> AbstractContextManager[Any]:
        """A spinner while the computer thinks (level 5 takes seconds), on terminals only."""
        if not self.output.isatty():
            return nullcontext()
        from rich.console import Console

        return Console(file=self.output).status(message)

    def play_line(self, words: list[str]) -> None:
        """Play the actions of one input line, all or none."""
        if self.position.is_over:
            self.say("The game is over: `undo` to take back, `save FILE`, or `quit`.")
            return
        position = self.position
        points: list[str] = []
        for played, word in enumerate(words):
            if position.is_over:
                self._take_back(played)
                self.say(f"The game ended before {word!r}; nothing was played from this line.")
                return
            if position.current_seat not in self.humans:
                self._take_back(played)
                self.say(
                    f"Your turn ends before {word!r}: type one turn at a time "
                    "(nothing was played from this line)."
                )
                return
            try:
                action = position.parse_action(word)
                step_points = self._points_of(action)
                position.play(action)
            except IllegalAction as error:
                self._take_back(played)
                taken = " (nothing was played from this line)" if played else ""
                reason = str(error).rstrip(".")
                self.say(f"Illegal: {reason}{taken}. Type `moves` to list the legal actions.")
                return
            points.extend(step_points)
        points.extend(self._play_forced())
        self.last_points = tuple(points)
        self.show_board()

    def _play_forced(self) -> list[str]:
        """Play actions that are the only possibility in a turn under way."""
        position = self.position
        points: list[str] = []
        while (
            not position.is_over
            and position.current_seat in self.humans
            and not position.is_turn_start()
        ):
            actions = position.legal_actions()
            if len(actions) != 1:
                break
            points.extend(self._points_of(actions[0]))
            position.play(actions[0])
            self.say(f"Only one action was possible, played for you: {actions[0]}")
        return points

    def _take_back(self, count: int) -> None:
        for _ in range(count):
            self.position.undo()

    def _points_of(self, action: Any) -> tuple[str, ...]:
        """The points an action names (its click gesture), to highlight it afterwards."""
        return tuple(self.game.gesture(self.position, action).points)

    def announce_result(self) -> None:
        position = self.position
        winner = position.winner
        if winner is None or winner == "draw":
            self.say("Game over: a draw.")
        else:
            line = f"Game over: {winner.capitalize()} wins."
            if self.opponent is not None:
                mine = position.seat_of(winner) in self.humans
                line += " You win!" if mine else f" The {self.opponent_name} wins."
            self.say(line)
        self.say("Type `save FILE` to keep the record, `undo` to take back, or `quit`.")

    # ------------------------------------------------------------------ commands
    def cmd_help(self, _args: list[str]) -> None:
        self.say(HELP.format(example=self._examples()))

    def _examples(self) -> str:
        """A few legal actions of different kinds (told apart by their gesture labels)."""
        if self.position.is_over:
            return "(none: the game is over)"
        by_kind: dict[str, str] = {}
        for action in sorted(self.position.legal_actions(), key=str):
            by_kind.setdefault(self.game.gesture(self.position, action).label, str(action))
        return ", ".join(f"`{text}`" for text in list(by_kind.values())[:4])

    def cmd_moves(self, _args: list[str]) -> None:
        if self.position.is_over:
            self.say("The game is over: there are no legal actions.")
            return
        names = sorted(str(action) for action in self.position.legal_actions())
        self.say(f"{len(names)} legal actions:")
        self.say(textwrap.fill("  ".join(names), width=78))

    def cmd_board(self, _args: list[str]) -> None:
        self.show_board()

    def cmd_undo(self, _args: list[str]) -> None:
        """Take back to the start of the latest turn of a human, at least one action."""
        position = self.position
        probe = position.copy()
        undone = 0
        while probe.history:
            probe.undo()
            undone += 1
            if probe.is_turn_start() and probe.current_seat in self.humans:
                break
        else:
            self.say("Nothing to undo.")
            return
        for _ in range(undone):
            position.undo()
        self.last_points = ()
        self.say(f"Took back {undone} action{'s' if undone != 1 else ''}.")
        self.show_board()

    def cmd_save(self, args: list[str]) -> None:
        if len(args) != 1:
            self.say("Usage: save FILE")
            return
        tags = {
            "Event": f"{self.game.title} terminal game",
            "Date": datetime.date.today().strftime("%Y.%m.%d"),
        }
        for seat, color in enumerate(self.game.colors):
            tags[color.capitalize()] = "human" if seat in self.humans else self.opponent_name
        try:
            text = self.game.write_record(self.position, tags)
            with open(args[0], "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as error:
            self.say(f"Could not save to {args[0]}: {error.strerror or error}.")
            return
        self.say(f"Saved the game record to {args[0]}.")

    COMMANDS: ClassVar[dict[str, Callable[[Session, list[str]], None]]] = {
        "help": cmd_help,
        "?": cmd_help,
        "moves": cmd_moves,
        "board": cmd_board,
        "undo": cmd_undo,
        "save": cmd_save,
    }


def choose_game(read: Reader, say: Callable[[str], None]) -> Game | None:
    """The menu shown when no game is named: pick one by number or name."""
    names = game_names()
    games = [get_game(name) for name in names]
    say("Which game?")
    for number, game in enumerate(games, start=1):
        say(f"  {number}. {game.title}")
    while True:
        answer = read(f"game [1-{len(games)}]> ")
        if answer is None:
            return None
        text = answer.strip().lower()
        if text.isdigit() and 1 <= int(text) <= len(games):
            return games[int(text) - 1]
        if text in names:
            return get_game(text)
        if text in ("quit", "exit"):
            return None
        say(f"Please answer a number from 1 to {len(games)} or a game name ({', '.join(names)}).")


def line_reader(lines: Iterable[str], output: TextIO, *, echo: bool = True) -> Reader:
    """A :data:`Reader` over given lines that writes each prompt (and, to make a readable
    transcript, each line read) to ``output``."""
    iterator = iter(lines)

    def read(prompt: str) -> str | None:
        output.write(prompt)
        line = next(iterator, None)
        if line is None:
            return None
        line = line.rstrip("\n")
        if echo:
            output.write(line)
        output.write("\n")
        return line

    return read


def run_session(
    game: Game | str | None,
    input_lines: Iterable[str],
    output: TextIO,
    *,
    opponent: str = "human",
    level: int = 2,
    color: str | None = None,
    settings: Iterable[str] = (),
    seed: int | None = None,
    ansi: bool = False,
    read: Reader | None = None,
) -> int:
    """Play a whole session from ``input_lines``, writing everything to ``output``.

    ``game`` may be ``None`` to show the game menu first. Returns the exit status (2 for
    bad options, which are explained on ``output``).
    """
    reader = read or line_reader(input_lines, output)

    def say(text: str) -> None:
        print(text, file=output)

    if game is None:
        game = choose_game(reader, say)
        if game is None:
            say("No game chosen.")
            return 0
    try:
        if isinstance(game, str):
            game = get_game(game)
        position = game.new(**parse_settings(game, settings))
        human_seat = _seat_of_color(game, color)
        computer = make_opponent(game, opponent, level, seed)
    except ValueError as error:
        say(f"error: {error}")
        return 2
    opponent_name = "random player" if opponent == "random" else "AI"
    if computer is not None:
        strength = f" (level {level})" if opponent_name == "AI" else ""
        say(f"You play {game.colors[human_seat]} against the {opponent_name}{strength}.")
    session = Session(
        game,
        position,
        output,
        opponent=computer,
        human_seat=human_seat,
        color=ansi,
        opponent_name=opponent_name,
    )
    return session.play(reader)


def _seat_of_color(game: Game, color: str | None) -> int:
    if color is None:
        return 0
    key = color.strip().lower()
    if key not in game.colors:
        raise ValueError(
            f"{game.title} is played by {' and '.join(game.colors)}; no colour {color!r}"
        )
    return game.colors.index(key)


# --------------------------------------------------------------------------- CLI


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "game", nargs="?", help=f"the game to play ({', '.join(game_names())}); "
        "a menu asks when omitted",
    )
    parser.add_argument(
        "--opponent", choices=OPPONENTS, default="ai",
        help="who plays the other side: the AI (default), a random player, or a second "
        "human at the same keyboard (hot-seat)",
    )
    parser.add_argument(
        "--level", type=int, default=2,
        help="AI strength, 1 (beginner) to 5 (strongest, seconds per move); default 2",
    )
    parser.add_argument(
        "--color", help="the colour you play (default: the colour that acts first)"
    )
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE",
        help="a rules option, e.g. --set max_turns=100 (repeatable)",
    )
    parser.add_argument("--seed", type=int, help="seed for the computer's choices")
    parser.add_argument(
        "--no-color", action="store_true", help="no colours, even on a terminal"
    )


def _stdin_reader() -> Reader:
    """Read from the keyboard with line editing, or from piped input with an echo."""
    if sys.stdin.isatty():

        def read(prompt: str) -> str | None:
            try:
                return input(prompt)
            except EOFError:
                return None

        return read
    return line_reader(sys.stdin, sys.stdout)


def run(args: argparse.Namespace) -> int:
    if args.game is not None and args.game.strip().lower() not in game_names():
        print(f"error: unknown game {args.game!r}; known games: {', '.join(game_names())}",
              file=sys.stderr)
        return 2
    try:
        return run_session(
            args.game,
            (),
            sys.stdout,
            opponent=args.opponent,
            level=args.level,
            color=args.color,
            settings=args.settings,
            seed=args.seed,
            ansi=sys.stdout.isatty() and not args.no_color,
            read=_stdin_reader(),
        )
    except KeyboardInterrupt:
        print("\nInterrupted; leaving the game.")
        return 130
    except BrokenPipeError:
        # Whoever read our output went away (``| head``): leave without a traceback.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - absorbs the final flush
        return 1
