"""PettingZoo AEC environment for Talon (seeds 000 and 002): ``raw_env`` is talon_v1, ``raw_env_v0``
the same game with talon_v0's observation (no relational block)."""
from __future__ import annotations

from pettingzoo.utils import wrappers

from ..core.aec import WargymAEC, earlier_version
from . import game
from .render import render as _render


class raw_env(WargymAEC):  # noqa: N801 (PettingZoo naming)
    """Talon, two players (player_0 the Terran side of the built-in scenarios, player_1 the Talon side).

    Options: see ``game.DEFAULT_OPTIONS`` and RULES.md."""
    metadata = {**WargymAEC.metadata, "name": "talon_v1"}
    game = game
    renderer = staticmethod(_render)


def env(**kwargs):
    """The AEC env with PettingZoo's order checks (call reset before step, and so on)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


# talon_v0: the observation before the relational block, for agents trained on it
raw_env_v0, env_v0 = earlier_version(raw_env, "talon_v0", {"relations": False})
