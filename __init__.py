"""wargym: tabletop wargames as fast, faithful PettingZoo environments.

    from wargym.envs import planetoids_v0
    env = planetoids_v0.env(render_mode="ansi")
"""
__version__ = "0.1.0"
