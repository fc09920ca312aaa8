"""The game contract: what a game package provides, and all that the rest of wargym reads of it.

A game is its ``game`` module (``wargym.envs.<key>.game``, what ``registration.load_game(key)``
returns and ``VecGame`` receives as ``game``).  ``VecGame`` (vec.py), the AEC env (aec.py), the
state checks (validate.py), the adapters (wrappers/, rllib/), the loops' front ends (``game.bot``,
made by loops.py), the training tools (training/), the arena (arena/), the server (serve/) and the
benchmarks read the members declared here and nothing else:

* ``GameDef``: the game module's required members; ``game.kernels`` is a ``KernelsDef`` (the
  batched rules VecGame calls) and ``game.bot`` a ``BotDef`` (the compiled opponents, whose
  ``LOOPS`` is a ``LoopsDef``);
* ``OPTIONAL_GAME_MEMBERS`` and ``OPTIONAL_BOT_MEMBERS``: members read with a default, each with
  that default and who reads it;
* ``check_game(game)``: raises ``TypeError`` naming every required member that is missing and
  every member of the wrong kind (a function where a value belongs, or the reverse).  ``VecGame``
  checks each game object once (``check_game_once``), so a game that misses a member is refused
  when its first core is made, with the member named, not when a reader first reaches for it.

Around the game module (not checked here): an env module (``wargym.envs.<key>_v<N>``) binds
``env``, ``raw_env`` and ``game`` (``registration.env_module``; the server reads ``.game``), and a
game's ``raw_env`` subclasses ``aec.WargymAEC`` with the class attributes ``game`` (this module),
``renderer`` (``renderer(core, b, mode, viewer)``) and ``metadata["name"]``.  The renderer is the
game package's ``render.render``, which reads the game module and is never imported by it;
``renderer(game)`` finds it from the game module (wrappers/sb3.py).  ``serve/board.py``
knows each game's picture by name and is no part of the contract.

The kernels' own arguments are Numba structs: ``cfg.struct`` (``build_config``'s config), the
state's ``view``/``thread_views`` (``batch.BatchState`` of ``state_spec``) and ``structs.Outputs``.
Pure Python (no Numba): left out of the kernel cache's digest (``package_cache.NOT_KERNEL_MODULES``).
"""
from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


# -- the required members ---------------------------------------------------------------------
class KernelsDef(Protocol):
    """``game.kernels``: the batched rules (the game's ``rules`` module), called only by ``VecGame``
    (vec.py).  ``state``/``cfg``/``out``: the single structs, or one thread's of
    ``VecGame.kernel_args``.  ``illegal[b]`` of the outputs gets a REASONS code.  No kernel is
    ``parallel=True``: Numba would compile each such kernel's whole call graph three times.
    ``reset_range`` and ``step_range`` are written once for every game (core/ranges.py
    ``specialise_ranges``, from the game's ``reset_one`` and ``step_game``)."""

    def reset_range(self, state, cfg, seeds, index, out, lo, hi) -> None:
        """New games at ``index[lo:hi]`` (int64) from per-game ``seeds[lo:hi]`` (uint64), outputs
        written: VecGame.reset.  Compiled ``nogil``: VecGame cuts a batch into one range per
        thread (``threads.run_in_ranges``, one struct per thread)."""

    def step_range(self, state, cfg, actions, active, out, auto_reset, lo, hi) -> None:
        """One action in every ``active`` game of ``lo .. hi-1``: VecGame.step (``nogil``, one range
        per thread as above, or the whole batch in the calling thread below ``PARALLEL_FROM`` games),
        and VecGame.step_one over the range of one game (the AEC env's and RLlib env's step).  It is
        the one compiled entry point of the step: every other one would compile the whole step again."""

    def observe_game(self, state, cfg, b, player, obs, mask) -> None:
        """``player``'s observation and mask of game ``b`` into ``obs``/``mask``: VecGame.observe, refresh."""

    def action_reason(self, state, cfg, b, action) -> int:
        """0 if ``action`` is legal in game ``b``, else its index in ``REASONS``: VecGame.why_illegal."""


class LoopsDef(Protocol):
    """``game.bot.LOOPS``: what ``loops.specialise_loops`` returns for the game."""

    def policy_id(self, policy) -> int:
        """A built-in policy's name or id as its id (ValueError if unknown): training.imitation."""


