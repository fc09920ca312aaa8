"""Talon, version 1 (the observation ends with the relational block, option relations):
``from wargym.envs import talon_v1``."""
from .talon.env import env, raw_env  # noqa: F401
from .talon import game as game  # noqa: F401
