"""UnionWars First Contact, version 0: ``from wargym.envs import union_wars_v0``."""
from .union_wars.env import env, raw_env  # noqa: F401
from .union_wars import game as game  # noqa: F401
