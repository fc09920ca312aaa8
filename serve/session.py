"""The one session core of ``wargym serve``: what every request does, whatever carried it.

``Server.handle_bytes(data, client)`` takes one request (the bytes of one JSON
object) and returns the reply (a dict); the stdio and HTTP/WebSocket transports
only move bytes.  A request either succeeds or changes nothing: the work is done
on a scratch env and written back to the match only at the end.

Where things live:

* a match holds its state as a ``clone_state()`` copy (a few KB), its history and
  its bots; the envs that run the kernels are per worker thread, one per game and
  options (``_EnvSlots``), and load a match's state for each request (~40 us), so
  hundreds of matches cost hundreds of small arrays, not hundreds of envs;
* bots come only from the server's list (``Bots``): each game's compiled
  ``POLICIES``, checkpoints shipped with ``wargym.baselines`` by name, and, with
  ``--test-bots``, a bot that is slow on purpose; nothing is ever loaded from a
  path a client names;
* a bot that thinks in Python (a checkpoint, the slow test bot) thinks on a copy
  of the observation in a thread of its own, so a timed-out thought can be left
  behind without touching the match; the compiled bots take microseconds and run
  where the request runs.
"""
from __future__ import annotations

import base64
import binascii
import concurrent.futures as cf
import contextlib
import hashlib
import json
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..registration import LEGACY_VERSIONS, env_module, every_version
from .protocol import MAX_SEED, VERSION, ProtocolError, error_reply, parse_json, state_hash, validate

# every version of every game: the current ones and the earlier ones still registered (talon_v0, ...)
GAMES = every_version()
# options that name files or folders on the server: refused from clients, whatever their value
FILE_OPTION_SUFFIXES = ("_file", "_files", "_path", "_paths", "_dir", "_dirs")
# errors a game's option parsing or table building raises for options it cannot use
OPTION_ERRORS = (ValueError, TypeError, KeyError, IndexError, OverflowError, AttributeError)
TEST_BOT_SLOW = "test:slow"
MODEL_PREFIX = "model:"
SEARCH_BOT = "search"     # envs/core/search.py (Battle Force's hidden cards sampled, never read): the flat search
MCTS_BOT = "mcts"         # and the tree search
SEARCH_BOTS = (SEARCH_BOT, MCTS_BOT)
MAX_SEARCHERS = 16        # searchers kept (one per game, options and budget), the oldest dropped first


def search_budget(level: int) -> int:
    """A search bot's simulations a decision at strength ``level`` (1..10): its default budget (64)
    at 10, halved per level below (32 at 9, 16 at 8, ...), at least 1."""
    from ..envs.core.search import DEFAULT_SIMULATIONS
    return max(1, DEFAULT_SIMULATIONS >> (10 - level))
MAX_BOT_RUN = 100_000  # bot decisions in one reply: a guard against a game that never reaches the client


@dataclass
class Limits:
    max_message_bytes: int = 1 << 20
    max_matches: int = 1000
    max_matches_per_client: int = 100
    idle_timeout_s: float = 600.0
    max_history: int = 100_000
    # CPU time one request may spend replaying a history (its thread's own CPU, so a busy server does
    # not count against it): a long history of a slow game is refused, not paid for minutes
    request_cpu_ms: int = 10_000
    default_time_limit_ms: int = 5000
    test_bots: bool = False   # offer "test:slow", a bot that sleeps slow_bot_ms before it moves
    slow_bot_ms: int = 1000

    def to_json(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k not in ("test_bots", "slow_bot_ms")}
        if self.test_bots:
            out["slow_bot_ms"] = self.slow_bot_ms
        return out


def _clipped(exc: Exception, limit: int = 600) -> str:
    """An error's text for a reply, cut short: it may quote what the client sent (a save's header,
    its options), and a reply never grows with the request."""
    text = str(exc)
    return text if len(text) <= limit else text[:limit] + "..."


def plain(x):
    """JSON-ready copy of a game's info (numpy scalars and arrays become Python numbers and lists)."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


# -- games ------------------------------------------------------------------------------------
class GameEntry:
    """One registered game module, imported on first use."""

    def __init__(self, module_name: str, operator_data: dict | None = None):
        """``operator_data``: {option: {name: value}} the operator added at start-up for this game
        (``check_served_data``), offered by name beside the shipped data."""
        self.name = module_name
        self.operator_data = operator_data or {}
        try:
            self.module = env_module(module_name)
        except Exception as exc:  # a game being written may not import yet: the others still serve
            raise ProtocolError("game_unavailable", f"game {module_name!r} is registered but its module failed "
                                                    f"to import: {type(exc).__name__}: {exc}", field="game")
        self.game = self.module.game
        self.policies = dict(self.game.bot.POLICIES)
        self.about = GAMES[module_name][2]
        # an earlier version is the same game with its own option defaults (talon_v0: relations=False)
        self.version_defaults = dict(LEGACY_VERSIONS.get(module_name, ("", "", {}))[2])

    def shipped(self) -> dict:
        """{option: the names of the data the game ships for it} (a Planetoids map, a UnionWars
        table): the only values a client may give those options as a name (``game.NAMED_DATA``)."""
        return {key: [*names(), *sorted(self.operator_data.get(key, {}))]
                for key, names in getattr(self.game, "NAMED_DATA", {}).items()}

    def parse_options(self, options) -> dict:
        options = options or {}
        for key, value in options.items():
            self._check_not_a_file(key, value)
        # a name the operator added stands for the data read at start-up (a map dict, a table dict)
        options = {key: self.operator_data.get(key, {}).get(value, value) if isinstance(value, str) else value
                   for key, value in options.items()}
        try:
            parsed = self.game.parse_options({**self.version_defaults, **options})
        except OPTION_ERRORS as exc:
            raise ProtocolError("bad_options", _clipped(exc), field="options") from None
        return parsed

    def _check_not_a_file(self, key: str, value) -> None:
        """A client never names a file: no option of a file kind, no path, and a named piece of data
        only from the game's shipped list (the message names no file and tells nothing of one)."""
        if key.endswith(FILE_OPTION_SUFFIXES):
            raise ProtocolError("bad_options", f"option {key} names files on the server; the server does not read "
                                               "files a client names", field=f"options.{key}")
        shipped = self.shipped().get(key)
        if shipped is not None and isinstance(value, str) and value not in shipped:
            raise ProtocolError("bad_options", f"option {key}: the server offers {shipped} by name",
                                field=f"options.{key}", choices=shipped)
        if isinstance(value, str) and (any(c in value for c in "/\\\0") or value.startswith((".", "~"))):
            raise ProtocolError("bad_options", f"option {key} looks like a path; the server does not read files a "
                                               "client names", field=f"options.{key}")

    def fallback_policy(self) -> int:
        """The bot move played past a time limit: the scripted bot (else any non-random one)."""
        if "scripted" in self.policies:
            return self.policies["scripted"]
        others = [v for k, v in self.policies.items() if k != "random"]
        return others[0] if others else self.policies["random"]


