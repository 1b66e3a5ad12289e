"""Property-based checks of the Dendria engine: make/unmake, legality, formats, and the
section-2 queries against a naive reference written straight from the rules text."""

import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hexgames import IllegalAction
from hexgames.dendria import Position, Rules, Step, read_record, write_record
from hexgames.game import outcome_tags

SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def random_position(seed: int, side: int, steps: int, movers: bool) -> Position:
    """A position reached by ``steps`` random legal steps (maybe mid-turn). With
    ``movers`` the steps favour dendrid moves, which is how repetitions (and the
    no-repetition rule's dead ends) arise."""
    rng = random.Random(seed)
    p = Position.initial(Rules(board_side=side, quiet_limit=rng.choice((1, 3, 10))))
    for _ in range(steps):
        if p.is_over:
            break
        actions = p.legal_actions()
        moves = [a for a in actions if a.kind in ("leg", "continue", "end")]
        if movers and moves and rng.random() < 0.8:
            actions = moves
        p.play(rng.choice(actions))
    return p


positions = st.builds(
    random_position,
    seed=st.integers(0, 10**9),
    side=st.sampled_from((3, 5, 7)),
    steps=st.integers(0, 160),
    movers=st.booleans(),
)


def state(p: Position):
    assert p.key == p._key_from_scratch()
    return p.to_text(), p.key, list(p.history), p.turn_steps(), p.legal_actions(), p.is_over


# ----------------------------------------------------------- make / unmake
@SETTINGS
@given(positions, st.randoms(use_true_random=False))
def test_every_legal_step_is_accepted_and_undo_restores_the_position(p, rng):
    before = state(p)
    actions = before[4]
    assert len(actions) == len(set(actions))
    assert (actions == []) == p.is_over
    for step in rng.sample(actions, min(8, len(actions))):
        p.play(step)
        assert p.last_action == step and p.history[-1] == step
        p.undo()
        assert state(p) == before


def canonical(p: Position, step: Step) -> Step:
    if step.kind in ("grow", "convert") and p.group(step.target):
        return Step(step.kind, target=p.group(step.target)[0])
    return step


def random_step(rng: random.Random, labels) -> Step:
    kind = rng.choice(("plant", "leg", "continue", "sprout", "grow", "convert", "end",
                       "pass", "swap"))
    if kind in ("end", "pass", "swap"):
        return Step(kind)
    target = rng.choice(labels)
    if kind == "leg":
        origin = rng.choice([x for x in labels if x != target])
        return Step("leg", origin=origin, target=target)
    return Step(kind, target=target)


@SETTINGS
@given(positions, st.randoms(use_true_random=False))
def test_a_step_is_accepted_exactly_when_it_is_listed(p, rng):
    legal = set(p.legal_actions())
    labels = p.board.labels
    for _ in range(40):
        step = random_step(rng, labels)
        before = state(p)
        try:
            p.play(step)
        except IllegalAction as error:
            assert canonical(p, step) not in legal, f"{step} refused: {error}"
            assert str(error)
            assert state(p) == before
        else:
            assert canonical(p, step) in legal
            p.undo()
            assert state(p) == before


# ----------------------------------------------------------------- formats
@SETTINGS
@given(positions)
# Dark passes, Light passes: the text of that finished game once read back as Dark's
# first turn (pie offer armed), so the key differed.
@example(random_position(seed=1167198, side=3, steps=2, movers=False))
def test_position_text_round_trips(p):
    text = p.to_text()
    q = Position.from_text(text, p.rules)
    assert q.to_text() == text
    assert p.key == p._key_from_scratch() and q.key == q._key_from_scratch()
    if p.is_turn_start():
        assert q.key == p.key  # the incremental key equals one computed from scratch
        assert q.outcome() == p.outcome()
        assert set(q.legal_actions()) >= set(p.legal_actions())  # q has no history
        assert q.score() == p.score()


@SETTINGS
@given(positions)
def test_records_round_trip(p):
    q, tags = read_record(write_record(p, {"Dark": "A", "Light": "B"}))
    assert (q.to_text(), q.history, q.key, q.winner) == (p.to_text(), p.history, p.key, p.winner)
    assert tags["Dark"] == "A" and tags["Result"] == outcome_tags(p.outcome())["Result"]


# ------------------------------------------------- naive reference (rules text)
DIRECTIONS = ((0, 1), (1, 1), (1, 0), (0, -1), (-1, -1), (-1, 0))


