"""Talon, version 0: ``from wargym.envs import talon_v0``."""
from .talon.env import env, raw_env  # noqa: F401
from .talon import game as game  # noqa: F401
