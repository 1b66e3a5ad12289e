"""The ways a storage call fails that its callers handle.

Callers tell these apart because each has one answer: retry later (HTTP 503), reload the
game (409), or pick another name. Driver exceptions never leave the storage: the SQL
implementation turns them into :class:`StorageUnavailable` or :class:`StaleWrite`.
"""

from __future__ import annotations

from hexgames.phrases import Phrase


class StorageUnavailable(RuntimeError):
    """The database failed or did not answer in time (HTTP 503; try again later)."""


class StaleWrite(RuntimeError):
    """An action was written for a ply that is not the next one (another writer got
    there first): nothing was stored."""


class MetaConflict(StaleWrite):
    """A conditional write of a game's row (meta: clock, offers, rematch; seats) found
    another ``version`` than the one its writer read: another request or server process
    wrote the game meanwhile, and nothing was stored. The writer re-reads the game and
    applies its change again, or answers 409."""


class NameTaken(ValueError):
    """Another player already has this name (compared case-insensitively)."""


class NameLookAlike(NameTaken):
    """Another player has a name that reads the same (the same
    :func:`~hexgames.web.storage.confusables.skeleton`: ``AIice`` beside ``Alice``)."""

    def __init__(self, name: str, other: str) -> None:
        super().__init__(Phrase("the name {name} looks too much like {other}, another "
                                "player's name; pick another", name=repr(name),
                                other=repr(other)))
        self.other = other


class SeekTaken(RuntimeError):
    """The challenge is no longer open (accepted by someone else, or withdrawn)."""


class PairingTaken(RuntimeError):
    """One of the two pool entries being paired is no longer waiting (paired by another
    process, or left): nothing was stored."""


class ChatRefused(RuntimeError):
    """A chat message the storage did not take (its room is full, or its writer is
    silenced): nothing was stored; the message names the reason."""