class Reference:
    """Rules section 2, from coordinates and the position text, without engine tables."""

    def __init__(self, p: Position):
        lines = p.to_text().splitlines()
        self.n = p.rules.board_side
        self.mover = p.to_move
        self.piece = {}
        for line in lines[1:]:
            head, cells = line.split(":")
            color, kinds = head.split()
            for label in cells.split():
                self.piece[self.xy(label)] = (color, kinds[:-1])

    def xy(self, label):
        x, row = ord(label[0]) - ord("a"), int(label[1:])
        return (x, row - 1) if x <= self.n - 1 else (x, row - 1 + x - (self.n - 1))

    def label(self, xy):
        x, y = xy
        row = y + 1 if x <= self.n - 1 else y - (x - (self.n - 1)) + 1
        return f"{chr(ord('a') + x)}{row}"

    def on_board(self, xy):
        x, y = xy
        m = 2 * self.n - 2
        return 0 <= x <= m and 0 <= y <= m and abs(x - y) <= self.n - 1

    def cells(self):
        m = 2 * self.n - 2
        return [(x, y) for x in range(m + 1) for y in range(m + 1) if self.on_board((x, y))]

    def ray(self, xy, d):
        out = []
        x, y = xy
        while True:
            x, y = x + DIRECTIONS[d][0], y + DIRECTIONS[d][1]
            if not self.on_board((x, y)):
                return out
            out.append((x, y))

    def roots(self, xy):
        return [r for r in (self.ray(xy, d) for d in range(6)) if r]

    def plantable(self):
        return {
            self.label(c) for c in self.cells()
            if c not in self.piece and any(all(x not in self.piece for x in r)
                                            for r in self.roots(c))
        }

    def sproutable(self):
        out = set()
        for c, (color, kind) in self.piece.items():
            if kind != "seed":
                continue
            firsts = [next((x for x in r if x in self.piece), None) for r in self.roots(c)]
            if None in firsts:
                continue
            own = sum(self.piece[x][0] == color for x in firsts)
            if own > len(firsts) - own:
                out.add(self.label(c))
        return out

    def fertilized(self, color):
        out = set()
        for c, piece in self.piece.items():
            if piece == (color, "dendrid"):
                for d in range(6):
                    for x in self.ray(c, d):
                        if x in self.piece:
                            break
                        out.add(x)
        return out

    def groups(self, kind):
        seen, out = set(), []
        for c in sorted(self.piece):
            if c in seen or self.piece[c][1] != kind:
                continue
            group, todo = {c}, [c]
            while todo:
                x, y = todo.pop()
                for dx, dy in DIRECTIONS:
                    nb = (x + dx, y + dy)
                    if nb not in group and self.piece.get(nb) == self.piece[c]:
                        group.add(nb)
                        todo.append(nb)
            seen |= group
            soils = {(x + dx, y + dy) for x, y in group for dx, dy in DIRECTIONS}
            soils = {s for s in soils if self.on_board(s) and s not in self.piece}
            out.append((self.piece[c][0], min(group), soils, group))
        return out

    def growable(self):
        return {
            self.label(first) for color, first, soils, _ in self.groups("seed")
            if soils and soils <= self.fertilized(color)
        }

    def convertible(self):
        other = "light" if self.mover == "dark" else "dark"
        return {
            self.label(first) for color, first, soils, _ in self.groups("tree")
            if color == other and soils and soils <= self.fertilized(self.mover)
            and soils - self.fertilized(other)
        }

    def stops(self, xy):
        color = self.piece[xy][0]
        out = set()
        for d in range(6):
            for x in self.ray(xy, d):
                piece = self.piece.get(x)
                if piece is None:
                    out.add(self.label(x))
                elif piece[1] != "seed" and piece != (color, "dendrid"):
                    break
        return out


@settings(max_examples=100, deadline=None)
@given(positions)
def test_queries_agree_with_a_naive_reading_of_the_rules(p):
    ref = Reference(p)
    assert set(p.plantable_cells()) == ref.plantable()
    assert set(p.sproutable_seeds()) == ref.sproutable()
    for color in ("dark", "light"):
        assert set(p.fertilized_cells(color)) == {ref.label(c) for c in ref.fertilized(color)}
    assert set(p.growable_seedbeds()) == ref.growable()
    assert set(p.convertible_forests()) == ref.convertible()
    labels = {ref.label(c) for c in ref.cells()}
    for label in labels:
        roots = ref.roots(ref.xy(label))
        firsts = [next((x for x in r if x in ref.piece), None) for r in roots]
        assert p.nourishers(label) == [ref.label(x) for x in firsts if x is not None]


