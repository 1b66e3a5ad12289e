"""Dendria game records: tag lines, then one numbered line per turn.

::

    [Game "Dendria"]
    [Size "7"]
    [Pie "on"]
    [QuietLimit "10"]
    [Dark "Ann"]
    [Light "Bob"]
    [Date "2026.11.30"]
    [Result "0-1"]
    [Termination "both passed"]

    1. g7 end
    2. swap
    3. f5 ^e4 end

``Result`` is in seat order (``1-0``: the player who moved first won, ``0-1``,
``1/2-1/2``, ``*`` while the game goes on) and ``Termination`` says why the game ended
(:class:`~hexgames.dendria.Termination`); both come from
:func:`hexgames.game.outcome_tags`. Records of older versions, whose ``Result`` is the
winning colour (``dark``, ``light``, ``draw``), still read. A blank line separates the
tags from the turns.

Every finished turn is written with its closing ``end`` (or ``pass``/``swap``); when
reading, a line without one is ended as if ``end`` followed, so ``1. g7`` reads too. A
turn still in progress is written last, followed by ``...``. A game that did not start
from the empty board carries its start position in a ``[Start "..."]`` tag (the text
format's lines joined by `` / ``). Reading replays every step, so a record that breaks
a rule is refused with an error naming the turn.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping

from hexgames.dendria.position import Position
from hexgames.dendria.rules import Rules
from hexgames.dendria.steps import parse_steps
from hexgames.errors import IllegalAction
from hexgames.game import CommonTermination, outcome_tags, reason_of, word
from hexgames.phrases import Phrase

_TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]$')
_TURN = re.compile(r"^(\d{1,9})\.\s*(.*)$")
_UNFINISHED = "..."
_SEPARATOR = " / "
#: Tags the writer derives from the position; callers' values for these are ignored.
_DERIVED = ("Game", "Size", "Pie", "QuietLimit", "Start")
#: Tags stating the outcome: derived from the position when the rules ended the game,
#: else the caller's (a resignation or timeout the engine cannot know).
_OUTCOME = ("Result", "Termination")
_OUTSIDE = frozenset(t.value for t in CommonTermination)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _outside_outcome(result: str, termination: str | None) -> Phrase | None:
    """Why ``Result``/``Termination`` cannot describe a game the rules have not ended
    (``None`` when they can: no result, an ending decided outside the rules with a winner,
    or a draw called because the opponent left)."""
    if result == "*" and termination is None:
        return None
    if result in ("1-0", "0-1") and termination in _OUTSIDE:
        return None
    if result == "1/2-1/2" and termination == CommonTermination.OPPONENT_LEFT.value:
        return None
    return Phrase(
        "Result {result} with Termination {termination} does not fit a game the rules "
        "have not ended: write Result * (no Termination), or 1-0/0-1 with Termination "
        "{allowed}", result=repr(result), termination=repr(termination),
        allowed=" or ".join(sorted(_OUTSIDE)),
    )


def write_record(position: Position, tags: Mapping[str, str] | None = None) -> str:
    """The record of ``position``'s history from its start.

    ``tags`` adds or overrides descriptive tags (``Dark``, ``Light``, ``Date``, ``Event``,
    ...). ``Date`` defaults to today (UTC). Tags that follow from the game itself
    (``Game``, the options, ``Start``) are always derived from the position.
    ``Result``/``Termination`` come from :func:`hexgames.game.outcome_tags` of
    ``position.outcome()`` when the rules ended the game (whatever ``tags`` say); for a
    game still going on, ``tags`` may state a resignation or timeout
    (``{"Result": "0-1", "Termination": "resignation"}``), else ``Result`` is ``*``.
    A record can never contradict its moves: ``ValueError`` for tags that would.
    """
    if not isinstance(position, Position):
        raise ValueError(f"write_record needs a Dendria Position, got {type(position).__name__}")
    rules = position.rules
    out: dict[str, str] = {
        "Game": "Dendria",
        "Size": str(rules.board_side),
        "Pie": "on" if rules.pie else "off",
        "QuietLimit": str(rules.quiet_limit),
    }
    if tags is not None and not isinstance(tags, Mapping):
        raise ValueError(f"tags must be a mapping of tag names to values, got {tags!r}")
    extra = dict(tags or {})
    for name in extra:
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
            raise ValueError(f"tag name {name!r} must be a word (letters, digits, _)")
    extra.setdefault("Date", _dt.datetime.now(_dt.UTC).strftime("%Y.%m.%d"))
    out.update({k: str(v) for k, v in extra.items() if k not in _DERIVED + _OUTCOME})
    if position.start_text != Position.initial(rules).to_text():
        out["Start"] = _SEPARATOR.join(position.start_text.strip().splitlines())
    outcome = position.outcome()
    if outcome is None and any(name in extra for name in _OUTCOME):
        result = str(extra.get("Result", "*")).strip()
        termination = extra.get("Termination")
        termination = None if termination is None else str(termination).strip().lower()
        problem = _outside_outcome(result, termination)
        if problem:
            raise ValueError(Phrase("cannot write the record: {problem}", problem=problem))
        out["Result"] = result
        if termination is not None:
            out["Termination"] = termination
    else:
        out.update(outcome_tags(outcome))
    lines = [f'[{name} "{_escape(value)}"]' for name, value in out.items()]
    lines.append("")
    turn: list[str] = []
    number = 1
    for step, ends in zip(position.history, position.turn_ends(), strict=True):
        turn.append(str(step))
        if ends:
            lines.append(f"{number}. {' '.join(turn)}")
            number += 1
            turn = []
    if turn:
        lines.append(f"{number}. {' '.join(turn)} {_UNFINISHED}")
    return "\n".join(lines) + "\n"


def _bool_tag(value: str) -> bool:
    text = value.strip().lower()
    if text in ("on", "true", "yes", "1"):
        return True
    if text in ("off", "false", "no", "0"):
        return False
    raise ValueError(Phrase("tag Pie must be on or off, got {value}", value=repr(value)))


def _int_tag(name: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ValueError(Phrase("tag {name} must be an integer, got {value}",
                                name=name, value=repr(value))) from None


def read_record(text: str) -> tuple[Position, dict[str, str]]:
    """Replay a record: the position at its end and its tags.

    Raises ``ValueError`` (an :class:`~hexgames.IllegalAction` for a refused step) naming
    the line or turn at fault, and when the ``Result`` tag contradicts the replay.
    """
    if isinstance(text, (bytes, bytearray)):
        raise ValueError(Phrase("a Dendria record must be text (str), not bytes: decode it "
                                "first"))
    if not isinstance(text, str):
        raise ValueError(Phrase("a Dendria record must be text (str), got {type}",
                                type=type(text).__name__))
    tags: dict[str, str] = {}
    turns: list[tuple[int, str, int]] = []
    for line_number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        tag = _TAG.match(line)
        if tag:
            if turns:
                raise ValueError(Phrase("line {line}: tag {tag} after the moves",
                                        line=line_number, tag=tag.group(1)))
            tags[tag.group(1)] = _unescape(tag.group(2))
            continue
        turn = _TURN.match(line)
        if not turn:
            raise ValueError(Phrase("line {line}: expected a tag or a numbered turn: {text}",
                                    line=line_number, text=repr(line)))
        turns.append((int(turn.group(1)), turn.group(2).strip(), line_number))
    if tags.get("Game", "Dendria").lower() != "dendria":
        raise ValueError(Phrase("not a Dendria record (Game is {game})",
                                game=repr(tags["Game"])))
    rules = Rules(
        board_side=_int_tag("Size", tags.get("Size", "7")),
        pie=_bool_tag(tags.get("Pie", "on")),
        quiet_limit=_int_tag("QuietLimit", tags.get("QuietLimit", "10")),
    )
    if "Start" in tags:
        start = "\n".join(part.strip() for part in tags["Start"].split("/"))
        position = Position.from_text(start, rules)
    else:
        position = Position.initial(rules)
    for expected, (number, body, line_number) in enumerate(turns, start=1):
        if number != expected:
            raise ValueError(Phrase("line {line}: turn {number} where turn {expected} belongs",
                                    line=line_number, number=number, expected=expected))
        if position.is_over:
            raise ValueError(Phrase("turn {number}: the game was already over ({reason})",
                                    number=number, reason=word(str(position.end_reason))))
        unfinished = body.endswith(_UNFINISHED)
        if unfinished:
            if expected != len(turns):
                raise ValueError(Phrase("turn {number}: only the last turn may be unfinished "
                                        "(...)", number=number))
            body = body[: -len(_UNFINISHED)].strip()
        try:
            if unfinished:
                steps = parse_steps(body)
                for step in steps:
                    position.play(step)
            else:
                position.play_turn(body)
        except IllegalAction as error:
            raise IllegalAction("turn {number} ({turn}): {reason}", number=number, turn=body,
                                reason=reason_of(error)) from None
    _check_outcome_tags(position, tags)
    return position, tags


def _check_outcome_tags(position: Position, tags: Mapping[str, str]) -> None:
    """Refuse ``Result``/``Termination`` tags that contradict the replayed game."""
    claimed = tags.get("Result", "*").strip().lower()
    termination = tags.get("Termination")
    said = None if termination is None else termination.strip().lower()
    outcome = position.outcome()
    if outcome is None:
        if claimed not in ("*", "1-0", "0-1", "1/2-1/2"):
            raise ValueError(Phrase(
                "the Result tag says {claimed} but replaying the turns gives '*' "
                "(the game is not over)", claimed=repr(claimed),
            ))
        problem = _outside_outcome(claimed, said)
        if problem:
            raise ValueError(Phrase("the game is not over: {problem}", problem=problem))
        return
    # Old records give the winning colour; new ones the result in seat order.
    accepted = {"*", outcome.result(), position.winner}
    if claimed not in accepted:
        raise ValueError(Phrase(
            "the Result tag says {claimed} but replaying the turns gives {result} ({outcome})",
            claimed=repr(claimed), result=repr(outcome.result()), outcome=outcome.phrase(),
        ))
    if said is not None and said != outcome.termination.value:
        raise ValueError(Phrase(
            "the Termination tag says {said} but the game ended by {termination}",
            said=repr(said), termination=repr(outcome.termination.value),
        ))
