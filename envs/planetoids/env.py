"""PettingZoo AEC environment for Planetoids (seed 004): ``raw_env`` is planetoids_v1, ``raw_env_v0``
the same game with planetoids_v0's observation (no action table)."""
from __future__ import annotations

from pettingzoo.utils import wrappers

from ..core.aec import WargymAEC, earlier_version
from . import game
from .render import render as _render


class raw_env(WargymAEC):  # noqa: N801 (PettingZoo naming)
    """Planetoids, two players.  Options: see ``game.DEFAULT_OPTIONS`` and RULES.md."""
    metadata = {**WargymAEC.metadata, "name": "planetoids_v1"}
    game = game
    renderer = staticmethod(_render)


def env(**kwargs):
    """The AEC env with PettingZoo's order checks (call reset before step, and so on)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


# planetoids_v0: the observation before the action table, for agents trained on it
raw_env_v0, env_v0 = earlier_version(raw_env, "planetoids_v0", {"relations": False})
