"""UnionWars First Contact, version 2 (the action table: what each action does, one row per
action, option relations=True): ``from wargym.envs import union_wars_v2``."""
from .union_wars.env import env, raw_env  # noqa: F401
from .union_wars import game as game  # noqa: F401
