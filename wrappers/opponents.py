"""Who plays the other seats when a single learner trains against the game.

An opponent is one of:

* ``"random"`` or ``"scripted"`` (or another name in the game's
  ``bot.POLICIES``): a policy compiled into the game's core
  (``envs/<game>/bot.py``); it plays inside the same kernel call as the
  learner's step, so it costs almost nothing;
* the path of a saved ``MaskablePPO`` model (``.zip``), loaded here;
* a frozen model: anything with SB3's ``predict(obs, action_masks=..., deterministic=...)``
  (e.g. a loaded ``MaskablePPO``), run on the batch of games waiting for it;
* any callable ``policy(obs_batch, mask_batch) -> actions``.
"""
from __future__ import annotations

import numpy as np


class Opponent:
    """Normalised opponent: either a built-in policy id or a batched Python policy."""

    def __init__(self, spec, game, deterministic: bool = False):
        self.builtin: int | None = None
        self.policy = None
        if isinstance(spec, str) and spec not in game.bot.POLICIES and spec.endswith(".zip"):
            spec = load_model(spec)
        if isinstance(spec, str):
            if spec not in game.bot.POLICIES:
                raise ValueError(f"unknown built-in opponent {spec!r}; choose from {sorted(game.bot.POLICIES)}, "
                                 "the path of a saved model (.zip), a model with predict(), "
                                 "or a callable(obs, masks) -> actions")
            self.builtin = game.bot.POLICIES[spec]
            self.name = spec
        elif hasattr(spec, "predict"):
            model = spec

            def policy(obs, masks):
                flat = obs.reshape(len(obs), -1)  # models trained on WargymVecEnv see flat vectors
                actions, _ = model.predict(flat, action_masks=masks.astype(bool), deterministic=deterministic)
                return np.asarray(actions, dtype=np.int64)
            self.policy = policy
            self.name = type(spec).__name__
        elif callable(spec):
            self.policy = spec
            self.name = getattr(spec, "__name__", "callable")
        else:
            raise TypeError(f"opponent must be 'random', 'scripted', a model with predict(), or a callable; got {spec!r}")

    def __repr__(self):
        return f"Opponent({self.name})"


def load_model(path):
    """A saved MaskablePPO model, on the CPU (a clear error if the file is missing)."""
    from pathlib import Path
    if not Path(path).is_file():
        raise FileNotFoundError(f"no saved model at {path!r}")
    from sb3_contrib import MaskablePPO

    from .. import baselines
    entry = baselines.shipped(path)
    if entry is not None:
        return baselines.load(*entry)     # with the game options its index entry names
    return MaskablePPO.load(path, device="cpu")
