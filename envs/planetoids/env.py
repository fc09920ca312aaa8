"""PettingZoo AEC environment for Planetoids (seed 004): ``raw_env`` is planetoids_v2; ``raw_env_v1``
and ``raw_env_v0`` the same game with planetoids_v1's observation (the action table's first 8 values
a row) and planetoids_v0's (no action table)."""
from __future__ import annotations

from pettingzoo.utils import wrappers

from ..core.aec import WargymAEC, earlier_version
from . import game
from .render import render as _render


class raw_env(WargymAEC):  # noqa: N801 (PettingZoo naming)
    """Planetoids, two players.  Options: see ``game.DEFAULT_OPTIONS`` and RULES.md."""
    metadata = {**WargymAEC.metadata, "name": "planetoids_v2"}
    game = game
    renderer = staticmethod(_render)


def env(**kwargs):
    """The AEC env with PettingZoo's order checks (call reset before step, and so on)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


# the earlier observations, for agents trained on them: planetoids_v1's action table (before the
# steps' gains) and planetoids_v0's (before the action table)
raw_env_v1, env_v1 = earlier_version(raw_env, "planetoids_v1", {"relations": 1})
raw_env_v0, env_v0 = earlier_version(raw_env, "planetoids_v0", {"relations": 0})
