"""The node of :class:`~hexgames.ai.mcts.MCTSPlayer`'s Python tree (also what the
compiled tree's root is read back as, for the final choice and the safety check)."""

from __future__ import annotations

from typing import Any

from hexgames.ai.base import seat_sign


class Node:
    """One position in the tree, reached by ``action`` from its parent."""

    __slots__ = (
        "action",
        "children",
        "index",
        "key",
        "mover",
        "next_child",
        "order",
        "result",
        "seat",
        "value",
        "visits",
    )

    def __init__(self, action: Any, mover: int) -> None:
        self.action = action
        #: Seat that played ``action`` (values are summed from its point of view).
        self.mover = mover
        self.seat = -1  # seat to move here; set when first visited
        self.key: int | None = None
        self.visits = 0
        self.value = 0.0
        #: Exact value for seat 0 once proven (terminal or solved), else None.
        self.result: float | None = None
        #: Actions in the order they will be expanded (None until the node is expanded).
        self.order: list[Any] | None = None
        self.next_child = 0
        self.children: list[Node] = []
        self.index: dict[Any, Node] = {}

    def mean(self) -> float:
        """Mean value from the mover's point of view (exact when solved)."""
        if self.result is not None:
            return seat_sign(self.mover) * self.result
        return self.value / self.visits if self.visits else 0.0

    def __repr__(self) -> str:
        return f"Node({self.action!s}, n={self.visits}, q={self.mean():+.3f})"


__all__ = ["Node"]
