"""UnionWars First Contact, version 1 (the mover chooses the facing at the end of a move; no
action table, option relations=False): ``from wargym.envs import union_wars_v1``.  union_wars_v2
is the current version; this one keeps agents trained on v1's observation playable."""
from .union_wars.env import env_v1 as env, raw_env_v1 as raw_env  # noqa: F401
from .union_wars import game as game  # noqa: F401
