"""Dendria steps: the smallest actions a player takes, and their notation.

A Dendria turn is a sequence of steps (a plant or a dendrid leg, follow-ups, dendrid
continuations, then ``end``), so the engine, the AI and the web board all work step by
step; a whole turn is just the steps written on one line (``d2-d6 +e5 -d8 =f6``).

========== ========== ===============================================
kind       notation   meaning
========== ========== ===============================================
plant      ``e5``     put a seed of one's colour on e5
leg        ``d2-d6``  first leg of a dendrid move, from d2 to d6
continue   ``-d8``    the moving dendrid continues straight on to d8
sprout     ``^e5``    the seed on e5 becomes a dendrid
grow       ``+e6``    the seedbed containing e6 becomes trees
convert    ``=f6``    the enemy forest containing f6 changes colour
end        ``end``    end the turn
pass       ``pass``   pass the whole turn
swap       ``swap``   pie rule: exchange colours (Light's first turn)
========== ========== ===============================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hexgames.dendria._words import step_word
from hexgames.errors import IllegalAction
from hexgames.phrases import N_, Phrase

#: Every step kind, in the order the table above lists them.
KINDS: tuple[str, ...] = (
    "plant", "leg", "continue", "sprout", "grow", "convert", "end", "pass", "swap",
)
#: Follow-up kinds and the prefix that marks each in the notation.
PREFIXES: dict[str, str] = {"continue": "-", "sprout": "^", "grow": "+", "convert": "="}
_KIND_OF_PREFIX = {prefix: kind for kind, prefix in PREFIXES.items()}
_WORDS = ("end", "pass", "swap")
_LABEL = re.compile(r"[a-y][1-9][0-9]?")


#: How :func:`_check_label` names the part of a step it reads.
_PARTS: dict[str, str] = {
    # i18n: the cell a Dendria step goes to or names
    "target": N_("target"),
    # i18n: the cell a dendrid move starts from
    "origin": N_("origin"),
    "cell": N_("cell"),
}


def _check_label(label: object, what: str, text: str) -> str:
    if not isinstance(label, str) or not _LABEL.fullmatch(label.strip().lower()):
        raise IllegalAction(
            "cannot read step {text}: {part} {label} is not a cell name such as e5",
            text=repr(text), part=Phrase(_PARTS[what]), label=repr(label),
        )
    return label.strip().lower()


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a Dendria turn (immutable, hashable, ``str()`` is its notation).

    ``origin`` is set only for a ``leg`` (the dendrid's starting cell); ``target`` is the
    cell a plant, leg, continuation or follow-up names, and ``None`` for ``end``,
    ``pass`` and ``swap``. Labels are stored in lower case. Whether a step is *legal*
    is for a :class:`~hexgames.dendria.position.Position` to decide; a ``Step`` only
    guarantees that it is well formed.
    """

    kind: str
    origin: str | None = None
    target: str | None = None

    def __post_init__(self) -> None:
        text = f"{self.kind} {self.origin or ''} {self.target or ''}".strip()
        if self.kind not in KINDS:
            raise IllegalAction("unknown step kind {kind}; expected one of {kinds}",
                                kind=repr(self.kind), kinds=str(KINDS))
        if self.kind in _WORDS:
            if self.origin is not None or self.target is not None:
                raise IllegalAction("step {kind} takes no cell", kind=repr(self.kind))
            return
        object.__setattr__(self, "target", _check_label(self.target, "target", text))
        if self.kind == "leg":
            object.__setattr__(self, "origin", _check_label(self.origin, "origin", text))
            if self.origin == self.target:
                raise IllegalAction("cannot read step {text}: a leg must leave its cell",
                                    text=repr(text))
        elif self.origin is not None:
            raise IllegalAction("a {kind} step has no origin cell (got {origin})",
                                kind=step_word(self.kind), origin=repr(self.origin))

    def __str__(self) -> str:
        if self.kind in _WORDS:
            return self.kind
        if self.kind == "plant":
            return str(self.target)
        if self.kind == "leg":
            return f"{self.origin}-{self.target}"
        return f"{PREFIXES[self.kind]}{self.target}"

    def __repr__(self) -> str:
        return f"Step({str(self)!r})"

    @classmethod
    def parse(cls, text: str | Step) -> Step:
        """Read one step's notation (case-insensitive, surrounding spaces ignored).

        Raises :class:`~hexgames.IllegalAction` naming what could not be read.
        """
        if isinstance(text, Step):
            return text
        if not isinstance(text, str):
            raise IllegalAction("a step must be written as text, got {text}", text=repr(text))
        raw = text.strip().lower()
        if not raw:
            raise IllegalAction("cannot read an empty step")
        if raw in _WORDS:
            return cls(raw)
        if raw[0] in _KIND_OF_PREFIX:
            return cls(_KIND_OF_PREFIX[raw[0]], target=_check_label(raw[1:], "cell", text))
        if "-" in raw:
            origin, _, target = raw.partition("-")
            return cls(
                "leg",
                origin=_check_label(origin, "origin", text),
                target=_check_label(target, "target", text),
            )
        if not _LABEL.fullmatch(raw):
            raise IllegalAction(
                "cannot read step {text}: expected a cell (e5), a dendrid move (d2-d6), "
                "a continuation (-d8), a follow-up (^e5, +e6, =f6), end, pass or swap",
                text=repr(text),
            )
        return cls("plant", target=raw)


def parse_steps(text: str) -> list[Step]:
    """Read the steps of one turn written on a line (``"d2-d6 +e5 -d8"``)."""
    if not isinstance(text, str):
        raise IllegalAction("a turn must be written as text, got {text}", text=repr(text))
    return [Step.parse(word) for word in text.split()]
