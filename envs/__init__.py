"""wargym environments, one module per game and version (PettingZoo style)::

    from wargym.envs import planetoids_v0
    env = planetoids_v0.env()

The modules are imported on first use (each compiles or loads its kernels).
``import wargym`` also registers every game with PettingZoo and Gymnasium
(see ``wargym/registration.py``).
"""
import importlib

__all__ = ["planetoids_v1", "planetoids_v0", "talon_v1", "talon_v0", "battle_force_v0", "union_wars_v0"]  # every game (from wargym.envs import *)


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(name)
