"""Planetoids, version 1 (the observation ends with the action table, option relations):
``from wargym.envs import planetoids_v1``."""
from .planetoids.env import env, raw_env  # noqa: F401
from .planetoids import game as game  # noqa: F401
