"""wargym environments, one module per game and version (PettingZoo style)::

    from wargym.envs import planetoids_v0
    env = planetoids_v0.env()
"""
import importlib

__all__ = ["planetoids_v0"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(name)
