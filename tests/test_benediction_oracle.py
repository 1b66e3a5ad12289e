"""Legal action generation checked against a slow, independent reading of the rules.

The oracle below walks every line step by step with plain coordinates (no precomputed
rays, no caches) and applies the legality rules of sections 3-5 literally. On random
positions it must agree exactly with ``Position.legal_actions``.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from hexgames.benediction import Man, Position, Rules
from hexgames.hexgrid import DIRECTIONS

FORWARD = {"red": {(0, 1), (1, 1), (-1, 0)}, "blue": {(0, -1), (-1, -1), (1, 0)}}


def on_enemy_wall(side: int, color: str, x: int, y: int) -> bool:
    n1 = side - 1
    if color == "red":  # Blue's wall: the two top sides
        return y - x == n1 or y == 2 * n1
    return y == 0 or x - y == n1


def destinations(p: Position, origin: str, steps: int, color: str) -> dict[str, bool]:
    """Every point reachable in 1..steps steps, with "some path passed the wall"."""
    b = p.board
    blocks = p.blocks
    found: dict[str, bool] = {}
    for dx, dy in DIRECTIONS:
        x, y = b.coords[b.index(origin)]
        passed = False
        for _ in range(steps):
            nx, ny = x + dx, y + dy
            if not b.contains(nx, ny):
                if (dx, dy) not in FORWARD[color] or not on_enemy_wall(b.side, color, x, y):
                    break
                # walk back to the other end of the line
                while b.contains(nx - dx, ny - dy):
                    nx, ny = nx - dx, ny - dy
                passed = True
            label = b.labels[b.index_at(nx, ny)]
            if label in blocks:
                break
            x, y = nx, ny
            if label != origin:
                found[label] = found.get(label, False) or passed
    return found


def merge_ok(src, src_size, tgt, tgt_size, passed, max_stack) -> bool:
    gains = passed and not src.cursed
    if src.king and tgt.king:
        return False
    if (src.cursed or tgt.cursed) and not (
        (src.cursed and tgt.blessed) or (tgt.cursed and not src.cursed and (src.blessed or gains))
    ):
        return False
    if src_size + tgt_size > 2 and not (src.blessed or tgt.blessed or gains):
        return False
    return src_size + tgt_size <= max_stack


def oracle(p: Position) -> set[str]:
    if p.is_over:
        return set()
    me = p.to_move
    men = p.men()
    rules = p.rules
    out: set[str] = set()
    starts = set(p.starting_points)
    for label in p.board.labels:
        if label in men or label in p.blocks or label in starts:
            continue
        near = set(p.board.labels[j] for j in p.tables.block_adjacent[p.board.index(label)])
        if not near & p.blocks:
            out.add(f"B{label}")
    supply = p.supply_left(me)
    if supply is None or supply > 0:
        out |= {f"@{z}" for z in p.zone(me) if z not in men and z not in p.blocks}
    for origin, m in men.items():
        if m.color != me:
            continue
        for target, passed in destinations(p, origin, m.size, me).items():
            other = men.get(target)
            if other is None or other.color != me:
                if not m.locked:
                    out.add(f"{origin}{target}")
            elif merge_ok(m, m.size, other, other.size, passed, rules.max_stack):
                out.add(f"{origin}+{target}")
        for k in range(1, m.size):
            for target, passed in destinations(p, origin, k, me).items():
                other = men.get(target)
                if other is None or other.color != me or merge_ok(
                    m, k, other, other.size, passed, rules.max_stack
                ):
                    out.add(f"{origin}-{k}-{target}")
    return out


@pytest.mark.parametrize("side", [4, 5, 6, 7])
def test_generator_agrees_with_the_literal_oracle_on_random_positions(side):
    rng = random.Random(side)
    checked = 0
    for game in range(6):
        rules = Rules(board_side=side, max_stack=(8, 15, 3)[game % 3],
                      supply=(None, 2)[game % 2], max_turns=120)
        p = Position.initial(rules)
        while not p.is_over:
            listed = [str(a) for a in p.legal_actions()]
            if rng.random() < 0.25:
                assert len(listed) == len(set(listed))
                assert set(listed) == oracle(p), p.to_text()
                checked += 1
            # favour merges and splits so that big stacks and flags appear
            growing = [a for a in listed if "+" in a or "-" in a]
            pool = growing if growing and rng.random() < 0.5 else listed
            p.play(rng.choice(pool))
    assert checked > 20


def test_oracle_sees_the_designer_portal_example():
    p = Position.from_text("Benediction v1: R E2 B-E8\nR:E2k\nB:B3+++E8k")
    assert destinations(p, "b3", 4, "blue")["b5"] is True
    assert "b3b5" in oracle(p)


def wall_of(side: int, color: str, label: str, p: Position) -> bool:
    """Own wall of ``color``: the enemy wall of the other colour."""
    x, y = p.board.coords[p.board.index(label)]
    return on_enemy_wall(side, "blue" if color == "red" else "red", x, y)


def expected_after(
    p: Position, text: str
) -> tuple[dict[str, Man], set[str], str | None, str | None]:
    """Men, blocks, winner and reason after ``text``, by the literal rules (section 5-6),
    leaving out only the "no legal action" test. Every step of section 6 applies, also
    after a step that decided a win; the winner is the one decided first."""
    action = p.parse_action(text)
    me = p.to_move
    enemy = "blue" if me == "red" else "red"
    men = p.men()
    blocks = set(p.blocks)
    king_captured = False
    pending: set[str] = set()
    origin, target, k = action.origin, action.target, action.count
    if action.kind == "drop":
        men[target] = Man(me, 1, locked=True)
    elif action.kind == "block":
        blocks.add(target)
    else:
        src = men[origin]
        steps = k if action.kind == "split" else src.size
        passed = destinations(p, origin, steps, me)[target]
        other = men.get(target)
        if action.kind == "move":
            del men[origin]
            king_captured = other is not None and other.king
            men[target] = replace(
                src, blessed=src.blessed or (passed and not src.cursed), locked=True
            )
        elif action.kind == "merge":
            del men[origin]
            men[target] = Man(me, src.size + other.size, src.king or other.king,
                              src.king and passed)
        elif other is not None and other.color == me:
            men[target] = Man(me, k + other.size, src.king or other.king, src.king and passed)
            men[origin] = Man(me, src.size - k, src.king, locked=src.locked)
        else:
            king_captured = other is not None and other.king
            sub_blessed = passed and not src.cursed
            men[target] = Man(me, k, src.king, sub_blessed, src.cursed, True)
            men[origin] = Man(me, src.size - k, src.king, False, src.cursed, src.locked)
            if not src.king and not src.cursed:
                pending.add(origin)
                if not sub_blessed:
                    pending.add(target)
    winner, reason = (me, "king captured") if king_captured else (None, None)
    for start in p.starting_points:
        m = men.get(start)
        if m is not None and not m.king:
            men[start] = Man(m.color, m.size, king=True, locked=m.locked)
    side = p.board.side
    for color in ("red", "blue"):
        seen: set[str] = set()
        for label in [x for x, m in men.items() if m.color == color]:
            if label in seen:
                continue
            group, todo = set(), [label]
            while todo:
                cur = todo.pop()
                if cur in group:
                    continue
                group.add(cur)
                for j in p.board.neighbours[p.board.index(cur)]:
                    nb = p.board.labels[j]
                    if nb in men and men[nb].color == color:
                        todo.append(nb)
            seen |= group
            enemy_of = "blue" if color == "red" else "red"
            if any(wall_of(side, color, g, p) for g in group) and any(
                wall_of(side, enemy_of, g, p) for g in group
            ):
                for g in group:
                    if not men[g].cursed:
                        men[g] = replace(men[g], blessed=True)
    for color in (me, enemy):
        blessed_king = any(m.king and m.blessed and m.color == color for m in men.values())
        if blessed_king and winner is None:
            winner, reason = color, "blessed king"
    for label in pending:
        m = men[label]
        if not m.king and not m.blessed:
            men[label] = replace(m, cursed=True)
    return men, blocks, winner, reason


@pytest.mark.parametrize("side", [4, 5, 6])
def test_consequences_of_every_action_follow_the_literal_rules(side):
    rng = random.Random(100 + side)
    checked = wins = 0
    for game in range(5):
        p = Position.initial(Rules(board_side=side, max_stack=(8, 15)[game % 2], max_turns=100))
        while not p.is_over:
            listed = [str(a) for a in p.legal_actions()]
            growing = [a for a in listed if "+" in a or "-" in a]
            choice = rng.choice(growing if growing and rng.random() < 0.6 else listed)
            men, blocks, winner, reason = expected_after(p, choice)
            turn_ends = p.actions_left == 1
            p.play(choice)
            checked += 1
            if winner is not None:
                assert (p.winner, p.win_reason) == (winner, reason)
            else:
                assert p.win_reason in (None, "turn limit", "no legal action")
            if turn_ends and winner is None:  # locks clear when the turn ends
                men = {x: replace(m, locked=False) for x, m in men.items()}
            assert p.men() == men, (choice, p.to_text())
            assert p.blocks == blocks
            wins += winner is not None
    assert checked > 100
    assert wins >= 2, "some games end in a win, whose last action is checked too"


@pytest.mark.parametrize("chunk", range(2))
def test_the_last_action_of_won_random_games_follows_the_literal_rules(chunk):
    """Section 6 applies in full after a winning action: crowning, bridge blessings and
    pending curses land on the final board (checked on the last action of many games)."""
    won = 0
    for seed in range(chunk * 40, (chunk + 1) * 40):
        rng = random.Random(seed)
        p = Position.initial(Rules(max_turns=150))
        while not p.is_over:
            actions = p.legal_actions()
            p.play(actions[rng.randrange(len(actions))])
        if p.win_reason not in ("king captured", "blessed king"):
            continue
        last = p.undo()
        men, blocks, winner, reason = expected_after(p, str(last))
        p.play(last)
        assert (p.winner, p.win_reason) == (winner, reason)
        assert p.men() == men, (str(last), p.to_text())
        assert p.blocks == blocks
        won += 1
    assert won >= 20
