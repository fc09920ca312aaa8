"""The self-play league on RLlib: past snapshots of the learner plus the built-in bots,
with opponents chosen by how the learner fares against them in the arena.

``wargym-train --backend rllib --opponent self-play``.  Before every training iteration:

* every ``snapshot_every`` iterations (and before the first) a frozen copy of the
  learner joins the league, which keeps the newest ``keep`` snapshots; the game's
  built-in bots (random, scripted, ...) are always in it;
* every ``rate_every`` iterations the arena plays the learner against each member
  (``arena.matches.play_lineup``: ``games`` games, the learner's seat rotated, the
  game's win/rank reward, so +1 first .. -1 last), giving each member the learner's
  score ``s = (mean result + 1) / 2`` (1 = the learner always wins).  The arena's games
  run one decision at a time in Python for the models, so rating is costly: measured on
  Battle Force (2 cores, busy), one rating of 5 members at 16 games took 70-126 s while an
  iteration of 512 decisions took 1-4 s; hence the defaults of 8 games every 20 iterations;
* the iteration's opponent is drawn with weight ``(1 - s)^2 + floor``: members the
  learner still loses to are played most (prioritised fictitious self-play, "hard"
  weighting), and the floor (0.05) keeps every member in play so nothing is forgotten.
  A member not yet rated gets s = 0.5.

The opponent is set in every env runner's env (``WargymVectorEnv.set_opponent``): a bot
by name (inside the compiled core), a snapshot as the module with the snapshot's weights
(batched per seat).  Draws come from a generator seeded by ``--seed``.
"""
from __future__ import annotations

import copy

import numpy as np

from ..arena.matches import arena_options, play_lineup
from ..arena.policies import Policy, builtin_names, load_game
from .policy import RLlibPolicy

MODULE_ID = "default_policy"


def pfsp_weights(scores: np.ndarray, floor: float = 0.05) -> np.ndarray:
    """Drawing probabilities from the learner's scores against each member (see module doc)."""
    scores = np.clip(np.asarray(scores, dtype=float), 0.0, 1.0)
    w = (1.0 - scores) ** 2 + floor
    return w / w.sum()


class RatedLeague:
    """Snapshots and bots; ``before_iteration(algo, i)`` sets the next opponent (module doc)."""

    def __init__(self, game: str, options: dict, snapshot_every: int = 10, keep: int = 6, rate_every: int = 20,
                 games: int = 8, floor: float = 0.05, seed: int = 0):
        self.game_name, self.game = game, load_game(game)
        self.options = arena_options(game, {k: v for k, v in options.items() if k != "reward"})
        self.snapshot_every, self.keep, self.rate_every = int(snapshot_every), int(keep), int(rate_every)
        self.games, self.floor = int(games), float(floor)
        self.bots = builtin_names(self.game)
        self.snapshots: list[tuple[str, dict]] = []  # (name, weights)
        self.scores: dict[str, float] = {}
        self.rng = np.random.default_rng(seed)
        self.history: list[dict] = []  # per iteration: the opponent and the scores it was drawn from

    @property
    def members(self) -> list[str]:
        return self.bots + [name for name, _ in self.snapshots]

    def before_iteration(self, algo, iteration: int) -> None:
        learner = algo.get_module(MODULE_ID)
        if iteration % self.snapshot_every == 0:
            weights = {k: v.detach().clone() for k, v in learner.state_dict().items()}
            self.snapshots.append((f"snapshot@{iteration}", weights))
            del self.snapshots[:-self.keep]
        if iteration % self.rate_every == 0:
            self.rate(learner, seed=1000 + iteration)
        members = self.members
        probs = pfsp_weights([self.scores.get(m, 0.5) for m in members], self.floor)
        choice = members[int(self.rng.choice(len(members), p=probs))]
        self.history.append({"iteration": iteration + 1, "opponent": choice,
                             "scores": {m: round(self.scores.get(m, 0.5), 3) for m in members}})
        set_opponent(algo, choice if choice in self.bots else dict(self.snapshots)[choice])

    def rate(self, learner, seed: int) -> None:
        """The learner's arena score against every member (``games`` games each)."""
        me = Policy("learner", model=RLlibPolicy(frozen(learner), "learner"), path=None)
        P = players(self.game, self.options)
        for k, name in enumerate(self.members):
            if name in self.bots:
                other = Policy(name, builtin=int(self.game.bot.POLICIES[name]))
            else:
                other = Policy(name, model=RLlibPolicy(frozen(learner, dict(self.snapshots)[name]), name))
            total, n = 0.0, 0
            for seat in range(P):  # the learner in every seat, the member in all the others
                seats = [other] * P
                seats[seat] = me
                games = max(1, self.games // P)
                total += float(play_lineup(self.game, seats, games, self.options, seed + 97 * k + seat)[:, seat].sum())
                n += games
            self.scores[name] = (total / n + 1.0) / 2.0


def frozen(module, weights: dict | None = None):
    """A copy of ``module`` (optionally with other ``weights``) that does not train."""
    copy_ = copy.deepcopy(module)
    if weights is not None:
        copy_.load_state_dict(weights)
    copy_.eval()
    for p in copy_.parameters():
        p.requires_grad_(False)
    return copy_


def set_opponent(algo, opponent) -> None:
    """Every env runner's games get ``opponent``: a bot's name or a snapshot's weights."""
    def apply(runner, opponent=opponent):
        env = getattr(runner, "env", None)
        if env is None:
            return None
        target = env.unwrapped
        if isinstance(opponent, str):
            target.set_opponent(opponent)
        else:
            snapshot = frozen(runner.module, opponent)
            target.set_opponent(lambda obs, masks: snapshot.act(obs, masks))
        return None
    algo.env_runner_group.foreach_env_runner(apply, local_env_runner=True)


def players(game, options) -> int:
    """The number of seats of ``game`` with ``options``."""
    cfg = game.build_config(game.parse_options(options))
    n = game.num_players
    return int(n(cfg) if callable(n) else n)
