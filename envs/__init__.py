"""wargym environments, one module per game and version (PettingZoo style)::

    from wargym.envs import planetoids_v0
    env = planetoids_v0.env()

The modules are imported on first use (each compiles or loads its kernels).
``import wargym`` also registers every game with PettingZoo and Gymnasium
(see ``wargym/registration.py``).
"""
import importlib

__all__ = ["planetoids_v2", "talon_v1", "battle_force_v1", "union_wars_v2"]  # every game (from wargym.envs import *)
# earlier versions, importable for agents trained on them (registration.LEGACY_VERSIONS)
EARLIER = ["planetoids_v1", "planetoids_v0", "talon_v0", "battle_force_v0", "union_wars_v1", "union_wars_v0"]


def __getattr__(name):
    if name in __all__ or name in EARLIER:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(name)
