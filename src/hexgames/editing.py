"""The board editor's protocol: what a game lets a person place, and how an edited board
becomes the game's position text.

A game offers an editor through ``Game.editor`` (``editor(rules) -> EditorSpec``). The
web board editor builds its palette, its piece attributes and its settings form from the
spec alone, so it contains no game knowledge: a board being edited is plain data,

* ``cells``: ``{label: {"piece": kind_id, attribute: value, ...}}`` (empty cells absent),
* ``settings``: ``{setting_name: value}`` (side to act, actions left, pie state...),

which :meth:`EditorSpec.write` turns into the game's position text (then read by
``Game.position_from_text``, whose ``ValueError`` is the validation message shown), and
:meth:`EditorSpec.read` reads back from a text. :func:`check_board` checks the plain data
against the spec (kinds, attribute types and ranges) before the game sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hexgames.game import reason_of, word
from hexgames.phrases import Phrase

#: Cells: ``{label: {"piece": kind id, attribute: value}}``.
Cells = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Field:
    """An attribute of a piece (size, king...) or a setting of the board (side to act).

    ``kind`` is ``"int"`` (``minimum``..``maximum``), ``"bool"``, ``"choice"`` (one of
    ``choices``) or ``"text"`` (a short word, e.g. a point label). ``label`` and ``help``
    are words for people: a game marks them with ``N_`` so that the editor page can show
    them in the reader's language (:meth:`describe` takes the translation).
    """

    name: str
    label: str
    kind: str
    default: Any
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    help: str = ""

    def check(self, value: Any) -> Any:
        """``value`` if valid for this field, else ``ValueError`` naming the field."""
        named = word(self.label)
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(Phrase("{field} must be true or false, got {value}",
                                        field=named, value=repr(value)))
        elif self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(Phrase("{field} must be a whole number, got {value}",
                                        field=named, value=repr(value)))
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise ValueError(Phrase(
                    "{field} must be {minimum}..{maximum}, got {value}", field=named,
                    minimum=str(self.minimum), maximum=str(self.maximum), value=str(value),
                ))
        elif self.kind == "choice":
            if value not in self.choices:
                raise ValueError(Phrase(
                    "{field} must be one of {choices}, got {value}", field=named,
                    choices=", ".join(self.choices), value=repr(value),
                ))
        elif not isinstance(value, str) or len(value) > 40:
            raise ValueError(Phrase("{field} must be a short text, got {value}",
                                    field=named, value=repr(value)))
        return value

    def describe(self, translate: Callable[[str], str] = str) -> dict[str, Any]:
        """The field as plain data for the editor page; ``translate`` (e.g. a
        ``Translator.text``) puts ``label`` and ``help`` into the reader's language."""
        return {
            "name": self.name, "label": translate(self.label), "kind": self.kind,
            "default": self.default, "minimum": self.minimum, "maximum": self.maximum,
            "choices": list(self.choices),
            "help": translate(self.help) if self.help else self.help,
        }


@dataclass(frozen=True)
class PieceKind:
    """A kind of piece the palette offers (``color``: a colour of the game, for the
    swatch; ``None`` for neutral pieces such as Benediction's blocks)."""

    id: str
    label: str
    color: str | None = None
    attributes: tuple[Field, ...] = ()

    def describe(self, translate: Callable[[str], str] = str) -> dict[str, Any]:
        """The kind as plain data for the editor page (``translate``: see
        :meth:`Field.describe`)."""
        return {"id": self.id, "label": translate(self.label), "color": self.color,
                "attributes": [attribute.describe(translate)
                               for attribute in self.attributes]}


@dataclass(frozen=True)
class EditorSpec:
    """What the editor of one game (with given rules) offers."""

    pieces: tuple[PieceKind, ...]
    settings: tuple[Field, ...]
    #: ``read(text, rules) -> (cells, settings)`` (``ValueError`` when malformed).
    read: Callable[[str, Any], tuple[Cells, dict[str, Any]]]
    #: ``write(cells, settings, rules) -> text`` (``ValueError`` when it cannot).
    write: Callable[[Cells, Mapping[str, Any], Any], str]
    #: One line telling the person what a position needs (shown above the palette).
    note: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def kind(self, kind_id: str) -> PieceKind:
        for piece in self.pieces:
            if piece.id == kind_id:
                return piece
        known = ", ".join(piece.id for piece in self.pieces)
        raise ValueError(Phrase("unknown piece kind {kind}; known: {known}",
                                kind=repr(str(kind_id)[:40]), known=known))

    def describe(self, translate: Callable[[str], str] = str) -> dict[str, Any]:
        """The spec as plain data for the editor page; ``translate`` (e.g. a
        ``Translator.text``) puts the labels, help texts and the note into the reader's
        language (they are marked with ``N_`` by the game)."""
        return {
            "pieces": [piece.describe(translate) for piece in self.pieces],
            "settings": [setting.describe(translate) for setting in self.settings],
            "note": translate(self.note) if self.note else self.note,
        }

    def check_board(self, cells: Any, settings: Any, labels: set[str]) -> tuple[
            Cells, dict[str, Any]]:
        """Plain data from a client, checked against the spec (``ValueError`` naming the
        first problem): known cells and kinds, attribute and setting values in range.
        Missing attributes and settings take their defaults."""
        if not isinstance(cells, dict):
            raise ValueError(Phrase("cells must be an object {{label: {{piece: kind, ...}}}}"))
        if not isinstance(settings, dict):
            raise ValueError(Phrase("settings must be an object {{name: value}}"))
        clean: Cells = {}
        for label, content in cells.items():
            key = str(label).lower()
            if key not in labels:
                raise ValueError(Phrase("{point} is not a point of this board",
                                        point=repr(str(label)[:20])))
            if not isinstance(content, dict):
                raise ValueError(Phrase("{point}: expected {{piece: kind, ...}}", point=key))
            piece = self.kind(str(content.get("piece")))
            entry: dict[str, Any] = {"piece": piece.id}
            names = {attribute.name for attribute in piece.attributes}
            unknown = sorted(set(content) - names - {"piece"})
            if unknown:
                raise ValueError(Phrase("{point}: a {piece} has no {attribute}", point=key,
                                        piece=piece.label.lower(),
                                        attribute=repr(unknown[0][:20])))
            for attribute in piece.attributes:
                value = content.get(attribute.name, attribute.default)
                try:
                    entry[attribute.name] = attribute.check(value)
                except ValueError as error:
                    raise ValueError(Phrase("{point}: {reason}", point=key,
                                            reason=reason_of(error))) from None
            clean[key] = entry
        known = {setting.name: setting for setting in self.settings}
        unknown = sorted(set(settings) - set(known))
        if unknown:
            raise ValueError(Phrase("unknown setting {name}; known: {known}",
                                    name=repr(unknown[0][:20]), known=", ".join(known)))
        chosen = {name: setting.check(settings.get(name, setting.default))
                  for name, setting in known.items()}
        return clean, chosen
