"""Planetoids, version 0 (the observation without the action table): ``from wargym.envs import planetoids_v0``.
planetoids_v2 is the current version; this one keeps agents trained on the old observation playable."""
from .planetoids.env import env_v0 as env, raw_env_v0 as raw_env  # noqa: F401
from .planetoids import game as game  # noqa: F401
