"""UnionWars First Contact, version 0 (every move ends facing its direction of travel, option
facing="travel"): ``from wargym.envs import union_wars_v0``.  union_wars_v2 is the current version;
this one keeps agents trained before the facing choice playable."""
from .union_wars.env import env_v0 as env, raw_env_v0 as raw_env  # noqa: F401
from .union_wars import game as game  # noqa: F401
