"""Gymnasium ids of the games: ``hexgames/Benediction-v0`` and ``hexgames/Dendria-v0``
(one per registered game, ``hexgames/<Name>-v0``), for ``gymnasium.make_vec`` (a
:class:`.gym_vector.GymVectorEnv`) and ``gymnasium.make`` (one game,
:class:`.gym_vector.GymEnv`).

Gymnasium (1.x) finds environments only in its registry, filled by imports; it has no
plugin entry points. So :func:`register` runs when ``hexgames.integrations`` is imported
(gymnasium installed) and when ``hexgames`` is imported after ``gymnasium``. It imports
gymnasium only, never the games or numba (the entry points are strings, loaded by
gymnasium at ``make`` time), which is why ``import hexgames`` stays cheap.
"""

from __future__ import annotations

import gymnasium

from hexgames.game import game_names

__all__ = ["gym_id", "register"]

_ENTRY = "hexgames.integrations.gym_vector"


def gym_id(game: str) -> str:
    """The Gymnasium id of a registered game name: ``"hexgames/Benediction-v0"``."""
    return f"hexgames/{game.capitalize()}-v0"


def register() -> list[str]:
    """Register every game's id with gymnasium (again: a no-op); the ids."""
    ids = []
    for name in game_names():
        env_id = gym_id(name)
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=f"{_ENTRY}:make_env",
                               vector_entry_point=f"{_ENTRY}:make_vector_env",
                               kwargs={"game": name})
        ids.append(env_id)
    return ids