class BotDef(Protocol):
    """``game.bot``: the compiled opponents (``envs/<game>/bot.py``; its loops come from
    ``loops.specialise_loops``, which read the state's ``g[:, G_DONE]`` and ``g[:, G_DECIDER]``)."""

    #: {name: policy id} of the built-in policies ("random" and "scripted" at least; aliases share an id):
    #: wrappers.opponents, arena.policies, training.train, serve.session, rllib, warmup
    POLICIES: Mapping[str, int]
    #: the loops' namespace (``policy_id``): training.imitation
    LOOPS: LoopsDef

    def play_turns(self, states, cfgs, actions, seats, opponents, outs, acc, auto_reset, rotate) -> None:
        """The learner's action, then the opponents until the learner decides again: wrappers.sb3 (LearnerLoop)."""

    def play_games(self, states, cfgs, policies, outs, results, serial_below: int = ...) -> None:
        """Whole games, built-in ``policies[b, seat]``, rewards summed into ``results``: arena, warmup, bench,
        search (its rollouts on every thread from ``serial_below`` = 2 games)."""

    def policy_actions(self, *args):
        """``(core, policy)`` -> actions, or the kernel ``(states, cfgs, masks, policy, actions)``: wrappers,
        arena, training.imitation, serve (fallback), warmup."""

    def play(self, core, seat_policies):
        """Play every game of ``core`` to the end; (B, players) summed rewards: training.evaluate."""


class GameDef(Protocol):
    """A game module (``envs/<game>/game.py``): every member is required.  ``cfg`` is what
    ``build_config`` returns; ``state`` a ``batch.BatchState`` of ``state_spec(cfg)``; ``core`` a
    ``VecGame``; ``b`` a game's index in the batch."""

    #: the import path ``wargym.envs.<key>.game``: an env pickles its game by it (pickling.py), and
    #: arena.policies reads the key from it (``baseline:NAME``)
    __name__: str
    #: the game key ("planetoids"): StateSpec.game and save files; rllib.train (arena options),
    #: wrappers.sb3 and rllib.envs (``game_name``)
    NAME: str
    #: seats: an int, or ``num_players(cfg)`` where an option sets it: VecGame, rllib.league.players
    num_players: int | Callable[..., int]
    #: the batched rules (KernelsDef): VecGame
    kernels: KernelsDef
    #: the compiled opponents (BotDef): wrappers, arena, training, serve, rllib, warmup, benchmarks
    bot: BotDef
    #: why an action is illegal, by ``action_reason`` code (0 "legal"), built by ``reason_texts`` from
    #: {code name: text}: VecGame.describe_illegal
    REASONS: Sequence[str]
    #: every option with its default ("reward" and "max_decisions" among them): training.train, serve (info)
    DEFAULT_OPTIONS: Mapping[str, Any]
    #: {option: allowed values} (``options.merged_options``; "reward" among them): training.train (--reward)
    _CHOICES: Mapping[str, Any]

    def parse_options(self, options: dict) -> dict:
        """Options over DEFAULT_OPTIONS, checked (ValueError): VecGame, training, serve, networks, rllib.league."""

    def build_config(self, options: dict) -> Any:
        """The static config of parsed options (``.struct``: the kernels' copy, fresh per call): as parse_options."""

    def state_spec(self, cfg) -> Any:
        """The ``batch.StateSpec`` (rng, policy_rng, dice_script, dice, g and the game's fields): VecGame."""

    def num_actions(self, cfg) -> int:
        """Size of the action space: VecGame."""

    def obs_shape(self, cfg) -> tuple[int, ...]:
        """Shape of the int8 observation agents see: VecGame, training.networks."""

    def kernel_obs_shape(self, cfg) -> tuple[int, ...]:
        """The same with the spatial axes flattened, as the kernels write it: VecGame."""

    def current(self, state):
        """Per game, the seat to decide now: VecGame.reset, refresh."""

    def done(self, state):
        """Per game, whether it is over by the rules (bool array): VecGame.refresh."""

    def action_name(self, cfg, a: int) -> str:
        """Action ``a`` in words: VecGame.action_name, describe_illegal (serve's move names)."""

    def apply_scenario(self, cfg, state, b: int, scenario: dict) -> None:
        """Write a scenario dict into reset game ``b`` (ValueError if bad): VecGame.load_scenario."""

    def validate_state(self, cfg, state) -> None:
        """Ranges and invariants of a state from outside (ValueError): validate.check_state (set_state, load)."""

    def final_info(self, core, b: int) -> dict:
        """The result schema of results.py (winner, scores, rounds, own keys): aec (infos), serve."""

    def scores(self, state, b: int) -> list[int]:
        """Each seat's points in game ``b``: training.evaluate.win_rate_builtin."""

    def scores_from_obs(self, cfg, obs) -> list[int]:
        """(own, other) points as an observation shows them (read through ``split_obs``, so that a
        version's extra blocks cannot shift them): wrappers.sb3 (infos), rllib.envs."""