class _Slot:
    """A scratch env of one game and options, owned by one worker thread."""

    def __init__(self, entry: GameEntry, options: dict):
        self.env = entry.module.raw_env(options=options)
        self.env.reset(seed=0)
        self.core = self.env.core
        self.names = [self.env.action_name(a) for a in range(self.core.num_actions)]
        self.ids = {n: a for a, n in enumerate(self.names)}
        self.num_players = self.core.num_players
        self._warm(entry)
        self.nbytes = _arrays_nbytes(self.core)   # (what it costs the worker's cache, _EnvSlots)

    def _warm(self, entry: GameEntry) -> None:
        """Every kernel a request runs, called once now: Numba loads a kernel from its cache on its
        first call (50-200 ms, holding the interpreter), which would otherwise stall every request in
        flight when the first match reaches that path (a p99 of 80 ms instead of a few ms measured
        in benchmarks/serve_load.py for Battle Force)."""
        env = self.env
        saved = env.clone_state()
        env.set_state(saved)                       # the observation and mask kernels
        first = int(env.legal_actions()[0])
        env.why_illegal(first)                     # the rules' reasons
        _builtin_action(entry, self.core, entry.fallback_policy())   # the compiled bots
        env.step(first)                            # a step
        env.set_state(saved)


def _arrays_nbytes(obj, depth: int = 0, seen: set | None = None) -> int:
    """The bytes of the numpy arrays an env's core holds (its state, buffers and tables), found
    through its attributes, tuples and dicts a few levels deep (each array counted once)."""
    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 4:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, dict):
        children = obj.values()
    elif isinstance(obj, (list, tuple)):
        children = obj
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        children = vars(obj).values()
    else:
        return 0
    return sum(_arrays_nbytes(c, depth + 1, seen) for c in children)


class _EnvSlots(threading.local):
    """Per thread: the scratch envs last used, by game and options (least recently used dropped),
    at most SIZE of them and MAX_BYTES of their arrays: a client that sends many distinct
    large options costs each worker a bounded amount of memory."""
    SIZE = 8
    MAX_BYTES = 128 << 20

    def __init__(self):
        self.slots: OrderedDict = OrderedDict()

    def get(self, entry: GameEntry, options: dict, key: str) -> _Slot:
        slot = self.slots.pop((entry.name, key), None)
        if slot is None:
            try:
                slot = _Slot(entry, options)
            except OPTION_ERRORS as exc:  # options the game accepts one by one but not together
                raise ProtocolError("bad_options", _clipped(exc), field="options") from None
        self.slots[(entry.name, key)] = slot
        while len(self.slots) > 1 and (len(self.slots) > self.SIZE
                                       or sum(s.nbytes for s in self.slots.values()) > self.MAX_BYTES):
            self.slots.popitem(last=False)
        return slot


def _restore(slot: _Slot, state) -> None:
    """``slot.env.set_state(state)`` for a match's own state, in a third of the time (~15 us instead
    of ~40 for Talon, every request pays it): a match's state is a ``clone_state()`` of a slot of the
    same game and options, so its arrays are copied in place, without ``BatchState.assign``'s general
    machinery (index arrays, two schema fingerprints); then the same refresh as ``set_state``.
    Anything else goes through ``set_state`` and its checks."""
    core = slot.core
    if not (state.spec == core.spec and state.batch_size == 1 == core.num_envs):
        slot.env.set_state(state)
        return
    dst = core.state
    for name, array in dst.arrays.items():
        np.copyto(array, state.arrays[name])
    np.copyto(dst.truncated, state.truncated)
    core.refresh()
    slot.env._sync_after_reset()


# -- bots -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Bot:
    name: str
    kind: str          # "builtin" | "model" | "slow" | "search"
    level: int = 10
    policy: int = -1   # builtin: the game's policy id; search: its simulations a decision

    def to_json(self) -> dict:
        return {"name": self.name, "level": self.level}


def _baselines():
    try:
        from .. import baselines
    except ImportError:  # not shipped in this build: the built-in bots only
        return None
    return baselines


