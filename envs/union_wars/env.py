"""PettingZoo AEC environment for UnionWars First Contact (seed 003)."""
from __future__ import annotations

from pettingzoo.utils import wrappers

from ..core.aec import WargymAEC
from . import game
from .render import render as _render


class raw_env(WargymAEC):  # noqa: N801 (PettingZoo naming)
    """UnionWars, two players.  Options: see ``game.DEFAULT_OPTIONS`` and RULES.md."""
    metadata = {**WargymAEC.metadata, "name": "union_wars_v0"}
    game = game
    renderer = staticmethod(_render)


def env(**kwargs):
    """The AEC env with PettingZoo's order checks (call reset before step, and so on)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