# -- the optional members (read with a default) -----------------------------------------------
@dataclass(frozen=True)
class OptionalMember:
    default: Any    # what a reader uses where the game has no such member
    kind: Any       # the kind it must be where present: a type, a tuple of types, or Callable
    doc: str        # what it is and who reads it


OPTIONAL_GAME_MEMBERS = {
    "OBS_KEY_LEN": OptionalMember(1, int, "columns of VecGame.obs_key, for kernels that rewrite only the changed "
                                          "observation entries (column 0 = 0: write everything): VecGame"),
    # (the default named, not imported: threads.py imports Numba)
    "PARALLEL_FROM": OptionalMember("threads.PARALLEL_FROM", int, "batch size from which VecGame.step uses the "
                                                                  "thread pool (parallel=None): VecGame"),
    "NAMED_DATA": OptionalMember({}, Mapping, "{option: () -> names of the data shipped for it} (a map, a table), "
                                              "the only names a client may give: serve.session"),
    "split_obs": OptionalMember(None, Callable, "split_obs(cfg, obs) -> {part: array}, the observation's named parts "
                                                "(None: one part, 'observation'): training.networks"),
    "HIDDEN_INFORMATION": OptionalMember(False, bool, "the state holds what a player may not see (hands, decks): "
                                                      "the search bot samples it (determinise) or refuses "
                                                      "the game: core.search"),
    "determinise": OptionalMember(None, Callable, "determinise(cfg, state, rows, players, seeds): in games rows of "
                                                  "state, replace what players[i] cannot see by a sample drawn "
                                                  "from seeds[i], consistent with what it sees: core.search"),
    "SEARCH_DEPTH": OptionalMember(None, int, "decisions after which the search bots' rollouts are cut off and "
                                              "scored by the lead in scores (None: played to the game's end), "
                                              "where a search is not given its own depth: core.search"),
    "rules": OptionalMember(None, types.ModuleType, "the rules module, for its G_DECISIONS column "
                                                    "(None: give decisions_col): benchmarks.bench.compiled_self_play"),
}

OPTIONAL_BOT_MEMBERS = {
    "policy_action": OptionalMember(None, Callable, "the compiled policy_action(state, cfg, b, mask, policy) of one "
                                                    "game (None: bot.policy_actions(core, policy)): serve.session"),
}