class Bots:
    """The server's list of bots; checkpoints are loaded once, by name, from ``wargym.baselines`` or
    from the checkpoints the operator named when starting the server (``--model GAME:NAME=PATH``,
    ``models``: {game: {name: path}}; never from a client)."""

    def __init__(self, limits: Limits, models: dict | None = None):
        self.limits = limits
        self.extra = {game: dict(named) for game, named in (models or {}).items()}
        self._models: dict = {}
        self._models_lock = threading.Lock()
        self._searchers: dict = {}

    def names(self, entry: GameEntry) -> list[str]:
        from ..envs.core.search import ANCHOR_MARK, searchable
        out = list(entry.policies)
        if searchable(entry.game):
            out += SEARCH_BOTS
        out += [MODEL_PREFIX + n for n in self.extra.get(entry.name, {})]
        lib = _baselines()
        if lib is not None:
            try:
                shipped = lib.available(entry.name)
            except Exception:  # a broken baselines index must not take the built-in bots down
                shipped = []
            out += [MODEL_PREFIX + n for n in shipped]
            if searchable(entry.game):   # the tree search anchored on a shipped agent (mcts:N@BASELINE)
                out += [MCTS_BOT + ANCHOR_MARK + n for n in shipped]
        if self.limits.test_bots:
            out.append(TEST_BOT_SLOW)
        return out

    def resolve(self, entry: GameEntry, spec, where: str) -> Bot:
        from ..envs.core.search import ANCHOR_MARK
        name, level = (spec, 10) if isinstance(spec, str) else (spec["name"], spec.get("level", 10))
        if name in entry.policies:
            bot = Bot(name, "builtin", level, entry.policies[name])
        elif name == TEST_BOT_SLOW and self.limits.test_bots:
            bot = Bot(name, "slow", level)
        elif (name in SEARCH_BOTS or name.startswith(MCTS_BOT + ANCHOR_MARK)) and name in self.names(entry):
            bot = Bot(name, "search", level, search_budget(level))
        elif name.startswith(MODEL_PREFIX) and name in self.names(entry):
            bot = Bot(name, "model", level)
        else:
            raise ProtocolError("unknown_bot", f"no bot {name!r} for {entry.name}; this server has "
                                               f"{self.names(entry)}", field=where, choices=self.names(entry))
        if level != 10 and name == "random":
            raise ProtocolError("bad_request", "the random bot has no strength level", field=f"{where}.level")
        return bot

    def searcher(self, entry: GameEntry, options: dict, bot: Bot):
        """(search bot, its lock) for a game, its options and the bot's budget, made on first use."""
        key = (entry.name, json.dumps(options, sort_keys=True, default=str), bot.name, bot.policy)
        with self._models_lock:
            if key not in self._searchers:
                from ..envs.core.search import ANCHOR_MARK, FlatSearch, TreeSearch
                if len(self._searchers) >= MAX_SEARCHERS:
                    self._searchers.pop(next(iter(self._searchers)))
                if ANCHOR_MARK in bot.name:   # the shipped agent loads here, in the thinker thread
                    self._searchers[key] = (_anchored_search(entry, options, bot), threading.Lock())
                else:
                    kind = TreeSearch if bot.name == MCTS_BOT else FlatSearch
                    self._searchers[key] = (kind(entry.game, options, bot.policy), threading.Lock())
            return self._searchers[key]

    def model(self, entry: GameEntry, bot: Bot):
        """(model, its lock), loaded on first use by name from ``wargym.baselines`` (in a thinker
        thread: a first load that outlasts the time limit gets the fallback move meanwhile)."""
        key = (entry.name, bot.name)
        with self._models_lock:
            if key not in self._models:
                name = bot.name[len(MODEL_PREFIX):]
                try:
                    path = self.extra.get(entry.name, {}).get(name)
                    if path is not None:
                        from ..arena.policies import load_model
                        model = load_model(Path(path))
                    else:
                        model = _baselines().load(entry.name, name)
                except Exception as exc:
                    raise ProtocolError("bot_unavailable", f"checkpoint {bot.name} did not load: "
                                                           f"{type(exc).__name__}: {exc}", field="bot") from None
                self._models[key] = (model, threading.Lock())
            return self._models[key]


MAX_DATA_FILE_BYTES = 1 << 20


def check_served_data(data: dict) -> dict:
    """The operator's added data, read and checked at start-up: {game key: {option: {name: path}}}
    -> {game key: {option: {name: the file's JSON value}}}.  The option must be one the game offers
    by name (``game.NAMED_DATA``: a Planetoids map, a UnionWars table), the name new and plain, the
    file a JSON object of at most 1 MiB that the game builds a configuration from; a bad entry stops
    the server with the entry named.  Clients then give the name, never the path."""
    from ..registration import GAME_KEYS, load_game
    out: dict = {}
    for key, options in data.items():
        if key not in GAME_KEYS:
            raise ValueError(f"--data: unknown game {key!r}; the games are {', '.join(GAME_KEYS)}")
        game = load_game(key)
        named = getattr(game, "NAMED_DATA", {})
        for option, entries in options.items():
            if option not in named:
                raise ValueError(f"--data {key}:{option}: {key} offers data by name only for "
                                 f"{sorted(named) or 'no option'}")
            for name, path in entries.items():
                what = f"--data {key}:{option}:{name}"
                _check_plain_name(what, name)
                if name in named[option]():
                    raise ValueError(f"{what}: the game ships data of that name already")
                value = _read_data_file(what, Path(path))
                try:
                    game.build_config(game.parse_options({option: value}))
                except (ValueError, TypeError, KeyError, IndexError) as exc:
                    raise ValueError(f"{what}: {_clipped(exc)}") from None
                out.setdefault(key, {}).setdefault(option, {})[name] = value
    return out


def _check_plain_name(what: str, name: str) -> None:
    """An operator's name for a checkpoint or a piece of data: what clients will type."""
    if not name or not all(c.isalnum() or c in "-_." for c in name) or name.startswith("."):
        raise ValueError(f"{what}: a name is letters, digits, '-', '_' and '.', not starting with '.'")


