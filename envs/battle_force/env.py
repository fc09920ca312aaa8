"""PettingZoo AEC environment for Star Fleet Battle Force (seed 001), 2-6 players: ``raw_env`` is
battle_force_v1; ``raw_env_v0`` the same game with battle_force_v0's observation (no ship order)."""
from __future__ import annotations

from pettingzoo.utils import wrappers

from ..core.aec import WargymAEC, earlier_version
from . import game
from .render import render as _render


class raw_env(WargymAEC):  # noqa: N801 (PettingZoo naming)
    """Star Fleet Battle Force for ``players`` = 2..6 agents ``player_0`` ... ``player_{n-1}``.

    The next decision may belong to any player: the defender during a defence, the attacker
    for its answers, each other player in turn against a PF Flotilla.  Options: see
    ``game.DEFAULT_OPTIONS`` and RULES.md."""
    metadata = {**WargymAEC.metadata, "name": "battle_force_v1"}
    game = game
    renderer = staticmethod(_render)


def env(**kwargs):
    """The AEC env with PettingZoo's order checks (call reset before step, and so on)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


# the earlier observation, for agents trained on it: battle_force_v0's (before the ships' order)
raw_env_v0, env_v0 = earlier_version(raw_env, "battle_force_v0", {"ship_order": False})
