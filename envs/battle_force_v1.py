"""Star Fleet Battle Force, version 1 (each ship's place in its line, in the order the ships came into
it, option ship_order=True): ``from wargym.envs import battle_force_v1``."""
from .battle_force.env import env, raw_env  # noqa: F401
from .battle_force import game as game  # noqa: F401