def _read_data_file(what: str, path: Path):
    if not path.is_file():
        raise ValueError(f"{what}: no file at {str(path)!r}")
    if path.stat().st_size > MAX_DATA_FILE_BYTES:
        raise ValueError(f"{what}: the file is over {MAX_DATA_FILE_BYTES} bytes")
    try:
        value = json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{what}: not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{what}: the file must hold a JSON object")
    return value


def check_served_models(models: dict) -> dict:
    """The operator's checkpoint list, checked at start-up: a known game, a plain name, an existing
    zip or RLlib checkpoint folder; a bad entry stops the server with the entry named."""
    from ..arena.policies import is_checkpoint_path
    for game, named in models.items():
        if game not in GAMES:
            raise ValueError(f"--model: unknown game {game!r}; the games are {', '.join(GAMES)}")
        for name, path in named.items():
            _check_plain_name(f"--model {game}:{name}", name)
            if not is_checkpoint_path(Path(path)):
                raise ValueError(f"--model {game}:{name}: no checkpoint at {str(path)!r} "
                                 f"(a MaskablePPO .zip or an RLlib checkpoint folder)")
    return models


# Python thinkers (checkpoints, the slow test bot) run here, so a request can stop waiting for them.
_THINKERS = cf.ThreadPoolExecutor(max_workers=4, thread_name_prefix="wargym-think")


def _builtin_action(entry: GameEntry, core, policy: int) -> int:
    """A compiled bot's action in game 0 of ``core``.  The game's ``policy_action`` kernel is called
    directly (a few microseconds), without the batched ``policy_actions``' Python front end (the
    ranges of threads.run_in_ranges).  Games without that kernel use the batched one."""
    direct = getattr(entry.game.bot, "policy_action", None)
    if direct is not None:
        return int(direct(core.state.view, core._k, 0, core.mask[0], policy))
    return int(entry.game.bot.policy_actions(core, policy)[0])


def _anchored_search(entry: GameEntry, options: dict, bot: Bot):
    """The tree search anchored on the shipped agent the bot names, at the bot's budget; refused
    (``bot_unavailable``) where the agent cannot play these options or does not load."""
    from ..envs.core.search import ANCHOR_MARK, searcher_for
    anchor = bot.name.partition(ANCHOR_MARK)[2]
    try:
        return searcher_for(f"{MCTS_BOT}:{bot.policy}{ANCHOR_MARK}{anchor}", entry.game, options)
    except (ValueError, ImportError) as exc:
        raise ProtocolError("bot_unavailable", f"bot {bot.name}: {exc}; start the match with the options the "
                                               "agent was trained with", field="bot") from None


def _check_fits(model, bot: Bot, obs, mask) -> None:
    """A checkpoint trained with other options (another map size, player count) would read this
    game's observation wrongly: refused with the reason instead."""
    want_obs, want_actions = tuple(model.observation_space.shape), int(model.action_space.n)
    if want_obs != (obs.size,) or want_actions != mask.size:
        raise ProtocolError("bot_unavailable", f"checkpoint {bot.name} was trained on observations {want_obs} and "
                                               f"{want_actions} actions; this game with these options has "
                                               f"({obs.size},) and {mask.size}: start the match with the options "
                                               "it was trained with", field="bot")


