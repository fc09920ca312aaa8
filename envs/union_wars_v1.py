"""UnionWars First Contact, version 1 (the mover chooses the facing at the end of a move, option
facing="choose"): ``from wargym.envs import union_wars_v1``."""
from .union_wars.env import env, raw_env  # noqa: F401
from .union_wars import game as game  # noqa: F401
