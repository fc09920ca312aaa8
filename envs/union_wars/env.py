"""PettingZoo AEC environment for UnionWars First Contact (seed 003): ``raw_env`` is union_wars_v1,
``raw_env_v0`` the same game as union_wars_v0 played it (every move ends facing its direction of travel)."""
from __future__ import annotations

from pettingzoo.utils import wrappers

from ..core.aec import WargymAEC, earlier_version
from . import game
from .render import render as _render


class raw_env(WargymAEC):  # noqa: N801 (PettingZoo naming)
    """UnionWars, two players.  Options: see ``game.DEFAULT_OPTIONS`` and RULES.md."""
    metadata = {**WargymAEC.metadata, "name": "union_wars_v1"}
    game = game
    renderer = staticmethod(_render)


def env(**kwargs):
    """The AEC env with PettingZoo's order checks (call reset before step, and so on)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


# union_wars_v0: before the facing choice (option facing="travel"), for agents trained on it
raw_env_v0, env_v0 = earlier_version(raw_env, "union_wars_v0", {"facing": "travel"})
