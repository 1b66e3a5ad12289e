"""The training loop of ``hexgames train``: self-play with the best net, a learner in
torch, gating, checkpoints.

Each iteration:

1. **self-play**: ``games_per_iteration`` games by PUCT with the *best* net (root noise,
   temperature 1 for the first moves), in worker processes (or in this one), their
   samples added to a replay window of the last ``window`` samples;
2. **learning**: ``steps_per_iteration`` steps of AdamW on uniform batches of the window
   (the value's squared error plus the policy's cross-entropy over legal ids, weight
   decay), on the GPU when torch sees one;
3. **gating**: the learner's net (the candidate) plays ``gate_games`` games against the
   best (PUCT without noise, seats alternating, two random opening actions per game so
   that the games differ); it becomes the best only with a score of at least
   ``gate_threshold``. ``elo`` in the log chains the accepted gates' Elo differences:
   the best net against the first one, through small noisy matches;
4. **writing**: ``latest.npz`` and ``best.npz`` (numpy weights), a row of ``log.csv``,
   ``checkpoint.pt`` (everything needed to go on: nets, optimizer, window, counters)
   and ``progress.png``, each written atomically (:func:`hexgames.ai.network.atomic_write`).

Every random choice derives from the run's seed and the iteration number, so a run
resumed from its checkpoint goes on as it would have.
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from multiprocessing import get_context
from pathlib import Path
from typing import IO, Any

import numpy as np
import torch

from hexgames.ai.network import (
    Architecture,
    PolicyValueNetwork,
    atomic_write,
    save_weights,
)
from hexgames.ai.puct import PuctConfig, PuctPlayer, game_result
from hexgames.game import get_game
from hexgames.training import model
from hexgames.training.actors import ActorTask, Samples, play
from hexgames.training.settings import (
    BEST,
    CHECKPOINT,
    CHECKPOINT_VERSION,
    GATE_OPENING,
    LATEST,
    LOG,
    LOG_COLUMNS,
    PLOT,
    SETTINGS,
    Budget,
    RunState,
    TrainingError,
    TrainSettings,
)


def gate_elo(score: float, games: int) -> float:
    """The Elo difference a gating match's ``score`` (a share of ``games``) suggests,
    half a point of each result added first (``(points + 0.5) / (games + 1)``): a
    small match won outright is weak evidence, and a raw 100% would be infinite."""
    shrunk = (score * games + 0.5) / (games + 1)
    return 400.0 * math.log10(shrunk / (1.0 - shrunk))


class Replay:
    """The replay window: the last ``size`` samples."""

    def __init__(self, size: int, samples: Samples | None = None) -> None:
        self.size = size
        self.data = samples

    def add(self, samples: Samples) -> None:
        joined = samples if self.data is None else Samples.join([self.data, samples])
        self.data = joined.window(self.size)

    def __len__(self) -> int:
        return 0 if self.data is None else len(self.data.values)


class Trainer:
    """A run in directory ``out``: new, or resumed from its checkpoint."""

    def __init__(self, out: Path, settings: TrainSettings | None, *, resume: bool) -> None:
        self.out = out
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        # the same steps from the same checkpoint (a resumed run goes on as it would have)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        if resume:
            self._resume()
        else:
            if settings is None:
                raise TrainingError("a new run needs its settings")
            self._start(settings)

    # -- starting and resuming
    def _start(self, settings: TrainSettings) -> None:
        if (self.out / CHECKPOINT).exists():
            raise TrainingError(f"{self.out} already holds a run ({CHECKPOINT}): pass "
                                "--resume to go on with it, or choose another --out")
        self.out.mkdir(parents=True, exist_ok=True)
        self.settings = settings
        self._setup()
        torch.manual_seed(settings.seed)
        self.net = model.TorchPolicyValueNet(self.arch).to(self.device)
        self.optimizer = self._optimizer()
        self.best = self._numpy()
        self.replay = Replay(settings.window)
        self.state = RunState()
        atomic_write(self.out / SETTINGS,
                     lambda s: s.write(json.dumps(asdict(settings), indent=1).encode()))
        (self.out / LOG).unlink(missing_ok=True)
        self._write_log([])
        self._save()

    def _resume(self) -> None:
        path = self.out / CHECKPOINT
        if not path.exists():
            raise TrainingError(f"--resume: {self.out} holds no {CHECKPOINT} to resume from")
        try:
            saved = torch.load(path, map_location="cpu", weights_only=True)
            if saved.get("version") != CHECKPOINT_VERSION:
                raise TrainingError(f"{path} has checkpoint version {saved.get('version')!r}; "
                                    f"this hexgames reads version {CHECKPOINT_VERSION}")
            self.settings = TrainSettings(**json.loads(saved["settings"]))
            self._setup()
            self.net = model.TorchPolicyValueNet(self.arch).to(self.device)
            self.net.load_state_dict(saved["model"])
            self.optimizer = self._optimizer()
            self.optimizer.load_state_dict(saved["optimizer"])
            self.best = PolicyValueNetwork(
                self.arch, {k: v.numpy() for k, v in saved["best"].items()},
                game=self.settings.game, options=self.settings.options)
            buffer = saved["buffer"]
            self.replay = Replay(self.settings.window, None if buffer is None else Samples(
                buffer["observations"].numpy(), buffer["legal"].numpy(),
                buffer["probs"].numpy(), buffer["values"].numpy(),
                np.zeros(0, np.float32), 0))
            self.state = RunState(**saved["state"])
        except TrainingError:
            raise
        except Exception as error:  # a torn or foreign file: say which
            raise TrainingError(f"cannot resume from {path}: {type(error).__name__}: "
                                f"{error}") from None
        for stray in self.out.glob(".*.tmp"):  # a write cut short (atomic_write's)
            stray.unlink()
        rows = [row for row in self.log_rows() if int(row["iteration"]) <= self.state.iteration]
        self._write_log(rows)  # drop rows written after the checkpoint
        save_weights(self.out / BEST, self.best)
        save_weights(self.out / LATEST, self._numpy())

    def _setup(self) -> None:
        self.game = get_game(self.settings.game)
        self.rules = self.game.rules(**self.settings.options)
        self.arch = Architecture.for_game(self.game, self.rules, channels=self.settings.channels,
                                          blocks=self.settings.blocks)

    def _optimizer(self) -> torch.optim.Optimizer:
        return torch.optim.AdamW(self.net.parameters(), lr=self.settings.learning_rate,
                                 weight_decay=self.settings.weight_decay)

    def _numpy(self) -> PolicyValueNetwork:
        return model.to_numpy(self.net, self.settings.game, self.settings.options)

    # -- the loop
    def run(self, budget: Budget, workers: int,
            on_iteration: Callable[[dict[str, Any]], None] | None = None) -> RunState:
        """Iterate until ``budget`` is spent; ``on_iteration(row)`` after each."""
        if budget.spent(self.state):
            raise TrainingError(
                f"the budget is already spent: the run in {self.out} has "
                f"{self.state.games} games, {self.state.steps} steps and "
                f"{self.state.elapsed / 3600:.3f} hours; give a larger one to go on")
        pool = None
        if workers > 0:
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"))
        try:
            while not budget.spent(self.state):
                row = self.iterate(budget, workers, pool)
                if on_iteration is not None:
                    on_iteration(row)
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)
        return self.state

    def iterate(self, budget: Budget, workers: int,
                pool: ProcessPoolExecutor | None) -> dict[str, Any]:
        started = time.perf_counter()
        s, state = self.settings, self.state
        games = s.games_per_iteration
        if budget.games is not None:
            games = min(games, budget.games - state.games)
        samples = self._self_play(games, workers, pool)
        self.replay.add(samples)
        steps = s.steps_per_iteration
        if budget.steps is not None:
            steps = min(steps, budget.steps - state.steps)
        losses = self._learn(steps)
        candidate = self._numpy()
        score = self._gate(candidate) if s.gate_games else float("nan")
        accepted = s.gate_games == 0 or score >= s.gate_threshold
        if accepted:
            self.best = candidate
            if s.gate_games:
                state.elo += gate_elo(score, s.gate_games)
        state.iteration += 1
        state.games += games
        state.steps += steps
        state.elapsed += time.perf_counter() - started
        row = {"iteration": state.iteration, "elapsed_s": round(state.elapsed, 3),
               "games": state.games, "steps": state.steps, "samples": len(samples.values),
               "loss": losses[0], "value_loss": losses[1], "policy_loss": losses[2],
               "loss_start": losses[3], "loss_end": losses[4],
               "gate_score": score, "accepted": int(accepted), "elo": round(state.elo, 1)}
        save_weights(self.out / LATEST, candidate)
        save_weights(self.out / BEST, self.best)
        self._write_log([*self.log_rows(), {k: str(v) for k, v in row.items()}])
        self._save()
        self._plot()
        return row

    def _self_play(self, games: int, workers: int, pool: ProcessPoolExecutor | None) -> Samples:
        base = self.settings.seed * 1_000_000_007 + self.state.games
        seeds = [base + k for k in range(games)]
        config = self.settings.self_play()
        weights = str(self.out / BEST)
        chunks = [tuple(c) for c in np.array_split(np.array(seeds, np.int64),
                                                    max(1, min(workers, games))) if len(c)]
        tasks = [ActorTask(self.settings.game, self.settings.options, weights, config,
                           tuple(int(x) for x in chunk)) for chunk in chunks]
        parts = [play(task) for task in tasks] if pool is None else list(pool.map(play, tasks))
        return Samples.join(parts)

    def _learn(self, steps: int) -> tuple[float, ...]:
        """``steps`` learner steps: the mean total, value and policy losses over them,
        and the mean total loss over their first and their last quarter (``loss_start``,
        ``loss_end``: how well the net fits the window by the end of the iteration)."""
        data = self.replay.data
        if data is None or not len(data.values) or steps <= 0:
            return (float("nan"),) * 5
        device = self.device
        tensors = [torch.from_numpy(np.ascontiguousarray(a)).to(device) for a in
                   (data.observations, data.legal.astype(np.int64), data.probs, data.values)]
        generator = torch.Generator().manual_seed(self.settings.seed * 100_003 +
                                                  self.state.iteration)
        history = np.zeros((steps, 3))
        self.net.train()
        for step in range(steps):
            index = torch.randint(len(data.values), (self.settings.batch_size,),
                                  generator=generator).to(device)
            observations, legal, probs, values = (t[index] for t in tensors)
            masks, policies = model.dense_targets(legal, probs, self.arch.num_actions)
            total, value, policy = model.loss(self.net, observations, masks, policies, values)
            self.optimizer.zero_grad()
            total.backward()
            self.optimizer.step()
            history[step] = [total.item(), value.item(), policy.item()]
        self.net.eval()
        quarter = max(1, steps // 4)
        mean = history.mean(axis=0)
        return (float(mean[0]), float(mean[1]), float(mean[2]),
                float(history[:quarter, 0].mean()), float(history[-quarter:, 0].mean()))

    def _gate(self, candidate: PolicyValueNetwork) -> float:
        """The candidate's score against the best (wins + draws / 2, per game)."""
        from hexgames.ai.network import NetworkEvaluator

        s = self.settings
        config = PuctConfig(simulations=s.gate_simulations, leaves_per_round=s.leaves_per_round)
        points = 0.0
        for g in range(s.gate_games):
            rng = np.random.default_rng([s.seed, self.state.iteration, g])
            players = [PuctPlayer(self.game, NetworkEvaluator(net), config, seed=g)
                       for net in ((candidate, self.best) if g % 2 == 0
                                   else (self.best, candidate))]
            position = self.game.new_position(self.rules)
            moves = 0
            while not position.is_over and moves < s.max_moves:
                actions = list(position.legal_actions())
                if moves < GATE_OPENING:
                    action = actions[int(rng.integers(len(actions)))]
                else:
                    action = players[position.current_seat].choose(position)
                position.play(action)
                moves += 1
            result = game_result(self.game, position)  # seat 0's
            mine = result if g % 2 == 0 else -result
            points += (mine + 1.0) / 2.0
        return points / s.gate_games

    # -- files
    def _save(self) -> None:
        data = self.replay.data
        buffer = None if data is None else {
            "observations": torch.from_numpy(np.ascontiguousarray(data.observations)),
            "legal": torch.from_numpy(np.ascontiguousarray(data.legal)),
            "probs": torch.from_numpy(np.ascontiguousarray(data.probs)),
            "values": torch.from_numpy(np.ascontiguousarray(data.values))}
        saved = {
            "version": CHECKPOINT_VERSION,
            "settings": json.dumps(asdict(self.settings)),
            "state": asdict(self.state),
            "model": {k: v.detach().cpu() for k, v in self.net.state_dict().items()},
            "optimizer": self.optimizer.state_dict(),
            "best": {k: torch.from_numpy(np.array(v)) for k, v in self.best.params.items()},
            "buffer": buffer,
        }

        def write(stream: IO[bytes]) -> None:
            torch.save(saved, stream)

        atomic_write(self.out / CHECKPOINT, write)
        if self.state.iteration == 0:
            save_weights(self.out / BEST, self.best)
            save_weights(self.out / LATEST, self.best)

    def log_rows(self) -> list[dict[str, str]]:
        path = self.out / LOG
        if not path.exists():
            return []
        with path.open(newline="") as stream:
            return list(csv.DictReader(stream))

    def _write_log(self, rows: list[dict[str, str]]) -> None:
        text = io.StringIO()
        writer = csv.DictWriter(text, LOG_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        atomic_write(self.out / LOG, lambda s: s.write(text.getvalue().encode()))

    def _plot(self) -> None:
        """``progress.png``: the losses and the chained Elo against training time."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        rows = self.log_rows()
        minutes = [float(r["elapsed_s"]) / 60 for r in rows]
        figure = Figure(figsize=(8, 6))
        FigureCanvasAgg(figure)
        top, bottom = figure.subplots(2, 1, sharex=True)
        for column in ("loss", "value_loss", "policy_loss"):
            top.plot(minutes, [float(r[column]) for r in rows], marker=".", label=column)
        top.set_ylabel("loss")
        top.legend()
        bottom.plot(minutes, [float(r["elo"]) for r in rows], marker=".",
                    label="best net's Elo (chained gates)")
        bottom.set_xlabel("training time (minutes)")
        bottom.set_ylabel("Elo vs the first net")
        bottom.legend()
        figure.suptitle(f"hexgames train {self.settings.game} {self.settings.options or ''}")
        atomic_write(self.out / PLOT, lambda s: figure.savefig(s, format="png", dpi=80))


__all__ = ["Replay", "Trainer", "gate_elo"]