@settings(max_examples=100, deadline=None)
@given(positions)
def test_legal_steps_agree_with_the_reference_up_to_no_repetition(p):
    ref = Reference(p)
    legal = p.legal_actions()
    if p.is_over:
        return
    kinds = {}
    for step in legal:
        kinds.setdefault(step.kind, set()).add(step.target)
    if p.is_turn_start():
        assert kinds.get("plant", set()) == ref.plantable()
        mover = {c for c, piece in ref.piece.items() if piece == (p.to_move, "dendrid")}
        expected = {(ref.label(c), t) for c in mover for t in ref.stops(c)}
        offered = {(s.origin, s.target) for s in legal if s.kind == "leg"}
        assert offered <= expected
        for origin, target in expected - offered:  # only no-repetition may remove a stop
            before = p.to_text()
            try:
                p.play(f"{origin}-{target}")
            except IllegalAction as error:
                assert "repeating an earlier position" in str(error)
            assert p.to_text() == before
        assert ("pass" in {s.kind for s in legal}) and (("swap" in {s.kind for s in legal})
                                                         == p.pie_pending)
    else:
        assert "plant" not in kinds and "leg" not in kinds and "pass" not in kinds
        if p.turn_steps()[0].kind == "plant":  # nothing can block a turn that planted
            assert kinds.get("sprout", set()) == ref.sproutable()
            assert kinds.get("grow", set()) == ref.growable()
            assert kinds.get("convert", set()) == ref.convertible()
            assert "end" in kinds and "continue" not in kinds


# ------------------------------------------------- no repetition, by brute force
def earlier_positions(p: Position) -> set:
    """Board + colour to move at the start and after every finished turn, by replay."""
    q = Position.from_text(p.start_text, p.rules)
    seen = {(frozenset(Reference(q).piece.items()), q.to_move)}
    for step in p.history:
        q.play(step)
        if step.kind in ("end", "pass", "swap"):
            seen.add((frozenset(Reference(q).piece.items()), q.to_move))
    return seen


def reference_options(ref: Reference, moving, direction):
    """(notation, resulting reference) of every follow-up and continuation."""
    out = []
    for label in ref.sproutable():
        xy = ref.xy(label)
        out.append((f"^{label}", {xy: (ref.piece[xy][0], "dendrid")}))
    for kind, mark, groups in (("seed", "+", ref.growable()), ("tree", "=", ref.convertible())):
        for color, first, _, members in ref.groups(kind):
            if ref.label(first) in groups:
                new = (color if kind == "seed" else ref.mover, "tree")
                out.append((f"{mark}{ref.label(first)}", dict.fromkeys(members, new)))
    if moving is not None:
        for x in ref.ray(moving, direction):
            piece = ref.piece.get(x)
            if piece is None:
                out.append((f"-{ref.label(x)}", ("move", moving, x)))
            elif piece[1] != "seed" and piece != (ref.mover, "dendrid"):
                break
    results = []
    for notation, change in out:
        child = Reference.__new__(Reference)
        child.__dict__.update(ref.__dict__)
        child.piece = dict(ref.piece)
        if isinstance(change, tuple):
            child.piece[change[2]] = child.piece.pop(change[1])
            results.append((notation, child, change[2]))
        else:
            child.piece.update(change)
            results.append((notation, child, moving))
    return results


def finishable(ref: Reference, moving, direction, seen, memo) -> bool:
    other = "light" if ref.mover == "dark" else "dark"
    board = frozenset(ref.piece.items())
    if (board, other) not in seen:
        return True
    key = (board, moving)
    if key not in memo:
        memo[key] = False
        memo[key] = any(
            finishable(child, where, direction, seen, memo)
            for _, child, where in reference_options(ref, moving, direction)
        )
    return memo[key]


def direction_of(ref: Reference, a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    size = max(abs(dx), abs(dy))
    return DIRECTIONS.index((dx // size, dy // size))


@settings(max_examples=100, deadline=None)
@given(positions)
def test_no_repetition_offers_exactly_the_steps_a_brute_force_search_can_finish(p):
    if p.is_over or (p.turn_steps() and p.turn_steps()[0].kind == "plant"):
        return
    ref = Reference(p)
    seen = earlier_positions(p)
    memo: dict = {}
    legal = {str(s) for s in p.legal_actions()}
    if p.is_turn_start():
        for xy, piece in list(ref.piece.items()):
            if piece != (p.to_move, "dendrid"):
                continue
            for target in ref.stops(xy):
                child = Reference.__new__(Reference)
                child.__dict__.update(ref.__dict__)
                child.piece = dict(ref.piece)
                child.piece[ref.xy(target)] = child.piece.pop(xy)
                d = direction_of(ref, xy, ref.xy(target))
                expected = finishable(child, ref.xy(target), d, seen, memo)
                assert (f"{ref.label(xy)}-{target}" in legal) == expected
        return
    moving = ref.xy(p.moving_dendrid)
    leg = p.turn_steps()[0]
    d = direction_of(ref, ref.xy(leg.origin), ref.xy(leg.target))
    other = "light" if p.to_move == "dark" else "dark"
    assert ("end" in legal) == ((frozenset(ref.piece.items()), other) not in seen)
    for notation, child, where in reference_options(ref, moving, d):
        assert (notation in legal) == finishable(child, where, d, seen, memo), notation
