"""The contract of a learned evaluator for :class:`~hexgames.ai.mcts.MCTSPlayer`
(``MCTSPlayer(game, evaluator=f, evaluator_batch=K)``), and its checks.

An evaluator values many leaves of the search in one call, as a network wants to be
called. It sees each leaf as a network trained on the research interfaces saw its
positions, so that one trained on their data plugs in unchanged:

``evaluator(observations, masks, seats)`` with, for ``B`` leaves (``1 <= B <= K``):

* ``observations``: float32 ``(B, planes, W, W)``, each leaf's planes seen by its seat to
  act, exactly as the vector environments (:mod:`hexgames.integrations.vector`, the
  functional API and ``gymnasium.make_vec`` with their default view: absolute colours,
  channels first) give that position, and as ``Game.observation(position, seat)``;
* ``masks``: bool ``(B, num_actions)``, the legal research ids (``Game.action_to_id``);
* ``seats``: int32 ``(B,)``, the seat to act at each leaf (0 the first player);

returns ``values`` or ``(values, policy)``:

* ``values``: ``B`` numbers in [-1, 1] (shape ``(B,)`` or ``(B, 1)``), the expected
  result **for the seat to act** at the leaf (+1 it wins, -1 it loses), as the vector
  environments' rewards count it;
* ``policy`` (optional, ``None`` for none): ``(B, num_actions)`` scores over the research
  ids, higher first: logits, log-probabilities or probabilities alike, since only their
  order among a leaf's legal ids is used. The leaf's children are tried in that order
  (progressive widening lets them in one by one), equal scores in random order; without
  a policy they follow the game's own priors. Entries at illegal ids are not read.

The arrays are the search's buffers, valid during the call: copy what you keep. A
value outside [-1, 1] by more than ``1e-6`` (then clipped), a NaN or infinite value, a
NaN score at a legal id or a wrong shape raises ``ValueError`` naming what was wrong.
A leaf that is decided (the game is over, or the player to act wins at once and the
player's tactics are on) is valued exactly and never sent to the evaluator.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

#: How far outside [-1, 1] a value may be (float rounding of tanh or 2p - 1) before it
#: is refused; it is clipped.
TOLERANCE = 1e-6


class Evaluator(Protocol):
    """A learned evaluator (see the module docstring): ``values`` or ``(values,
    policy)`` for a batch of leaves."""

    def __call__(self, observations: np.ndarray, masks: np.ndarray,
                 seats: np.ndarray) -> Any: ...


class CheckedEvaluator:
    """Calls an :class:`Evaluator` and checks what it returns; counts the calls and the
    leaves valued (for ``MCTSPlayer.last_stats``)."""

    def __init__(self, evaluator: Evaluator) -> None:
        if not callable(evaluator):
            raise ValueError(f"evaluator must be callable as evaluator(observations, masks, "
                             f"seats), got {type(evaluator).__name__}")
        self.evaluator = evaluator
        self.calls = 0
        self.leaves = 0

    def __call__(self, observations: np.ndarray, masks: np.ndarray,
                 seats: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        out = self.evaluator(observations, masks, seats)
        self.calls += 1
        self.leaves += len(seats)
        return checked_output(out, masks)


def checked_output(out: Any, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``(values, policy)`` of an evaluator's answer for leaves with legal ids ``masks``
    (``(B, num_actions)``): float64 contiguous arrays, values clipped to [-1, 1];
    ``ValueError`` for an answer that breaks the contract."""
    batch, num_actions = masks.shape
    if isinstance(out, tuple) and not _numeric(out):
        if len(out) != 2:
            raise ValueError("an evaluator returns values or (values, policy), got "
                             f"a {type(out).__name__} of {len(out)}")
        values, policy = out
    else:
        values, policy = out, None
    v = _array(values, "values")
    if v.shape == (batch, 1):
        v = v[:, 0]
    if v.shape != (batch,):
        raise ValueError(f"evaluator values must have shape ({batch},), one per leaf, "
                         f"got {v.shape}")
    bad = np.flatnonzero(~np.isfinite(v) | (np.abs(v) > 1.0 + TOLERANCE))
    if bad.size:
        leaf = int(bad[0])
        raise ValueError(f"evaluator values must be finite numbers in [-1, 1] (for the seat "
                         f"to act), got {float(v[leaf])} for leaf {leaf}")
    v = np.ascontiguousarray(np.clip(v, -1.0, 1.0))
    if policy is None:
        return v, None
    p = _array(policy, "policy")
    if p.shape != (batch, num_actions):
        raise ValueError(f"evaluator policy must have shape ({batch}, {num_actions}), a "
                         f"score per leaf and research id, got {p.shape}")
    nan = np.argwhere(np.isnan(p) & masks)
    if nan.size:
        leaf, action = (int(x) for x in nan[0])
        raise ValueError(f"evaluator policy is NaN at legal id {action} of leaf {leaf}")
    return v, np.ascontiguousarray(p)


def _numeric(out: tuple[Any, ...]) -> bool:
    """Whether a tuple is itself the values (numbers), not ``(values, policy)``."""
    return all(isinstance(x, int | float | np.number) for x in out)


def _array(data: Any, what: str) -> np.ndarray:
    try:
        return np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"evaluator {what} must be numbers (a numpy array), got "
                         f"{type(data).__name__}: {error}") from None


__all__ = ["TOLERANCE", "CheckedEvaluator", "Evaluator", "checked_output"]
