"""Talon, version 0 (the observation without the relational block): ``from wargym.envs import talon_v0``.
talon_v1 is the current version; this one keeps agents trained on the old observation playable."""
from .talon.env import env_v0 as env, raw_env_v0 as raw_env  # noqa: F401
from .talon import game as game  # noqa: F401
