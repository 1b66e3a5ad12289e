"""Game records: PGN-like plain text that replays to the same final position.

::

    [Game "Benediction"]
    [Red "alice"]
    [Blue "bob"]
    [MaxTurns "200"]
    [Result "1-0"]
    [Termination "blessed king"]

    1. e3e4  2. f8f7 @f8  3. e4e5 Bc2

* One tag per non-default rules option (``BoardSide``, ``FirstTurnActions``,
  ``MaxStack``, ``Supply``, ``MaxTurns``; the snake_case option names and a
  ``[Variant "max_turns=200 supply=5"]`` summary are read too).
* ``[Start "..."]`` holds the board text of a non-standard start, its lines joined by
  ``" / "``. Tag values escape ``\\`` and ``"`` with a backslash; a line break in a
  value becomes a space (a tag is one line).
* Turns are numbered from 1; each holds the one or two actions of one player's turn.
* ``Result`` is in seat order (``1-0`` Red won, ``0-1`` Blue won, ``1/2-1/2`` a draw by
  the turn cap, ``*`` not decided) and ``Termination`` holds the :class:`Termination`
  words (:func:`hexgames.game.outcome_tags`). The older colour form (``[Result "red"]``)
  is still read.

Reading replays every action through :meth:`Position.play`, so a record can only
describe legal games; errors name the turn number and the action.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hexgames.benediction._refusal import color_word
from hexgames.benediction.position import Position
from hexgames.benediction.rules import OPTIONS, Rules
from hexgames.errors import IllegalAction
from hexgames.game import outcome_tags, parse_option_value, reason_of
from hexgames.phrases import Phrase

GAME_NAME = "Benediction"
_TAG_OF_OPTION = {
    "board_side": "BoardSide",
    "first_turn_actions": "FirstTurnActions",
    "max_stack": "MaxStack",
    "supply": "Supply",
    "max_turns": "MaxTurns",
}
_OPTION_BY_KEY = {name.replace("_", ""): name for name in _TAG_OF_OPTION}
_OPTIONS = {option.name: option for option in OPTIONS}
_TAG_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TAG_LINE = re.compile(r'\[\s*([A-Za-z_][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_TURN_NUMBER = re.compile(r"(\d+)\.(.*)")
#: Result tag values -> the winner they state (``None``: not decided).
_RESULTS = {
    "1-0": "red", "0-1": "blue", "1/2-1/2": "draw", "*": None,
    "red": "red", "blue": "blue", "draw": "draw",
}
_WRAP = 80


def _escape(value: str) -> str:
    return " ".join(value.replace("\\", "\\\\").replace('"', '\\"').splitlines())


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def write_record(position: Position, tags: Mapping[str, str] | None = None) -> str:
    """The record of ``position``'s history from its start.

    ``tags`` (e.g. ``Red``, ``Blue``, ``Date``, ``Event``) are written after ``Game``.
    ``Start`` and the rules options are derived from the position and override tags of
    the same name. ``Result`` and ``Termination`` come from ``position.outcome()``
    (:func:`hexgames.game.outcome_tags`) unless ``tags`` supply them: that is how a
    resignation or a timeout, which the engine does not know, is recorded
    (``{"Result": "0-1", "Termination": "resignation"}``). A supplied ``Result`` that
    contradicts a game the rules have decided is refused (``ValueError``), since such a
    record could not be read back.
    """
    if tags is None:
        tags = {}
    if not isinstance(tags, Mapping):
        raise ValueError(Phrase("record tags must be a mapping of names to values, got {tags}",
                                tags=repr(tags)))
    if not isinstance(position, Position):
        raise ValueError(Phrase("not a Benediction position: {position}",
                                position=repr(position)))
    derived = {"Game", "Result", "Termination", "Start", "Variant", *_TAG_OF_OPTION.values()}
    lines = [f'[Game "{GAME_NAME}"]']
    for name, value in tags.items():
        if not isinstance(name, str) or not _TAG_NAME.fullmatch(name):
            raise ValueError(Phrase("record tag names are letters, digits and '_', got {name}",
                                    name=repr(name)))
        if name not in derived:
            lines.append(f'[{name} "{_escape(str(value))}"]')
    for option, value in position.rules.non_default().items():
        lines.append(f'[{_TAG_OF_OPTION[option]} "{"off" if value is None else value}"]')
    start = position.start_text
    if start is not None and start != Position.initial(position.rules).to_text():
        lines.append(f'[Start "{_escape(" / ".join(start.splitlines()))}"]')
    ending = outcome_tags(position.outcome())
    for name in ("Result", "Termination"):
        if name in tags:
            ending[name] = str(tags[name])
    claimed = ending["Result"].strip().lower()
    if claimed not in _RESULTS:
        raise ValueError(Phrase("[Result {result}]: expected one of {results}",
                                result=repr(ending["Result"]), results=", ".join(_RESULTS)))
    if position.is_over and _RESULTS[claimed] != position.winner:
        raise ValueError(Phrase(
            "[Result {result}] contradicts the game, which ended with {winner} ({reason})",
            result=repr(ending["Result"]), winner=_winner_word(position.winner),
            reason=_reason_word(position.win_reason),
        ))
    for name, value in ending.items():
        lines.append(f'[{name} "{_escape(value)}"]')
    lines.append("")  # a blank line ends the tag block
    lines.extend(_movetext(position))
    return "\n".join(lines) + "\n"


def _movetext(position: Position) -> list[str]:
    turns: list[str] = []
    current: list[str] = []
    for action, ends in zip(position.history, position.turn_ends(), strict=True):
        current.append(str(action))
        if ends:
            turns.append(f"{len(turns) + 1}. {' '.join(current)}")
            current = []
    if current:
        turns.append(f"{len(turns) + 1}. {' '.join(current)}")
    out: list[str] = []
    line = ""
    for turn in turns:
        if line and len(line) + 2 + len(turn) > _WRAP:
            out.append(line)
            line = ""
        line = f"{line}  {turn}" if line else turn
    if line:
        out.append(line)
    return out


def read_record(text: str) -> tuple[Position, dict[str, str]]:
    """Replay a record: ``(position at the end, tags)``.

    Raises ``ValueError`` for a text that is not a string, malformed tags or rules
    options, and :class:`IllegalAction` (a ``ValueError``) naming the turn number and
    action for a refused action. A ``Result`` tag is checked against the replay when the
    replayed game is over; before that it may state an adjudicated result (a
    resignation), which :func:`hexgames.game.outcome_from_tags` turns into an outcome.
    """
    if not isinstance(text, str):
        raise ValueError(Phrase("a game record must be text (str), got {type}",
                                type=type(text).__name__))
    tags: dict[str, str] = {}
    body: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("[") and not body:
            match = _TAG_LINE.fullmatch(line)
            if match is None:
                raise ValueError(Phrase("record line {number}: malformed tag {tag}",
                                        number=number, tag=repr(line)))
            tags[match[1]] = _unescape(match[2])
        elif line:
            body.append(line)
    game = tags.get("Game", GAME_NAME)
    if game.strip().lower() != GAME_NAME.lower():
        raise ValueError(Phrase("not a Benediction record: [Game {game}]", game=repr(game)))
    rules = Rules(**_options_from_tags(tags))
    if "Start" in tags:
        try:
            position = Position.from_text("\n".join(tags["Start"].split("/")), rules)
        except ValueError as exc:
            raise ValueError(Phrase("[Start] tag: {reason}", reason=reason_of(exc))) from None
    else:
        position = Position.initial(rules)
    _replay(position, " ".join(body).split())
    result = tags.get("Result", "*").strip().lower()
    if result not in _RESULTS:
        raise ValueError(Phrase("[Result {result}]: expected one of {results}",
                                result=repr(tags["Result"]), results=", ".join(_RESULTS)))
    if result != "*" and position.is_over and position.winner != _RESULTS[result]:
        raise ValueError(Phrase("[Result {result}] contradicts the moves, which end with {winner}",
                                result=repr(tags["Result"]),
                                winner=_winner_word(position.winner)))
    return position, tags


def _winner_word(winner: str | None) -> Phrase | str:
    """How a record error names the winner: ``red``/``blue``/``draw`` as words."""
    return Phrase("draw") if winner == "draw" else color_word(str(winner))


def _reason_word(reason: str | None) -> Phrase | str:
    return str(reason) if reason is None else Phrase(reason)


def _options_from_tags(tags: Mapping[str, str]) -> dict[str, Any]:
    raw: dict[str, str] = {}
    variant = tags.get("Variant", "").strip()
    if variant and variant.lower() != "standard":
        for pair in variant.replace(",", " ").split():
            name, sep, value = pair.partition("=")
            if not sep:
                raise ValueError(Phrase("[Variant {variant}]: expected option=value pairs",
                                        variant=repr(variant)))
            raw[name] = value
    for name, value in tags.items():
        raw[name] = value
    options: dict[str, Any] = {}
    for name, value in raw.items():
        option = _OPTION_BY_KEY.get(name.replace("_", "").lower())
        if option is None:
            continue
        try:
            options[option] = parse_option_value(_OPTIONS[option], value)
        except ValueError as exc:
            raise ValueError(Phrase("record tag {name}: {reason}", name=name,
                                    reason=reason_of(exc))) from None
    return options


def _replay(position: Position, tokens: list[str]) -> None:
    """Play the movetext tokens, checking turn numbers and turn boundaries."""
    turn = 0
    in_turn: list[str] = []
    for index, token in enumerate(tokens):
        match = _TURN_NUMBER.fullmatch(token)
        if match is not None:
            number = int(match[1])
            if number != turn + 1:
                raise ValueError(Phrase("turn {number} follows turn {turn}: expected {next}",
                                        number=number, turn=turn, next=turn + 1))
            if turn and in_turn and not position.is_turn_start() and not position.is_over:
                raise ValueError(Phrase(
                    "turn {turn} ends after {count} action(s): {color} still has an action to "
                    "play", turn=turn, count=len(in_turn), color=color_word(position.to_move),
                ))
            turn = number
            in_turn = []
            token = match[2]
            if not token:
                continue
        if token.lower() in _RESULTS and index == len(tokens) - 1:
            break
        if turn == 0:
            raise ValueError(Phrase("action {action} before turn number '1.'",
                                    action=repr(token)))
        if in_turn and position.is_turn_start():
            raise ValueError(Phrase("turn {turn}, action {action}: the turn already ended",
                                    turn=turn, action=repr(token)))
        try:
            position.play(token)
        except IllegalAction as exc:
            raise IllegalAction("turn {turn}, action {action}: {reason}", turn=turn,
                                action=repr(token), reason=exc.phrase) from None
        in_turn.append(token)