def _unit(*parts) -> float:
    """A number in [0, 1) fixed by the position: strength levels stay reproducible."""
    h = hashlib.blake2b("/".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") / 2 ** 64


# -- matches ----------------------------------------------------------------------------------
@dataclass
class Match:
    id: str
    client: str
    entry: GameEntry
    options: dict
    options_key: str
    bots: dict                      # seat -> Bot
    client_seats: list
    state: object                   # BatchState of one game
    start: dict                     # {"seed": s} or {"save": True}: where the history starts
    history: list = field(default_factory=list)
    returns: list = field(default_factory=list)
    hash: str = ""
    time_limit_ms: int = 5000
    on_timeout: str = "fallback"
    bot_moves: str = "all"
    last_active: float = field(default_factory=time.monotonic)
    last_move: tuple | None = None  # (seq before, action id, reply): a resent move gets the same reply
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def seq(self) -> int:
        return len(self.history)


class Server:
    """Every request of the protocol; thread-safe (one request per match at a time)."""

    def __init__(self, limits: Limits | None = None, models: dict | None = None, data: dict | None = None):
        """``models``: checkpoints the operator serves besides the shipped ones,
        {game: {name: path of a MaskablePPO zip or an RLlib checkpoint folder}}, offered as
        ``model:NAME`` (``wargym serve --model GAME:NAME=PATH``).  ``data``: maps and tables the
        operator adds, {game key: {option: {name: path}}}, offered by name (``--data``)."""
        self.limits = limits or Limits()
        self._data = check_served_data(data or {})
        self.bots = Bots(self.limits, check_served_models(models or {}))
        self._games: dict = {}
        self._slots = _EnvSlots()
        self._matches: dict = {}
        self._closed: OrderedDict = OrderedDict()  # recently closed match id -> why
        self._lock = threading.Lock()

    # -- entry points ---------------------------------------------------------------------
    def handle_bytes(self, data: bytes, client: str = "local") -> dict:
        """One request as bytes (a JSON object) -> the reply."""
        received = time.monotonic()
        if len(data) > self.limits.max_message_bytes:
            return error_reply(ProtocolError("message_too_large", f"message of {len(data)} bytes; the limit is "
                                                                  f"{self.limits.max_message_bytes}"))
        try:
            msg = parse_json(data)
        except ProtocolError as exc:
            return error_reply(exc)
        return self.handle(msg, client, received)

    def handle(self, msg, client: str = "local", received: float | None = None) -> dict:
        received = time.monotonic() if received is None else received
        rid = msg.get("id") if isinstance(msg, dict) and isinstance(msg.get("id"), (str, int)) else None
        try:
            msg = validate(msg)
            reply = getattr(self, "_req_" + msg["type"])(msg, client, received)
        except ProtocolError as exc:
            return error_reply(exc, rid)
        except Exception as exc:  # a bug: say so, keep serving
            return error_reply(ProtocolError("internal", f"{type(exc).__name__}: {exc}"), rid)
        reply = {"v": VERSION, "type": msg["type"], "ok": True, **reply}
        if rid is not None:
            reply["id"] = rid
        return reply

    def reap(self, now: float | None = None) -> list[str]:
        """Close matches idle past the timeout; their ids."""
        now = time.monotonic() if now is None else now
        with self._lock:
            idle = [m for m in self._matches.values() if now - m.last_active > self.limits.idle_timeout_s]
            for m in idle:
                self._close(m.id, f"idle for more than {self.limits.idle_timeout_s:g} s")
        return [m.id for m in idle]

    def open_matches(self) -> int:
        return len(self._matches)

    # -- requests -------------------------------------------------------------------------------
    def _req_info(self, msg, client, received) -> dict:
        games = []
        for name, (_gym, _key, about) in GAMES.items():
            try:
                entry = self._entry(name)
            except ProtocolError as exc:
                games.append({"game": name, "about": about, "available": False, "error": exc.message})
                continue
            games.append({"game": name, "about": about, "available": True, "bots": self.bots.names(entry),
                          "options": plain(getattr(entry.game, "DEFAULT_OPTIONS", {})), "shipped": entry.shipped()})
        return {"server": "wargym serve", "protocol": VERSION, "games": games, "limits": self.limits.to_json(),
                "open_matches": self.open_matches()}

    def _req_bot_move(self, msg, client, received) -> dict:
        entry = self._entry(msg["game"])
        options = entry.parse_options(msg.get("options"))
        slot = self._slot(entry, options)
        bot = self.bots.resolve(entry, msg["bot"], "bot")
        start_seq = self._load_state(slot, entry, options, msg["state"])
        core = slot.core
        if "state_hash" in msg and msg["state_hash"] != state_hash(core):
            raise ProtocolError("hash_mismatch", "state_hash does not match the state sent", field="state_hash",
                                state_hash=state_hash(core))
        self._check_not_over(core)
        seat = int(core.current_player[0])
        if msg.get("seat", seat) != seat:
            raise ProtocolError("not_your_turn", f"the decision belongs to seat {seat}, not seat {msg['seat']}",
                                field="seat", to_move=seat)
        clock = self._clock(msg, None)
        events, returns = [], [0.0] * slot.num_players
        while True:
            seq = None if start_seq is None else start_seq + len(events)
            a, fallback = self._think(entry, slot, bot, seq, clock, received)
            events.append(self._step(slot, a, "bot", seq, returns, fallback))
            received = time.monotonic()  # the next decision has its own time limit
            if (msg.get("until", "one") == "one" or self._over(core) or int(core.current_player[0]) != seat
                    or len(events) >= MAX_BOT_RUN):
                break
        reply = {"actions": events, **self._position(slot, entry, options, msg)}
        reply["seq"] = start_seq + len(events) if start_seq is not None else None
        return reply

    def _req_new_match(self, msg, client, received) -> dict:
        entry = self._entry(msg["game"])
        options = entry.parse_options(msg.get("options"))
        slot = self._slot(entry, options)
        n = slot.num_players
        bots = self._match_bots(entry, msg.get("bots"), n)
        if "state" in msg and "seed" in msg:
            raise ProtocolError("bad_request", "give seed or state, not both", field="seed")
        if "state" in msg:
            state = msg["state"]
            self._load_state(slot, entry, options, state)
            start = {"seed": state["seed"]} if "seed" in state else {"save": True}
            history = self._actions_of(slot, state.get("actions", []), "state.actions") if "seed" in state else []
        else:
            seed = msg["seed"] if "seed" in msg else secrets.randbelow(MAX_SEED + 1)
            slot.env.reset(seed=seed)
            start, history = {"seed": seed}, []
        with self._lock:
            self._check_room(client)
            mid = secrets.token_urlsafe(12)
            m = Match(mid, client, entry, options, self._options_key(options), bots,
                      [s for s in range(n) if s not in bots], slot.env.clone_state(), start, list(history),
                      [0.0] * n, state_hash(slot.core), **self._clock(msg, None))
            m.bot_moves = msg.get("bot_moves", "all")
            self._matches[mid] = m
        with m.lock:  # (nobody else knows the match yet)
            try:
                reply = self._advance_locked(m, slot, msg, received, [])
            except ProtocolError:
                with self._lock:
                    self._matches.pop(mid, None)
                raise
        return reply

    def _req_move(self, msg, client, received) -> dict:
        m = self._match(msg["match"])
        with self._turn(m):
            slot = self._load_match(m)
            action = self._action_id(slot, msg["action"], "action")
            if m.last_move is not None and msg["seq"] == m.last_move[0] and action == m.last_move[1] \
                    and msg["seq"] != m.seq:
                return {**m.last_move[2], "duplicate": True}
            self._check_seq(m, msg)
            core = slot.core
            self._check_not_over(core)
            seat = int(core.current_player[0])
            if seat in m.bots:
                raise ProtocolError("not_your_turn", f"seat {seat} ({m.bots[seat].name}) decides now: send "
                                                     "'advance' for the bot's move", field="action", to_move=seat)
            reason = slot.env.illegal_reason(action)
            if reason is not None:
                raise ProtocolError("illegal_action", slot.env.why_illegal(action), field="action", rule=reason[1],
                                    to_move=seat)
            returns = list(m.returns)
            events = [self._step(slot, action, "client", m.seq, returns)]
            seq_before = m.seq
            reply = self._advance_locked(m, slot, msg, received, events, returns=returns)
            m.last_move = (seq_before, action, reply)
            return reply

    def _req_advance(self, msg, client, received) -> dict:
        m = self._match(msg["match"])
        with self._turn(m):
            slot = self._load_match(m)
            self._check_seq(m, msg)
            self._check_not_over(slot.core)
            seat = int(slot.core.current_player[0])
            if seat not in m.bots:
                raise ProtocolError("not_your_turn", f"seat {seat} is yours to play: send 'move'", field="type",
                                    to_move=seat)
            return self._advance_locked(m, slot, msg, received, [])

    def _req_state(self, msg, client, received) -> dict:
        m = self._match(msg["match"])
        with self._turn(m):
            slot = self._load_match(m)
            reply = self._match_reply(m, slot, msg, [])
            if msg.get("history"):
                reply["history"] = {**m.start, "actions": list(m.history)}
            return reply

    def _req_close(self, msg, client, received) -> dict:
        m = self._match(msg["match"])
        with self._lock:
            self._close(m.id, "closed by the client")
        return {"match": m.id, "closed": True}

    # -- match helpers ----------------------------------------------------------------------------
    def _advance_locked(self, m: Match, slot: _Slot, msg, received, events, returns=None) -> dict:
        """Bots play from here (all their decisions, or one); then the match takes the result."""
        returns = list(m.returns) if returns is None else returns
        clock = self._clock(msg, m)
        one = msg.get("bot_moves", m.bot_moves) == "one"
        core = slot.core
        played = 0
        start = m.seq
        while not self._over(core) and int(core.current_player[0]) in m.bots and played < MAX_BOT_RUN:
            if one and played >= 1:
                break
            bot = m.bots[int(core.current_player[0])]
            seq = start + len(events)
            a, fallback = self._think(m.entry, slot, bot, seq, clock, received)
            events.append(self._step(slot, a, "bot", seq, returns, fallback))
            played += 1
            received = time.monotonic()  # the next bot decision has its own time limit
        # all went well: the match takes the new state
        m.state, m.history = slot.env.clone_state(), m.history + [e["action"] for e in events]
        m.returns = returns
        m.hash = state_hash(core)
        m.last_active = time.monotonic()
        return self._match_reply(m, slot, msg, events)

    def _match_reply(self, m: Match, slot: _Slot, msg, events) -> dict:
        reply = {"match": m.id, "seq": m.seq, "events": events,
                 "seats": {"client": m.client_seats, "bots": {str(s): b.to_json() for s, b in m.bots.items()}},
                 **self._position(slot, m.entry, m.options, msg, m.hash)}
        if "seed" in m.start:
            reply["seed"] = m.start["seed"]
        reply["your_turn"] = reply["to_move"] is not None and reply["to_move"] in m.client_seats
        if reply["over"]:
            reply["result"]["returns"] = list(m.returns)
        return reply

    def _match_bots(self, entry: GameEntry, spec, n: int) -> dict:
        if spec is None:
            default = "scripted" if "scripted" in entry.policies else next(iter(entry.policies))
            spec = {str(s): default for s in range(1, n)}
        bots = {}
        for key, value in spec.items():
            if not (key.isascii() and key.isdigit()) or str(int(key)) != key or not 0 <= int(key) < n:
                raise ProtocolError("bad_request", f"bots: seat {key!r} does not exist (seats 0..{n - 1})",
                                    field=f"bots.{key}")
            bots[int(key)] = self.bots.resolve(entry, value, f"bots.{key}")
        if len(bots) == n:
            raise ProtocolError("bad_request", "every seat is a bot: leave at least one seat to the client",
                                field="bots")
        return bots

    def _check_room(self, client: str) -> None:
        if len(self._matches) >= self.limits.max_matches:
            raise ProtocolError("too_many_matches", f"the server holds its limit of {self.limits.max_matches} "
                                                    "open matches; close one or try later")
        mine = sum(1 for m in self._matches.values() if m.client == client)
        if mine >= self.limits.max_matches_per_client:
            raise ProtocolError("too_many_matches", f"you hold {mine} open matches, the limit per client; "
                                                    "close one first")

    def _match(self, mid: str) -> Match:
        with self._lock:
            m = self._matches.get(mid)
            if m is None:
                if mid in self._closed:
                    raise ProtocolError("match_closed", f"match {mid} was closed: {self._closed[mid]}",
                                        field="match")
                raise ProtocolError("unknown_match", f"no match {mid!r} on this server", field="match")
            m.last_active = time.monotonic()
            return m

    def _close(self, mid: str, why: str) -> None:
        """(under self._lock)"""
        if self._matches.pop(mid, None) is not None:
            self._closed[mid] = why
            while len(self._closed) > 10_000:
                self._closed.popitem(last=False)

    def _load_match(self, m: Match, state=None) -> _Slot:
        slot = self._slots.get(m.entry, m.options, m.options_key)
        _restore(slot, m.state if state is None else state)
        return slot

    @staticmethod
    @contextlib.contextmanager
    def _turn(m: Match):
        """One request per match at a time; another one meanwhile is refused at once rather than
        holding a worker thread (a client flooding one match cannot stall the others)."""
        if not m.lock.acquire(blocking=False):
            raise ProtocolError("busy", f"another request for match {m.id} is being answered: send this one "
                                        "again after its reply (a resent move gets the same reply)", field="match")
        try:
            yield
        finally:
            m.lock.release()

    def _check_seq(self, m: Match, msg) -> None:
        if msg["seq"] != m.seq:
            raise ProtocolError("stale_seq", f"seq {msg['seq']} is not the match's sequence number {m.seq}: send "
                                             "'state' to resynchronise", field="seq", seq=m.seq, state_hash=m.hash)
        if "state_hash" in msg and msg["state_hash"] != m.hash:
            raise ProtocolError("hash_mismatch", "state_hash does not match the match's state: send 'state' to "
                                                 "resynchronise", field="state_hash", seq=m.seq, state_hash=m.hash)

    # -- game helpers ---------------------------------------------------------------------------------
    def _entry(self, name: str) -> GameEntry:
        if name not in GAMES:
            raise ProtocolError("unknown_game", f"no game {name!r}; this server has {sorted(GAMES)}", field="game",
                                choices=sorted(GAMES))
        with self._lock:
            entry = self._games.get(name)
        if entry is None:
            entry = GameEntry(name, self._data.get(GAMES[name][1]))
            with self._lock:
                entry = self._games.setdefault(name, entry)
        return entry

    @staticmethod
    def _options_key(options: dict) -> str:
        return json.dumps(plain(options), sort_keys=True)

    def _slot(self, entry: GameEntry, options: dict) -> _Slot:
        return self._slots.get(entry, options, self._options_key(options))

    def _clock(self, msg, m: Match | None) -> dict:
        return {"time_limit_ms": msg.get("time_limit_ms", m.time_limit_ms if m else self.limits.default_time_limit_ms),
                "on_timeout": msg.get("on_timeout", m.on_timeout if m else "fallback")}

    def _load_state(self, slot: _Slot, entry: GameEntry, options: dict, state: dict) -> int | None:
        """Put the given state into the scratch env; the sequence number if known (seed + history)."""
        env = slot.env
        if "save" in state:
            try:
                data = base64.b64decode(state["save"], validate=True)
            except (binascii.Error, ValueError) as exc:
                raise ProtocolError("bad_save", f"state.save is not base64: {exc}", field="state.save") from None
            core = env.core
            try:
                # VecGame.load, from bytes instead of a path: header (game, options) first, then the arrays
                from ..envs.core.batch import BatchState
                core._check_save_header(BatchState.read_header(data))
                loaded, _meta = BatchState.from_bytes(core.spec, data)
                if loaded.batch_size != 1:
                    raise ValueError(f"save file holds {loaded.batch_size} games; send one")
                env.set_state(loaded)  # (which checks the state completely first, and changes nothing if not)
            except (ValueError, KeyError, TypeError, IndexError, OverflowError) as exc:
                raise ProtocolError("bad_save", _clipped(exc), field="state.save") from None
            return None
        actions = state.get("actions", [])
        if len(actions) > self.limits.max_history:
            raise ProtocolError("bad_state", f"{len(actions)} actions; the limit is {self.limits.max_history}",
                                field="state.actions")
        env.reset(seed=state["seed"])
        self._actions_of(slot, actions, "state.actions", replay=True)
        return len(actions)

    def _actions_of(self, slot: _Slot, actions, where: str, replay: bool = False) -> list[int]:
        ids = []
        budget = time.thread_time() + self.limits.request_cpu_ms / 1000.0
        for i, a in enumerate(actions):
            a = self._action_id(slot, a, f"{where}.{i}")
            if replay:
                if i % 64 == 63 and time.thread_time() > budget:
                    raise ProtocolError("too_costly", f"replaying {where} took more than {self.limits.request_cpu_ms} "
                                                      f"ms of CPU by action {i}; send a save instead",
                                        field=f"{where}.{i}")
                if self._over(slot.core):
                    raise ProtocolError("bad_state", f"action {i} comes after the end of the game",
                                        field=f"{where}.{i}")
                reason = slot.env.illegal_reason(a)
                if reason is not None:
                    raise ProtocolError("bad_state", f"action {i}: {slot.env.why_illegal(a)}", field=f"{where}.{i}",
                                        rule=reason[1])
                slot.env.step(a)
            ids.append(a)
        return ids

    @staticmethod
    def _action_id(slot: _Slot, action, where: str) -> int:
        if isinstance(action, str):
            if action not in slot.ids:
                raise ProtocolError("unknown_action", f"no action named {action!r} in this game", field=where)
            return slot.ids[action]
        if not 0 <= action < len(slot.names):
            raise ProtocolError("unknown_action", f"action {action} is outside the action space "
                                                  f"0..{len(slot.names) - 1}", field=where)
        return int(action)

    @staticmethod
    def _over(core) -> bool:
        return bool(core.terminated[0] or core.truncated[0])

    def _check_not_over(self, core) -> None:
        if self._over(core):
            raise ProtocolError("game_over", "the game is over: no decision is left")

    def _step(self, slot: _Slot, action: int, by: str, seq: int | None, returns: list, fallback=False) -> dict:
        core = slot.core
        seat = int(core.current_player[0])
        slot.env.step(action)
        rewards = core.rewards[0].tolist()
        for i, r in enumerate(rewards):
            returns[i] += r
        event = {"seq": None if seq is None else seq + 1, "seat": seat, "by": by, "action": int(action),
                 "name": slot.names[action], "rewards": rewards}
        if fallback:
            event["fallback"] = True
        return event

    def _think(self, entry: GameEntry, slot: _Slot, bot: Bot, seq, clock: dict, received: float) -> tuple[int, bool]:
        """The bot's action now, and whether it is the fallback played past the time limit."""
        core = slot.core
        deadline = received + clock["time_limit_ms"] / 1000.0
        if bot.level < 10 or bot.kind in ("slow", "search"):
            position, legal = state_hash(core), slot.env.legal_actions()
            # (the search bot's level is its budget, not a share of random moves)
            if bot.level < 10 and bot.kind != "search" and _unit(position, seq, "level") >= bot.level / 10.0:
                return int(legal[int(_unit(position, seq, "pick") * len(legal))]), False
        if bot.kind == "builtin":
            if time.monotonic() > deadline and bot.policy != entry.fallback_policy():
                return self._late(entry, slot, clock)
            return _builtin_action(entry, core, bot.policy), False
        obs, mask = core.obs[0].copy(), core.mask[0].astype(bool)  # the thinker's own copies
        if bot.kind == "model":
            def think():
                model, lock = self.bots.model(entry, bot)
                _check_fits(model, bot, obs, mask)
                with lock:
                    act, _ = model.predict(obs.reshape(1, -1), action_masks=mask[None], deterministic=True)
                return int(np.asarray(act).reshape(-1)[0])
        elif bot.kind == "search":
            # it searches copies, so a thought that outlasts the time limit changes nothing; its dice
            # are fixed by the position, so the same request gets the same move
            roots, player, options = core.clone_state([0]), int(core.current_player[0]), core.options
            seed = int(_unit(position, seq, "search") * 2 ** 62)

            def think():  # past the deadline it gives up (TimeoutError): the fallback is played then
                searcher, lock = self.bots.searcher(entry, options, bot)
                with lock:
                    return int(searcher.search(roots, mask[None], [player], seed=seed, give_up_at=deadline)[0])
        else:  # the slow test bot: sleeps, then a legal move fixed by the position
            delay = self.limits.slow_bot_ms / 1000.0

            def think():
                time.sleep(delay)
                return int(legal[int(_unit(position, seq, "slow") * len(legal))])
        future = _THINKERS.submit(think)
        try:
            action = future.result(timeout=max(0.0, deadline - time.monotonic()))
        except cf.TimeoutError:  # (the builtin TimeoutError, which a search past its deadline raises)
            future.cancel()  # if it has not started; a started thought ends on its own, unheard
            return self._late(entry, slot, clock)
        if not mask[action]:
            raise ProtocolError("internal", f"bot {bot.name} chose illegal action {action}")
        return action, False

    @staticmethod
    def _late(entry: GameEntry, slot: _Slot, clock: dict) -> tuple[int, bool]:
        if clock["on_timeout"] == "error":
            raise ProtocolError("timeout", f"the bot did not move within {clock['time_limit_ms']} ms; nothing "
                                           "changed", field="time_limit_ms")
        return _builtin_action(entry, slot.core, entry.fallback_policy()), True

    def _position(self, slot: _Slot, entry: GameEntry, options: dict, msg, known_hash: str | None = None) -> dict:
        """What a reply says about the position: hash (``known_hash`` if the caller has just computed
        it: hashing costs ~15 us), whose decision, the end, and what was asked for."""
        core, env = slot.core, slot.env
        over = self._over(core)
        out = {"state_hash": known_hash or state_hash(core), "to_move": None if over else int(core.current_player[0]),
               "over": over}
        if over:
            out["result"] = {"terminated": bool(core.terminated[0]), "truncated": bool(core.truncated[0]),
                             "info": plain(entry.game.final_info(core, 0))}
        if msg.get("legal"):
            out["legal"] = [{"action": int(a), "name": slot.names[a]} for a in env.legal_actions()]
        if msg.get("observe") and not over:
            obs = env.observe(env.agent_selection)["observation"]
            out["observation"] = {"seat": int(core.current_player[0]), "shape": list(obs.shape), "dtype": "int8",
                                  "base64": base64.b64encode(obs.tobytes()).decode()}
        if msg.get("save"):
            out["save"] = base64.b64encode(self.save_bytes(slot, options)).decode()
        return out

    @staticmethod
    def save_bytes(slot: _Slot, options: dict, log: dict | None = None) -> bytes:
        """The file ``save()`` writes (``load()`` reads it), with the game's log in its meta if given."""
        meta = {"options": options}
        if log is not None:
            meta["wargym_serve"] = log
        return slot.core.clone_state().to_bytes(meta=meta)

    # -- for the HTTP transport's board and save downloads ---------------------------------------------
    # (these read the match without its lock: a commit replaces state and history, never changes them,
    # so a picture drawn while a request is answered shows the position before it)
    def match_file(self, mid: str) -> tuple[str, bytes]:
        m = self._match(mid)
        state, history = m.state, m.history
        slot = self._load_match(m, state)
        log = {**m.start, "actions": list(history), "bots": {str(s): b.to_json() for s, b in m.bots.items()}}
        return f"{m.entry.name}-{mid}.wargym", self.save_bytes(slot, m.options, log)

    def match_board_map(self, mid: str) -> dict:
        """Where the client's legal actions are on the board picture (``board.board_map``), for the
        position the match is in now; empty while a bot is to move or the game is over."""
        from .board import board_map
        m = self._match(mid)
        state, seq, hsh = m.state, m.seq, m.hash
        slot = self._load_match(m, state)
        core = slot.core
        yours = not self._over(core) and int(core.current_player[0]) in m.client_seats
        legal = slot.env.legal_actions() if yours else []
        return {"match": m.id, "seq": seq, "state_hash": hsh, **board_map(m.entry.name, core, legal)}

    def match_board(self, mid: str, viewer: int | None, fmt: str = "png"):
        m = self._match(mid)
        slot = self._load_match(m, m.state)
        if viewer is None or not 0 <= viewer < slot.num_players:
            viewer = m.client_seats[0]
        renderer = slot.env.renderer
        if fmt == "ansi":
            return renderer(slot.core, 0, "ansi", viewer)
        frame = renderer(slot.core, 0, "rgb_array", viewer)
        import io

        from PIL import Image
        buf = io.BytesIO()
        Image.fromarray(frame).save(buf, "PNG", compress_level=1)
        return buf.getvalue()
