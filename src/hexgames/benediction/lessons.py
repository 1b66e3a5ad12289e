"""Benediction's interactive tutorial: one rule per lesson, each with a small position, a
task checked by the engine, a hint, and an explanation of every try that falls short.

Served by the game-agnostic learn page (:mod:`hexgames.tutorial`); the positions are in the
board-text format (rules section 8; ``R=`` means Red acts with one action left this turn,
``R-`` with two).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hexgames.benediction.position import Position
from hexgames.game import GameState
from hexgames.phrases import N_, Phrase
from hexgames.tutorial import Lesson


def _pos(position: GameState) -> Position:
    assert isinstance(position, Position)
    return position


def _tried(actions: Sequence[Any]) -> str:
    return ", ".join(str(a) for a in actions)


def _red_won(position: GameState, actions: Sequence[Any]) -> bool:
    outcome = position.outcome()
    return outcome is not None and outcome.winner == "red"


def _termination(position: GameState) -> str:
    outcome = position.outcome()
    return outcome.termination.value if outcome is not None else ""


def _blue_gone(*labels: str) -> Any:
    def goal(position: GameState, actions: Sequence[Any]) -> bool:
        p = _pos(position)
        return all((m := p.man_at(label)) is None or m.color != "blue" for label in labels)

    return goal


def _king_threatened(p: Position) -> str | None:
    """An action of the player to act now that wins at once, if any."""
    if p.is_over:
        return None
    mover = p.to_move
    for action in p.legal_actions():
        p.play(action)
        try:
            outcome = p.outcome()
            if outcome is not None and outcome.winner == mover:
                return str(action)
        finally:
            p.undo()
    return None


def _blocked_threat(position: GameState, actions: Sequence[Any]) -> bool:
    p = _pos(position)
    if not actions or not str(actions[-1]).upper().startswith("B"):
        return False
    return p.to_move == "blue" and _king_threatened(p) is None


def _explain_block(position: GameState, actions: Sequence[Any]) -> Phrase:
    p = _pos(position)
    threat = _king_threatened(p) if p.to_move == "blue" else None
    if threat is not None:
        return Phrase(
            "After {tried}, Blue can still take your king with {threat}. A man "
            "jumps over men in its way, so only a block (which ends a line) stops the "
            "blue stack on e5: put one between it and your king.",
            tried=_tried(actions), threat=threat,
        )
    return Phrase(
        "{tried} keeps the king safe, but the task is to do it with a block "
        "(the tool 'Block', then the point): blocks end lines, men do not.",
        tried=_tried(actions),
    )


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        id="move",
        title=N_("Moving and capturing"),
        rule=N_(
            "A man is a stack of checkers. It moves along one of the six lines by exactly "
            "1 to as many steps as it has checkers, jumping over any men in its way, and "
            "captures an enemy man where it stops. Capturing the enemy king wins."
        ),
        task=N_("Capture the blue king on e5 with one action."),
        hint=N_("Your stack on e3 has 2 checkers: it may go 2 steps, over the man on e4."),
        position="Benediction v1: R=E2 B E8\nR:E2k3+\nB:E45k8\n",
        solution=("e3e5",),
        goal=_red_won,
        explain=lambda position, actions: Phrase(
            "{tried} did not take the king on e5. Count the steps: a stack of "
            "2 reaches exactly 1 or 2 points along a line, and the men it passes over do "
            "not stop it.",
            tried=_tried(actions),
        ),
        marks=("e3", "e5"),
        success=N_("The king is captured: Red wins. Stacks jump over the men in their way."),
    ),
    Lesson(
        id="portal",
        title=N_("Blessing your king through the wall"),
        rule=N_(
            "Blue's wall is the two top sides of the board, Red's the two bottom sides. A "
            "man that walks forward (N, NE or NW for Red) off Blue's wall comes back on the "
            "board at the other end of the same line: that is the portal, and a man that "
            "passes it is blessed. A blessed king wins."
        ),
        task=N_("Bless your king through Blue's wall in one action."),
        hint=N_("The king on g6 has 2 checkers: one step to g7 on the wall, one more through it."),
        position="Benediction v1: R=E2 B E8\nR:C3G6k+\nB:E8kF7\n",
        solution=("g6g1",),
        goal=_red_won,
        explain=lambda position, actions: Phrase(
            "{tried} did not bless your king. Only a path that leaves the "
            "board through Blue's wall (the top sides), moving forward, passes the "
            "portal: walk the king up its column past g7.",
            tried=_tried(actions),
        ),
        marks=("g6", "g7", "g1"),
        success=N_("Through the wall and back at g1: the king is blessed, and Red wins."),
    ),
    Lesson(
        id="merge",
        title=N_("Merging, and locked men"),
        rule=N_(
            "A man that moved this turn is locked: it may not move again in the same turn. "
            "Merging puts one of your men onto another of yours it can reach; the stack "
            "it makes is not locked, and a bigger stack reaches further. A stack of more "
            "than 2 checkers needs a blessing to form."
        ),
        task=N_("Capture the blue king on c6 this turn (two actions)."),
        hint=N_("Merge c3 onto c4 first: a stack of 2 on c4 reaches c6."),
        position="Benediction v1: R-E2 B E8\nR:C34E2k\nB:C6kF7\n",
        solution=("c3+c4", "c4c6"),
        goal=_red_won,
        moves=2,
        explain=lambda position, actions: Phrase(
            "{tried} did not reach the king. A single man goes one step, and "
            "a man that moved is locked for the rest of the turn. A merged stack is not "
            "locked and has 2 checkers: merge, then move the stack.",
            tried=_tried(actions),
        ),
        marks=("c3", "c4", "c6"),
        success=N_("A merged stack is free to move at once: the king is taken."),
    ),
    Lesson(
        id="split",
        title=N_("Splitting a stack"),
        rule=N_(
            "A split takes the top checkers of a stack (not all of them) and moves them as "
            "a smaller stack, up to as many steps as it has checkers. The part split off "
            "is locked, but the part left behind is not. After a split that captures or "
            "lands on an empty point both parts are cursed (unless it passed the wall)."
        ),
        task=N_("Capture both blue men, on e5 and f4, this turn."),
        hint=N_("Split one checker off e4 onto e5; then what stays on e4 can still move."),
        position="Benediction v1: R-E2 B E8\nR:E2k4+\nB:E5E8kF4\n",
        solution=("e4-1-e5", "e4f4"),
        goal=_blue_gone("e5", "f4"),
        moves=2,
        explain=lambda position, actions: Phrase(
            "After {tried} a blue man is still standing on e5 or f4. A man that "
            "moved is locked (it may still split); a split locks only the part that leaves, "
            "so one stack can capture twice.",
            tried=_tried(actions),
        ),
        marks=("e4", "e5", "f4"),
        success=N_("Two captures from one stack. Both parts are now cursed (shown with ~)."),
    ),
    Lesson(
        id="drop",
        title=N_("Dropping new men"),
        rule=N_(
            "A drop puts a new man of size 1 on an empty point of your zone (your starting "
            "point and its six neighbours). A dropped man is locked: it may not move this "
            "turn, but it may merge."
        ),
        task=N_("Make the man on d2 a stack of 2 this turn."),
        hint=N_("Drop a man next to d2 in your zone, then merge it onto d2."),
        position="Benediction v1: R-E2 B E8\nR:D2H2k\nB:E8kF7\n",
        solution=("@d1", "d1+d2"),
        goal=lambda position, actions: (
            (m := _pos(position).man_at("d2")) is not None
            and m.color == "red" and m.size >= 2
        ),
        moves=2,
        explain=lambda position, actions: Phrase(
            "After {tried} d2 does not hold a red stack of 2. Drop a man in "
            "your zone (around e2), then merge it onto d2: dropped men may merge.",
            tried=_tried(actions),
        ),
        marks=("d2",),
        success=N_("A drop and a merge: d2 is now a stack of 2."),
    ),
    Lesson(
        id="block",
        title=N_("Blocks"),
        rule=N_(
            "A block is a neutral stone placed on an empty point (not a starting point, "
            "and not next to another block). Nothing enters or passes a block: it ends "
            "every line through it. Men, on the other hand, are jumped over."
        ),
        task=N_("Blue's stack on e5 threatens your king on e3. Stop it with a block."),
        hint=N_("Put a block between them, on e4."),
        position="Benediction v1: R=E2 B E8\nR:C2E3k\nB:E5+8k\n",
        solution=("Be4",),
        goal=_blocked_threat,
        explain=_explain_block,
        marks=("e3", "e5"),
        success=N_("The block ends the line: the blue stack cannot reach your king."),
    ),
    Lesson(
        id="crown",
        title=N_("Crowning"),
        rule=N_(
            "A man that stands on either starting point (Red's e2 or Blue's e8) is crowned: "
            "it becomes a king, and loses any blessing or curse. A king may merge with men "
            "but not with another king; and every king you have must be kept: losing any "
            "of them loses the game."
        ),
        task=N_("Crown a second red king this turn (two actions)."),
        hint=N_("Blue's starting point e8 is empty. Your stack on e6 reaches it."),
        position="Benediction v1: R-E2 B E8\nR:C2E2k6+\nB:C7kG6\n",
        solution=("e6e8",),
        goal=lambda position, actions: sum(
            1 for _, man in _pos(position).iter_men() if man.color == "red" and man.king
        ) >= 2,
        moves=2,
        explain=lambda position, actions: Phrase(
            "After {tried} you still have one king. Only a man standing on a "
            "starting point is crowned: e2 holds your king, but Blue's starting point e8 "
            "is empty.",
            tried=_tried(actions),
        ),
        marks=("e6", "e8"),
        success=N_("Crowned on Blue's starting point: a second king (keep both safe)."),
    ),
    Lesson(
        id="bridge",
        title=N_("Bridges"),
        rule=N_(
            "A bridge is a group of your men, touching side by side, that reaches from "
            "your own wall to the enemy wall. Every man of a bridge (not cursed) is "
            "blessed, so a bridge that holds your king wins."
        ),
        task=N_("Complete a bridge through your king in one action."),
        hint=N_("The left edge a1 to a5 joins the two walls; a5 is missing."),
        position="Benediction v1: R=E2 B E8\nR:A123k4B5\nB:E8kF7\n",
        solution=("b5a5",),
        goal=_red_won,
        explain=lambda position, actions: Phrase(
            "{tried} did not complete a bridge. Your men on a1 to a4 touch "
            "your wall at a1; one more man on a5, on Blue's wall, joins the two walls.",
            tried=_tried(actions),
        ),
        marks=("a1", "a3", "a5"),
        success=N_("Wall to wall: the bridge blesses the king, and Red wins."),
    ),
)


def lessons() -> tuple[Lesson, ...]:
    """Benediction's lessons, in teaching order."""
    return LESSONS
