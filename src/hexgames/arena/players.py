"""Player specs of the designer and tournament commands, built-in or ``module:callable``.

``hexgames arena``, ``report`` and ``sweep`` name their players by spec. The built-in
specs (``random``, ``greedy``, ``L1`` .. ``L5``, ``mcts``, ``mcts:400``, ``mcts:2s``) are
:func:`hexgames.ai.levels.from_spec`'s. Any other spec with a colon names a **player
factory** the way entry points do, ``module:callable`` (``mypkg.players:make_player``,
``mypkg.players:Factory.strong``), so a learned value function, another search or a
scripted opponent plays in the arena, reports and sweeps without a change here.

The factory is called as ``factory(game, seed)``:

* ``game`` is the :class:`hexgames.game.Game` being played (``game.name`` says which);
* ``seed`` is an ``int`` (each game and seat gets its own, derived from the command's
  ``--seed``, so a rerun plays the same games if the player uses it) or ``None``;

and returns a fresh player: an object with ``choose(position) -> action`` (one legal
action of ``position.legal_actions()``, leaving the position unchanged) and optionally
``reset()``, called before each game (:class:`hexgames.ai.base.Player`). Its ``name`` is
set to the spec, which names it in tables and records.

Every game builds its players in the process that plays it (a worker of the pool or a
Ray task), so the module must be importable there: installed, on ``PYTHONPATH``, or in
the current directory (searched last, as ``python -m`` would search it first). The
commands build each spec once before any game starts, so a bad spec stops them with a
``ValueError`` that says what is wrong, before anything is written.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from typing import Any

from hexgames.ai.base import Player
from hexgames.ai.levels import from_spec
from hexgames.game import Game

__all__ = ["FACTORY_FORM", "auto_trace", "is_factory_spec", "ladder_rank", "load_factory",
           "make_player"]

#: How a factory spec is written, for messages and ``--help``.
FACTORY_FORM = "module:callable (a player factory called as factory(game, seed))"

_BUILT_IN = re.compile(r"^\s*mcts(:\S*)?\s*$", re.IGNORECASE)
_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_FACTORY = re.compile(rf"^(?P<module>{_DOTTED}):(?P<attribute>{_DOTTED})$")


def is_factory_spec(spec: str) -> bool:
    """True for a spec that names a factory (has a colon and is not ``mcts:...``)."""
    return ":" in spec and not _BUILT_IN.match(spec)


def ladder_rank(spec: str) -> int | None:
    """Place of a built-in spec on the strength ladder: ``random`` 0, ``L1`` and
    ``greedy`` 1 (``L1`` is the greedy player with noise), ``L2`` .. ``L5`` 2 .. 5;
    ``None`` for specs whose strength is not known here (``mcts:N``, factories)."""
    text = spec.strip().lower()
    if text == "random":
        return 0
    if text == "greedy":
        return 1
    level = re.fullmatch(r"(?:l|level)([1-5])", text)
    return int(level.group(1)) if level else None


def auto_trace(spec: str) -> list[str]:
    """The default skill trace next to self-play of ``spec``: one more strength, cheap
    to play, so that a report never rests on a single strength. ``L1`` (the greedy
    player), or ``L2`` when ``spec`` is itself ``L1`` or ``greedy``."""
    return ["L2"] if ladder_rank(spec) == 1 else ["L1"]


def make_player(game: Game, spec: str, seed: int | None = None) -> Player:
    """The player a spec names, built-in or from a ``module:callable`` factory.

    ``ValueError`` says what is wrong with a bad spec (an unknown built-in, a module that
    cannot be imported, a missing or uncallable attribute, a factory that does not take
    ``(game, seed)`` or does not return a player).
    """
    if not is_factory_spec(spec):
        return from_spec(game, spec, seed=seed)
    factory = load_factory(spec)
    try:
        inspect.signature(factory).bind(game, seed)
    except TypeError as error:
        raise ValueError(
            f"player factory {spec!r} must accept (game, seed); its signature is "
            f"{_signature(factory)} ({error})"
        ) from None
    except ValueError:  # no signature to inspect (some builtins): try the call
        pass
    player = factory(game, seed)
    choose = getattr(player, "choose", None)
    if not callable(choose):
        raise ValueError(
            f"player factory {spec!r} returned {type(player).__name__}, which has no "
            "choose(position) method: a factory returns a player (hexgames.ai.base.Player)"
        )
    return player


def load_factory(spec: str) -> Any:
    """The callable named by ``module:callable``, imported (``ValueError`` if it cannot)."""
    match = _FACTORY.match(spec.strip())
    if match is None:
        raise ValueError(
            f"player spec {spec!r}: a player factory is named {FACTORY_FORM}, e.g. "
            "mypkg.players:make_player; built-in specs are random, greedy, L1..L5, mcts, "
            "mcts:ITERATIONS and mcts:SECONDSs"
        )
    module_name, attribute = match.group("module"), match.group("attribute")
    module = _import(module_name, spec)
    target: Any = module
    walked = module_name
    for part in attribute.split("."):
        if not hasattr(target, part):
            offered = sorted(name for name, value in vars(target).items()
                             if callable(value) and not name.startswith("_"))
            raise ValueError(
                f"player spec {spec!r}: {walked} has no attribute {part!r}"
                + (f"; its public callables: {', '.join(offered)}" if offered else "")
            )
        target = getattr(target, part)
        walked = f"{walked}.{part}"
    if not callable(target):
        raise ValueError(
            f"player spec {spec!r}: {walked} is a {type(target).__name__}, not a callable "
            "factory(game, seed)"
        )
    return target


def _import(module_name: str, spec: str) -> Any:
    """Import ``module_name``, searching the current directory last when not found."""
    cwd = os.getcwd()
    for attempt in range(2):
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            missing = error.name or module_name
            if not (module_name == missing or module_name.startswith(f"{missing}.")):
                raise ValueError(  # the module exists but imports something missing
                    f"player spec {spec!r}: importing {module_name} failed: {error}"
                ) from error
            if attempt == 0 and cwd not in sys.path:
                sys.path.append(cwd)  # kept: worker processes inherit sys.path
                continue
            raise ValueError(
                f"player spec {spec!r}: no module named {missing!r} (searched the Python "
                f"path and the current directory {cwd}); install it or add its folder "
                "to PYTHONPATH"
            ) from None
        except Exception as error:  # the module's own code failed
            raise ValueError(
                f"player spec {spec!r}: importing {module_name} failed: "
                f"{type(error).__name__}: {error}"
            ) from error
    raise AssertionError("unreachable")  # pragma: no cover


def _signature(factory: Any) -> str:
    try:
        return f"{getattr(factory, '__name__', 'factory')}{inspect.signature(factory)}"
    except (TypeError, ValueError):
        return repr(factory)
