"""Every wargym game in PettingZoo's and Gymnasium's registries (run by ``import wargym``).

    import wargym, pettingzoo, gymnasium
    env = pettingzoo.make("aec", "wargym/planetoids_v0")        # the AEC env, options as keywords
    env = gymnasium.make("wargym/Planetoids-v0", opponent="random")  # one learner against an opponent

The entry points are strings, so registering imports no game (no kernel is
compiled until an env is made).  The Gymnasium adapters are
``wargym.wrappers.sb3:WargymSingleAgentEnv``, which needs the ``train`` extra.
"""
from __future__ import annotations

import importlib

NAMESPACE = "wargym"
SINGLE_AGENT_ENTRY_POINT = "wargym.wrappers.sb3:WargymSingleAgentEnv"


# env module -> (Gymnasium id of the single-agent adapter, its ``game=`` key, what the game is)
GAMES = {
    "planetoids_v2": ("Planetoids-v2", "planetoids", "Planetoids: two-player hex colonisation over 51 turns"),
    "talon_v1": ("Talon-v1", "talon", "Talon: impulse-level hex fleet combat, every section"),
    "battle_force_v1": ("BattleForce-v1", "battle_force", "Star Fleet Battle Force: 2-6 player card game"),
    "union_wars_v2": ("UnionWars-v2", "union_wars", "UnionWars First Contact: skirmish of actions and reactions"),
}


# Earlier versions still registered, so that agents trained on them keep playing: env module ->
# (Gymnasium id, game key, the options that make the game observe as that version did).  They are
# not in GAMES: every "each game" list in wargym reads GAMES, the current versions.
LEGACY_VERSIONS = {
    "planetoids_v1": ("Planetoids-v1", "planetoids", {"relations": 1}),   # before the steps' gains (planetoids_v2)
    "planetoids_v0": ("Planetoids-v0", "planetoids", {"relations": 0}),   # before the action table
    "talon_v0": ("Talon-v0", "talon", {"relations": False}),     # before the relational block (talon_v1)
    "battle_force_v0": ("BattleForce-v0", "battle_force", {"ship_order": False}),   # before the ships' order (v1)
    "union_wars_v1": ("UnionWars-v1", "union_wars", {"relations": False}),     # before the action table (union_wars_v2)
    # also before the mover chose the facing at the end of a move (union_wars_v1: MOVIMENTO "e/o ruotare")
    "union_wars_v0": ("UnionWars-v0", "union_wars", {"facing": "travel", "relations": False}),
}


def every_version() -> dict:
    """GAMES and the earlier versions still registered, module -> (Gymnasium name, game key, what it is):
    what a server offers, so that clients written against an earlier version keep working."""
    about = {key: text for _gym, key, text in GAMES.values()}
    return {**GAMES, **{module: (gym, key, f"{about[key]} (earlier observation: options {options})")
                        for module, (gym, key, options) in LEGACY_VERSIONS.items()}}


# The games' short names (``game=`` of the adapters, ``--game`` of wargym-train and wargym-arena):
# every list of games in wargym is read from here.
GAME_KEYS = tuple(key for _gym_name, key, _about in GAMES.values())


def game_module(key: str) -> str:
    """The import path of a game's ``game`` module (options, layout, kernels, ``bot``)."""
    return f"wargym.envs.{key}.game"


def game_key(game) -> str:
    """The key of a loaded ``game`` module (``wargym.envs.talon.game`` -> ``talon``): game_module's inverse."""
    return game.__name__.split(".")[-2]


def current_module(key: str) -> str:
    """The current env module of a game key (``talon`` -> ``talon_v1``)."""
    return next((module for module, (_gym, k, _about) in GAMES.items() if k == key), f"{key}_v0")


def load_game(key: str):
    """The ``game`` module of a game key (``wargym.envs.<key>.game``: options, layout, kernels, ``bot``);
    every part of wargym that loads a game by name comes here."""
    if key not in GAME_KEYS:
        raise ValueError(f"unknown game {key!r}; known: {', '.join(GAME_KEYS)}")
    return importlib.import_module(game_module(key))


def env_module(module: str):
    """The env module of a registered version (``talon_v1``: ``env``, ``raw_env``, ``game``)."""
    if module not in every_version():
        raise ValueError(f"unknown env module {module!r}; known: {', '.join(every_version())}")
    return importlib.import_module(f"wargym.envs.{module}")


def pettingzoo_id(module: str) -> str:
    return f"{NAMESPACE}/{module}"


def gymnasium_id(module: str) -> str:
    return f"{NAMESPACE}/{GAMES[module][0]}"


def register_all() -> None:
    """Register every game once (importing wargym again, or reloading it, adds nothing)."""
    import gymnasium
    import pettingzoo

    # PettingZoo's registry exists from 1.27 on; older versions have only the modules
    pz_register = getattr(pettingzoo, "register", None)
    for module, (_gym_name, game_key, _about) in GAMES.items():
        if pz_register is not None and not _in_pettingzoo(pettingzoo, pettingzoo_id(module)):
            pz_register("aec", pettingzoo_id(module), entry_point=f"wargym.envs.{module}:env")
        if gymnasium_id(module) not in gymnasium.registry:
            gymnasium.register(gymnasium_id(module), entry_point=SINGLE_AGENT_ENTRY_POINT, kwargs={"game": game_key})
    for module, (gym_name, game_key, options) in LEGACY_VERSIONS.items():
        if pz_register is not None and not _in_pettingzoo(pettingzoo, pettingzoo_id(module)):
            pz_register("aec", pettingzoo_id(module), entry_point=f"wargym.envs.{module}:env")
        if f"{NAMESPACE}/{gym_name}" not in gymnasium.registry:
            gymnasium.register(f"{NAMESPACE}/{gym_name}", entry_point=SINGLE_AGENT_ENTRY_POINT,
                               kwargs={"game": game_key, "options": dict(options)})


def _in_pettingzoo(pettingzoo, env_id: str) -> bool:
    try:
        pettingzoo.spec("aec", env_id)
    except Exception:  # PettingZoo's NameNotFound and kin
        return False
    return True
