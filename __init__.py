"""wargym: tabletop wargames as fast, faithful PettingZoo environments.

    from wargym.envs import planetoids_v0
    env = planetoids_v0.env(render_mode="ansi")
"""
__version__ = "0.1.0"

# PettingZoo's and Gymnasium's registries: pettingzoo.make("aec", "wargym/planetoids_v0"),
# gymnasium.make("wargym/Planetoids-v0") (string entry points: nothing is compiled here)
from .registration import register_all as _register_all

_register_all()
