"""wargym: tabletop wargames as fast, faithful PettingZoo environments.

    from wargym.envs import planetoids_v2
    env = planetoids_v2.env(render_mode="ansi")
"""
__version__ = "0.1.0"

# PettingZoo's and Gymnasium's registries: pettingzoo.make("aec", "wargym/planetoids_v2"),
# gymnasium.make("wargym/Planetoids-v2") (string entry points: nothing is compiled here).
# Only as a package: pytest imports this file on its own as the checkout's top-level package
# when it sets up the tests, and a checkout's folder need not be a valid package name.
if __package__:
    from .registration import register_all as _register_all

    _register_all()