# -- the check ----------------------------------------------------------------------------------
def _runtime_kind(hint) -> tuple:
    """The classes ``isinstance`` checks a member against, from its annotation."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return tuple(k for arg in typing.get_args(hint) for k in _runtime_kind(arg))
    if hint is Any:
        return (object,)
    return (origin or hint,)


def _members(protocol) -> list[tuple[str, Any]]:
    """``(name, kind)`` of a Protocol's members: ``Callable`` for its methods; for its annotated
    attributes a Protocol of this module (a namespace, checked member by member) or runtime types."""
    out = [(name, _runtime_kind(hint) if not _is_protocol(hint) else hint)
           for name, hint in typing.get_type_hints(protocol).items()]
    out += [(name, Callable) for name, value in vars(protocol).items()
            if isinstance(value, types.FunctionType) and not name.startswith("_")]
    return out


def _is_protocol(hint) -> bool:
    return hint in (GameDef, KernelsDef, BotDef, LoopsDef)


# {protocol: [(member, kind)]}, read off the Protocols above (their annotations and methods), so that
# what check_game asks for and what the contract documents are one list
REQUIRED = {proto: _members(proto) for proto in (GameDef, KernelsDef, BotDef, LoopsDef)}


def _kind_name(kind) -> str:
    if kind is Callable:
        return "a function"
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = [("a function" if k is Callable else getattr(k, "__name__", str(k))) for k in kinds]
    return " or ".join(names)


def _fits(value, kind) -> bool:
    if kind is Callable:
        return callable(value)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return isinstance(value, kinds)


def _problems(obj, protocol, prefix: str, missing: list, wrong: list) -> None:
    for name, kind in REQUIRED[protocol]:
        path = prefix + name
        if not hasattr(obj, name):
            missing.append(path)
            continue
        value = getattr(obj, name)
        if kind in REQUIRED:            # a namespace: its own members
            _problems(value, kind, path + ".", missing, wrong)
        elif not _fits(value, kind):
            wrong.append(f"{path} (should be {_kind_name(kind)}, got {type(value).__name__})")


def _optional_problems(obj, members: dict, prefix: str, wrong: list) -> None:
    for name, member in members.items():
        value = getattr(obj, name, member.default)
        if hasattr(obj, name) and not _fits(value, member.kind):
            wrong.append(f"{prefix}{name} (should be {_kind_name(member.kind)}, got {type(value).__name__})")


def check_game(game) -> None:
    """Raise ``TypeError`` naming every required member ``game`` lacks (``bot.POLICIES`` for one of
    its bot's) and every member of the wrong kind, optional ones included; return None if it fits."""
    missing: list[str] = []
    wrong: list[str] = []
    _problems(game, GameDef, "", missing, wrong)
    _optional_problems(game, OPTIONAL_GAME_MEMBERS, "", wrong)
    if hasattr(game, "bot"):
        _optional_problems(game.bot, OPTIONAL_BOT_MEMBERS, "bot.", wrong)
    if missing or wrong:
        what = getattr(game, "__name__", None) or getattr(game, "NAME", None) or type(game).__name__
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + \
                ([f"of the wrong kind: {', '.join(wrong)}"] if wrong else [])
        raise TypeError(f"game {what!r} does not fulfil the game contract (envs/core/contract.py GameDef): "
                        + "; ".join(parts))


_CHECKED: dict[int, object] = {}   # id -> the game object itself (held, so that its id is not reused)


def check_game_once(game):
    """``check_game`` the first time an object is seen (the check is then free); returns ``game``."""
    if _CHECKED.get(id(game)) is not game:
        check_game(game)
        _CHECKED[id(game)] = game
    return game


def renderer(game) -> Callable:
    """``render(core, b, mode, viewer)`` of ``game``'s package (its ``render`` module): game ``b`` as
    ANSI text or an RGB array, seen by ``viewer``.  Looked up here rather than named by the game
    module, which the renderer imports for its name tables."""
    import importlib
    return importlib.import_module(game.__name__.rsplit(".", 1)[0] + ".render").render


def reason_texts(codes: types.ModuleType, texts: Mapping[str, str]) -> tuple[str, ...]:
    """A game's ``REASONS`` from its reason codes' names: ``texts`` maps the name of each code of
    ``codes`` (the rules' ``OK`` and ``R_*`` constants) to the sentence ``why_illegal`` gives, so a
    code and its text are matched by name, not by position.  Refuses a name that is not a code, a
    code left without a text, and codes that are not 0, 1, 2 ... in one run."""
    values = {}
    for name, text in texts.items():
        code = getattr(codes, name, None)
        if not isinstance(code, int) or not (name == "OK" or name.startswith("R_")):
            raise ValueError(f"{name!r} is not a reason code of {codes.__name__}")
        if code in values:
            raise ValueError(f"{name} and {values[code][0]} are both reason code {code}")
        values[code] = (name, text)
    missing = [n for n in dir(codes) if n.startswith("R_") and isinstance(getattr(codes, n), int)
               and getattr(codes, n) not in values]
    if missing or sorted(values) != list(range(len(values))):
        raise ValueError(f"reason codes of {codes.__name__} without a text, or not 0..n-1: {missing or sorted(values)}")
    return tuple(values[code][1] for code in range(len(values)))
