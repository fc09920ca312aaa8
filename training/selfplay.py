"""Self-play against a league: frozen snapshots of the learner plus the built-in bots.

``wargym-train --opponent self-play`` trains the learner against opponents drawn,
rollout by rollout, from a league:

* every ``snapshot_every`` rollouts (and once before the first) a frozen copy of
  the learner's policy joins the league; the league keeps the newest ``keep``;
* before each rollout the opponent of every game is drawn: with probability
  ``builtin_share`` one of the game's built-in bots (uniformly: random, the
  scripted bot, ...), otherwise a snapshot, the newest with weight 2 and the others
  with weight 1 each (recent strength, without forgetting how to beat older play).

One opponent serves all the games of a rollout (they share one batched call); a
new draw takes over in the middle of games already running, as any opponent
change between rollouts does.  The draws come from their own seeded generator, so
a run is reproducible from ``--seed``.
"""
from __future__ import annotations

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback


class FrozenPolicy:
    """A copy of a policy at one moment, acting through ``predict`` (sampled actions)."""

    def __init__(self, policy, name: str):
        # a new policy of the same construction with the learner's weights (a deepcopy
        # would also copy the last action distribution and its autograd graph)
        self.policy = type(policy)(**policy._get_constructor_parameters())
        self.policy.load_state_dict(policy.state_dict())
        self.policy.eval()
        self.name = name
        for p in self.policy.parameters():
            p.requires_grad_(False)

    def predict(self, obs, action_masks=None, deterministic=False):
        return self.policy.predict(obs, action_masks=action_masks, deterministic=deterministic)


class League(BaseCallback):
    """Keeps the snapshots and sets the env's opponent before every rollout."""

    def __init__(self, env, builtins, snapshot_every: int = 10, keep: int = 8, builtin_share: float = 0.2,
                 seed: int = 0):
        super().__init__()
        if not builtins:
            raise ValueError("the league needs at least one built-in bot")
        self.env, self.builtins = env, list(builtins)
        self.snapshot_every, self.keep, self.builtin_share = int(snapshot_every), int(keep), float(builtin_share)
        self.snapshots: list[FrozenPolicy] = []
        self.rng = np.random.default_rng(seed)
        self.rollouts = 0
        self.history: list[str] = []  # the opponent of each rollout, by name

    def snapshot(self) -> None:
        self.snapshots.append(FrozenPolicy(self.model.policy, f"snapshot@{self.num_timesteps}"))
        del self.snapshots[:-self.keep]

    def draw(self):
        """The next rollout's opponent: a built-in bot's name or a snapshot."""
        if not self.snapshots or self.rng.random() < self.builtin_share:
            return self.builtins[self.rng.integers(len(self.builtins))]
        weights = np.ones(len(self.snapshots))
        weights[-1] = 2.0
        return self.snapshots[self.rng.choice(len(self.snapshots), p=weights / weights.sum())]

    def _on_rollout_start(self) -> None:
        if self.rollouts % self.snapshot_every == 0:
            self.snapshot()
        self.rollouts += 1
        opponent = self.draw()
        self.history.append(opponent if isinstance(opponent, str) else opponent.name)
        self.env.set_opponent(opponent)

    def _on_step(self) -> bool:
        return True
