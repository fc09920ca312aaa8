"""Star Fleet Battle Force, version 0 (no ship order in the observation, option ship_order=False):
``from wargym.envs import battle_force_v0``.  battle_force_v1 is the current version; this one keeps
agents trained on battle_force_v0's observation playable."""
from .battle_force.env import env_v0 as env, raw_env_v0 as raw_env  # noqa: F401
from .battle_force import game as game  # noqa: F401
