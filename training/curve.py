"""The learning curve: the agent evaluated on a fixed schedule, and its plot.

Every ``every`` learner decisions (and once before PPO starts) the current
policy plays ``games`` games against each reference opponent, the learner's
seat rotating over the games.  The points are plotted against decisions and
against wall time, with the level of the built-in scripted bot against random
drawn in, so that "the agent learned" can be read off the figure.

With ``keep_best`` (a path) the policy of the best point so far (its mean win rate
over the opponents; a later point wins a tie) is saved there, so that a run whose
curve peaks and then sags (UnionWars' PPO did, from 61 % to 41 % against the
scripted bot) can hand back its best policy; the final evaluation then plays
other games than the curve's.
"""
from __future__ import annotations

import time
from pathlib import Path

from stable_baselines3.common.callbacks import BaseCallback

from .evaluate import win_rate


class ScheduledEvaluation(BaseCallback):
    """Evaluates the model every ``every`` learner decisions; keeps the points."""

    def __init__(self, game, options, every: int, games: int, opponents=("random", "scripted"), seed: int = 777,
                 clock=None, verbose_points: bool = True, keep_best: str | Path | None = None,
                 deterministic: bool = False):
        super().__init__()
        self.deterministic = deterministic  # the policy played by its most likely action, not sampled
        self.keep_best = Path(keep_best) if keep_best is not None else None
        self.best: dict | None = None  # the best point so far, when keep_best
        self.verbose_points = verbose_points
        self.game, self.options, self.every, self.games = game, options, int(every), int(games)
        self.opponents, self.seed = tuple(opponents), seed
        self.points: list[dict] = []
        self.seconds = 0.0  # time spent evaluating (not training)
        self.clock = clock or time.perf_counter
        self._start = self.clock()
        self._next = 0

    def evaluate(self, model, decisions: int) -> dict:
        t0 = self.clock()
        point = {"decisions": int(decisions), "wall_seconds": round(t0 - self._start - self.seconds, 2)}
        for k, opp in enumerate(self.opponents):
            r = win_rate(model, self.game, opponent=opp, n_games=self.games, seed=self.seed + k,
                         options=self.options, deterministic=self.deterministic)
            point[opp] = r
        self.points.append(point)
        score = sum(point[opp]["win_rate"] for opp in self.opponents) / len(self.opponents)
        if self.keep_best is not None and (self.best is None or score >= self.best["score"]):
            model.save(self.keep_best)
            self.best = {"decisions": int(decisions), "score": score}
        self.seconds += self.clock() - t0
        if self.verbose_points:
            rates = ", ".join(f"vs {opp} {point[opp]['win_rate']:.0%} won / {point[opp]['draws']} drawn"
                              for opp in self.opponents)
            print(f"  curve at {decisions:,} decisions: {rates} of {self.games} games each", flush=True)
        return point

    def _on_training_start(self) -> None:
        if not self.points:
            self.evaluate(self.model, self.num_timesteps)
        self._next = self.num_timesteps + self.every

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        if self.num_timesteps >= self._next:
            self.evaluate(self.model, self.num_timesteps)
            self._next += self.every * max(1, (self.num_timesteps - self._next) // self.every + 1)


class WallClockBudget(BaseCallback):
    """Stops PPO once the run's training time reaches ``seconds``: what was ``spent`` before PPO (the
    warm start) plus PPO's own time, less the time the curve's ``evaluations`` (a
    ScheduledEvaluation) took, so that a fixed budget buys the same training whatever the curve costs.
    Checked at every step of the batched env (one step is ``n_envs`` decisions)."""

    def __init__(self, seconds: float, spent: float = 0.0, evaluations: ScheduledEvaluation | None = None,
                 clock=None):
        super().__init__()
        self.budget, self.spent, self.evaluations = float(seconds), float(spent), evaluations
        self.clock = clock or time.perf_counter
        self.spent_out = False
        self._start = self._evaluated = 0.0

    def _evaluating(self) -> float:
        return self.evaluations.seconds if self.evaluations is not None else 0.0

    def training_seconds(self) -> float:
        return self.spent + (self.clock() - self._start) - (self._evaluating() - self._evaluated)

    def _on_training_start(self) -> None:
        # after the curve's first point when the curve comes first in the callback list: only the
        # evaluations from here on are subtracted
        self._start, self._evaluated = self.clock(), self._evaluating()

    def _on_step(self) -> bool:
        self.spent_out = self.training_seconds() >= self.budget
        return not self.spent_out


def plot_curve(points: list[dict], path, title: str, reference: dict | None = None) -> Path:
    """Win and draw rates against decisions and wall time; ``reference`` = {label: win rate}
    drawn as horizontal lines (e.g. the scripted bot against random)."""
    import matplotlib.pyplot as plt

    path = Path(path)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    opponents = [k for k in (points[0] if points else {}) if k not in ("decisions", "wall_seconds")]
    for ax, xkey, xlabel in ((axes[0], "decisions", "learner decisions"), (axes[1], "wall_seconds",
                                                                           "wall time of training (s)")):
        x = [p[xkey] for p in points]
        for opp in opponents:
            ax.plot(x, [p[opp]["win_rate"] for p in points], "o-", label=f"wins vs {opp}")
            ax.plot(x, [p[opp]["draws"] / max(1, p[opp]["games"]) for p in points], ":", alpha=0.6,
                    label=f"draws vs {opp}")
        for label, level in (reference or {}).items():
            ax.axhline(level, color="grey", linestyle="--", linewidth=1)
            ax.text(x[0] if x else 0, level, f" {label}", va="bottom", fontsize=8, color="grey")
        ax.set(xlabel=xlabel, ylim=(-0.05, 1.05))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of evaluation games")
    axes[0].legend(loc="center right", fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
