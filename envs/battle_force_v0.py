"""Star Fleet Battle Force, version 0: ``from wargym.envs import battle_force_v0``."""
from .battle_force.env import env, raw_env  # noqa: F401
from .battle_force import game as game  # noqa: F401
