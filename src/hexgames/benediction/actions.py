"""Benediction actions as immutable values, and their notation (rules section 7).

``e3e4`` move · ``@e3`` drop · ``Bc2`` block · ``f8+f7`` merge · ``f4-1-f5`` split.

An :class:`Action` only names points by label; it does not know a board. Whether it is
legal (or even on the board) is decided by :meth:`Position.play`. Actions are created in
the engine's hot loop, so the engine reuses cached instances per board
(:func:`cached`) instead of constructing new ones: equal actions are interchangeable,
and the hash is computed once.
"""

from __future__ import annotations

import re
from typing import Any

from hexgames.errors import IllegalAction
from hexgames.phrases import Phrase, nphrase

KINDS: tuple[str, ...] = ("move", "merge", "split", "drop", "block")
#: The most checkers a split can take (one less than the largest ``max_stack``).
MAX_SPLIT = 14
_MAX_COUNT_DIGITS = 2
_LABEL = re.compile(r"[a-z]\d+")
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("drop", re.compile(r"@([a-z]\d+)")),
    ("block", re.compile(r"b([a-z]\d+)")),
    ("move", re.compile(r"([a-z]\d+)([a-z]\d+)")),
    ("merge", re.compile(r"([a-z]\d+)\+([a-z]\d+)")),
    ("split", re.compile(r"([a-z]\d+)-(\d+)-([a-z]\d+)")),
)


class Action:
    """One action: ``kind`` (``move``/``merge``/``split``/``drop``/``block``), ``origin``
    (label, ``None`` for drop and block), ``target`` (label) and ``count`` (checkers split
    off; 0 for every other kind).

    Immutable and hashable; equality compares the four public attributes only.
    """

    __slots__ = ("_hash", "count", "kind", "origin", "target")

    _hash: int
    kind: str
    origin: str | None
    target: str
    count: int

    def __init__(self, kind: str, origin: str | None, target: str, count: int = 0) -> None:
        if kind not in KINDS:
            raise IllegalAction("unknown action kind {kind}; expected one of {kinds}",
                                kind=repr(kind), kinds=str(KINDS))
        target = _label(target, "target")
        if kind in ("drop", "block"):
            if origin is not None:
                raise IllegalAction(Phrase("a drop has no origin point, got {origin}",
                                           origin=repr(origin)) if kind == "drop" else
                                    Phrase("a block has no origin point, got {origin}",
                                           origin=repr(origin)))
        else:
            origin = _label(origin, "origin")
        if kind == "split":
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise IllegalAction("a split takes at least 1 checker, got {count}",
                                    count=repr(count))
        elif count != 0:
            raise IllegalAction("only a split has a checker count, got {count} for a {kind}",
                                count=repr(count), kind=kind)
        _init(self, kind, origin, target, count)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Action is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Action is immutable")

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Action):
            return NotImplemented
        return (
            self.kind == other.kind
            and self.target == other.target
            and self.origin == other.origin
            and self.count == other.count
        )

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (Action, (self.kind, self.origin, self.target, self.count))

    def __str__(self) -> str:
        kind = self.kind
        if kind == "move":
            return f"{self.origin}{self.target}"
        if kind == "merge":
            return f"{self.origin}+{self.target}"
        if kind == "split":
            return f"{self.origin}-{self.count}-{self.target}"
        if kind == "drop":
            return f"@{self.target}"
        return f"B{self.target}"

    def __repr__(self) -> str:
        return f"Action({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read notation case-insensitively (``E3E4``, ``bc2``, ``f4-1-f5`` ...).

        Raises :class:`IllegalAction` naming the text when it is not an action. Only the
        form is checked: whether the points exist is up to the position.
        """
        if not isinstance(text, str):
            raise IllegalAction("an action must be given as text, got {text}", text=repr(text))
        clean = text.strip().lower()
        for kind, pattern in _PATTERNS:
            match = pattern.fullmatch(clean)
            if match is None:
                continue
            groups = match.groups()
            if kind in ("drop", "block"):
                return cls(kind, None, groups[0])
            if kind == "split":
                digits = groups[1].lstrip("0") or "0"
                if len(digits) > _MAX_COUNT_DIGITS:
                    raise IllegalAction(
                        "{text}: split count too large (a split takes 1 to {most} checkers)",
                        text=_show(text), most=MAX_SPLIT,
                    )
                count = int(digits)
                if count < 1:
                    raise IllegalAction("{text}: a split takes at least 1 checker",
                                        text=_show(text))
                return cls(kind, groups[0], groups[2], count)
            return cls(kind, groups[0], groups[1])
        raise IllegalAction(
            "{text} is not an action; write e3e4 (move), @e3 (drop), "
            "Bc2 (block), f8+f7 (merge) or f4-1-f5 (split)", text=_show(text),
        )


def _init(action: Action, kind: str, origin: str | None, target: str, count: int) -> None:
    """Fill the slots of a new action (bypassing the immutability guard)."""
    set_ = object.__setattr__
    set_(action, "kind", kind)
    set_(action, "origin", origin)
    set_(action, "target", target)
    set_(action, "count", count)
    set_(action, "_hash", hash((kind, origin, target, count)))


def _show(text: str, limit: int = 40) -> str | Phrase:
    """``repr`` of user input for a message, shortened when long."""
    text = text.strip()
    if len(text) <= limit:
        return repr(text)
    return nphrase("{text}... ({n} char)", "{text}... ({n} chars)", len(text),
                          text=repr(text[:limit]))


def _label(value: Any, role: str) -> str:
    if not isinstance(value, str):
        raise IllegalAction(Phrase("the origin must be a point label such as 'e3', got {value}",
                                   value=repr(value)) if role == "origin" else
                            Phrase("the target must be a point label such as 'e3', got {value}",
                                   value=repr(value)))
    label = value.strip().lower()
    if not _LABEL.fullmatch(label) or label[1] == "0":
        raise IllegalAction("{value} is not a point label (column letter and row, e.g. 'e3')",
                            value=repr(value))
    return label


def cached(
    cache: dict[int, Action], code: int, kind: str, origin: str | None, target: str, count: int
) -> Action:
    """The shared instance for ``code`` (the engine's integer id of the action), creating it
    on first use. Skips validation: the engine only passes labels of its own board."""
    action = cache.get(code)
    if action is None:
        action = object.__new__(Action)
        _init(action, kind, origin, target, count)
        action = cache.setdefault(code, action)  # two threads at once: one instance
    return action
