"""PettingZoo AEC environment for UnionWars First Contact (seed 003): ``raw_env`` is union_wars_v2,
``raw_env_v1`` the same game with union_wars_v1's observation (no action table), ``raw_env_v0``
as union_wars_v0 played it (also every move ends facing its direction of travel)."""
from __future__ import annotations

from pettingzoo.utils import wrappers

from ..core.aec import WargymAEC, earlier_version
from . import game
from .render import render as _render


class raw_env(WargymAEC):  # noqa: N801 (PettingZoo naming)
    """UnionWars, two players.  Options: see ``game.DEFAULT_OPTIONS`` and RULES.md."""
    metadata = {**WargymAEC.metadata, "name": "union_wars_v2"}
    game = game
    renderer = staticmethod(_render)


def env(**kwargs):
    """The AEC env with PettingZoo's order checks (call reset before step, and so on)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


# union_wars_v1: before the action table (option relations=False), for agents trained on it
raw_env_v1, env_v1 = earlier_version(raw_env, "union_wars_v1", {"relations": False})
# union_wars_v0: also before the facing choice (option facing="travel")
raw_env_v0, env_v0 = earlier_version(raw_env, "union_wars_v0", {"facing": "travel", "relations": False})
