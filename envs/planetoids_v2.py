"""Planetoids, version 2 (the action table says what each step of the active piece gains, option
relations=2): ``from wargym.envs import planetoids_v2``."""
from .planetoids.env import env, raw_env  # noqa: F401
from .planetoids import game as game  # noqa: F401
