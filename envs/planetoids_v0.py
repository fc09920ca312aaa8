"""Planetoids, version 0: ``from wargym.envs import planetoids_v0``."""
from .planetoids.env import env, raw_env  # noqa: F401
from .planetoids import game as game  # noqa: F401
