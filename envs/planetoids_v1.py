"""Planetoids, version 1 (the action table's first 8 values a row, option relations=1):
``from wargym.envs import planetoids_v1``.  planetoids_v2 is the current version; this one keeps
agents trained on planetoids_v1's observation playable."""
from .planetoids.env import env_v1 as env, raw_env_v1 as raw_env  # noqa: F401
from .planetoids import game as game  # noqa: F401
