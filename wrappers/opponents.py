"""Who plays the other seats when a single learner trains against the game.

An opponent is one of:

* ``"random"`` or ``"scripted"`` (or another name in the game's
  ``bot.POLICIES``): a policy compiled into the game's core
  (``envs/<game>/bot.py``); it plays inside the same kernel call as the
  learner's step, so it costs almost nothing;
* the path of a saved ``MaskablePPO`` model (``.zip``), loaded here;
* a frozen model: anything with SB3's ``predict(obs, action_masks=..., deterministic=...)``
  (e.g. a loaded ``MaskablePPO``), run on the batch of games waiting for it;
* any callable ``policy(obs_batch, mask_batch) -> actions``;
* a search bot, ``"search"``, ``"search:N"`` or ``"search:Nms"`` (envs/core/search.py: N
  simulations or N milliseconds a decision), or the tree search ``"mcts"`` with the same budgets
  (``"mcts:N@BASELINE"``: anchored on a shipped agent), which searches the batch of games waiting for it;
  stronger than the scripted bot, and as slow as its budget makes it (Python-side, like a model);
* a mixture of built-in policies, ``"random,scripted"``: each game plays one of them for
  the whole run (``mixture_ids``), so that one batch trains against several levels of play at
  once (e.g. the scripted bot, who fights, and random play, who must be hunted down).
"""
from __future__ import annotations

import numpy as np

from ..envs.core.search import check_anchor, is_search_spec, parse_budget, searchable


MIXTURE_SEPARATOR = ","


def is_mixture(spec) -> bool:
    return isinstance(spec, str) and MIXTURE_SEPARATOR in spec


def mixture_names(spec: str) -> list[str]:
    """The policies a mixture ``"a,b,..."`` names, in order."""
    return [name.strip() for name in spec.split(MIXTURE_SEPARATOR)]


def mixture_ids(spec: str, game, num_envs: int, num_players: int) -> np.ndarray:
    """The built-in policy id of each game for a mixture ``"a,b,..."``: game ``b`` plays entry
    ``(b // num_players) % k``, so that with the learner's seat rotating (seat ``b % players``)
    every entry meets the learner in every seat equally often."""
    names = mixture_names(spec)
    unknown = [name for name in names if name not in game.bot.POLICIES]
    if unknown or len(names) < 2:
        raise ValueError(f"a mixture of opponents names two or more built-in policies of the game "
                         f"({sorted(game.bot.POLICIES)}), comma-separated; got {spec!r}")
    ids = np.array([game.bot.POLICIES[name] for name in names], np.int64)
    return ids[(np.arange(num_envs) // num_players) % len(ids)]


class Opponent:
    """Normalised opponent: a built-in policy id, the search bot (``search``: its spec, for
    ``core.search.searcher_for``) or a batched Python policy."""

    def __init__(self, spec, game, deterministic: bool = False):
        self.builtin: int | None = None
        self.policy = None
        self.search: str | None = None
        if is_search_spec(spec):
            if not searchable(game):
                raise ValueError(f"the search bot does not play {game.NAME} (hidden cards it would read)")
            parse_budget(spec)  # a bad budget (or anchor) raises here, not at the first opponent move
            check_anchor(spec, game)
            self.search = self.name = spec.strip()
            return
        if isinstance(spec, str) and spec not in game.bot.POLICIES and spec.endswith(".zip"):
            spec = load_model(spec)
        if isinstance(spec, str):
            if spec not in game.bot.POLICIES:
                raise ValueError(f"unknown built-in opponent {spec!r}; choose from {sorted(game.bot.POLICIES)}, "
                                 "a search bot (search, search:N, mcts, mcts:N, mcts:N@BASELINE), the path of a saved model (.zip), a model "
                                 "with predict(), "
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
