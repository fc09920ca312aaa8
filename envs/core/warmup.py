"""Compile a game's kernels before they are needed: ``wargym compile``, the test suite's start.

Numba compiles a kernel the first time it is called with a given signature and keeps the machine
code in its on-disk cache (``__pycache__`` beside the sources, or ``NUMBA_CACHE_DIR``); later
processes load it.  ``exercise`` calls every kernel a user meets first -- the AEC env, the batched
core (serial and parallel), the single-agent learner loops against each built-in opponent and the
compiled self-play of the bots -- so that the cache holds them.  ``compile_games`` runs one game per
worker *process* (Numba compiles in one thread, so processes are how a second core helps) and
reports each stage as it ends; ``CompileLog`` names every function while it compiles.

The stages are the same as ``benchmarks/cold_start.py`` times, one game at a time.
"""
from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context

import numpy as np

from .compile_plan import HELPER_VARIABLE

STAGES = ("aec", "batched", "adapter", "bot")

# CPU seconds of a cold compile per game (wargym compile in CI, 2026-11-29, 2-core machine, one entry point):
# compile_games starts the longest first, so that the last one to finish is a short one
COLD_CPU_SECONDS = {"union_wars": 305, "talon": 140, "battle_force": 128, "planetoids": 105}


def _aec(game_key: str, steps: int = 300) -> None:
    """The PettingZoo env: reset, then random legal moves (a whole game where it is short)."""
    from ...registration import current_module, env_module
    env = env_module(current_module(game_key)).env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        if not env.agents:
            break
        obs, _r, term, trunc, _info = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def _batched(game) -> None:
    """VecGame.step in the calling thread and on the thread pool, random legal actions."""
    from .sampling import new_streams, sample_legal
    from .vec import VecGame
    for batch, parallel in ((2, False), (32, True)):
        core = VecGame(game, batch, auto_reset=True, parallel=parallel)
        core.reset(seed=0)
        streams, actions = new_streams(batch), np.zeros(batch, dtype=np.int64)
        for _ in range(3):
            sample_legal(core.mask, streams, actions)
            core.step(actions)


def _adapter(game_key: str, game) -> bool:
    """The SB3 / Gymnasium learner loops against every built-in opponent (needs the train extra)."""
    try:
        from ...wrappers.sb3 import WargymVecEnv
    except ImportError:
        return False
    for opponent in sorted(game.bot.POLICIES):
        for n_envs in (2, 16):   # 16: SERIAL_BELOW, where the loops run on the thread pool
            venv = WargymVecEnv(game_key, n_envs=n_envs, opponent=opponent, seed=0)
            venv.reset()
            for _ in range(3):
                venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()], dtype=np.int64))
    return True


def _bot(game) -> None:
    """The bots' compiled self-play (game.bot.play_games), two games of each built-in policy, and
    their moves in every game at once (game.bot.policy_actions: the warm start's teacher)."""
    from .vec import VecGame
    core = VecGame(game, 2)
    core.reset(seed=1)
    for policy in sorted(set(game.bot.POLICIES.values())):
        game.bot.policy_actions(core, policy)
        policies = np.full((2, core.num_players), policy, dtype=np.int64)
        states, cfgs, outs = core.kernel_args()
        game.bot.play_games(states, cfgs, policies, outs, np.zeros((2, core.num_players)))
    from .search import FlatSearch, searchable
    if searchable(game):
        core.reset(seed=1)  # (the games above were played to their end)
        FlatSearch(game, {}, 2).choose(core)  # the search bot's batch of simulations (arena, serve)


class CompileLog:
    """Numba's compile events while it is installed: ``names`` the functions compiled, with the
    seconds each took without its callees (``seconds``); ``say(text)`` hears each top-level one.
    ``compiles`` lists every compile in the order it ended (compile_plan.py records its plans from
    it): ``{"dispatcher", "args", "depth", "seconds"`` (without callees)``, "subtree_seconds"}``."""

    def __init__(self, say=None, clock=time.perf_counter):
        from numba.core import event
        self._event, self._say, self._clock = event, say, clock
        self._stack: list[list] = []          # [name, start, seconds in callees]
        self.seconds: dict[str, float] = {}
        self.compiles: list[dict] = []
        listener = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                listener._start(ev)

            def on_end(self, ev):
                listener._end(ev)
        self._listener = _Listener()

    @staticmethod
    def _name(ev) -> str:
        func = getattr(ev.data.get("dispatcher"), "py_func", None)
        return f"{func.__module__}.{func.__qualname__}" if func is not None else "?"

    def _start(self, ev):
        name = self._name(ev)
        # Numba's own helpers (the constructor of a struct reference, compiled in every process, cache or
        # not, in a fraction of a second) are not the game's kernels: not announced
        if not self._stack and self._say is not None and not name.startswith("numba."):
            self._say(f"compiling {name}")
        self._stack.append([name, self._clock(), 0.0])

    def _end(self, ev):
        name, start, inner = self._stack.pop()
        total = self._clock() - start
        self.seconds[name] = self.seconds.get(name, 0.0) + total - inner
        if self._stack:
            self._stack[-1][2] += total
        self.compiles.append({"dispatcher": ev.data.get("dispatcher"), "args": ev.data.get("args") or (),
                              "depth": len(self._stack), "seconds": total - inner, "subtree_seconds": total})

    def __enter__(self):
        self._event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc):
        self._event.unregister("numba:compile", self._listener)

    def slowest(self, n: int = 10) -> list[tuple[str, float]]:
        return sorted(self.seconds.items(), key=lambda kv: -kv[1])[:n]


_ANNOUNCER: list = []


def announce_compiles(say) -> None:
    """From now on in this process, ``say("compiling <function>")`` as each top-level kernel starts
    compiling (installed once per process; a warm cache says nothing)."""
    if not _ANNOUNCER:
        _ANNOUNCER.append(CompileLog(lambda what: _ANNOUNCER[1](what)).__enter__())
        _ANNOUNCER.append(say)
    _ANNOUNCER[1] = say


def exercise(game_key: str, report=None, before=None) -> dict:
    """Call every kernel a user meets first; seconds per stage (``before(stage)`` as each starts,
    ``report(stage, seconds)`` as each ends)."""
    from ...registration import load_game
    game = load_game(game_key)
    seconds = {}
    for stage in STAGES:
        if before is not None:
            before(stage)
        t0 = time.perf_counter()
        done = {"aec": lambda: _aec(game_key), "batched": lambda: _batched(game),
                "adapter": lambda: _adapter(game_key, game), "bot": lambda: _bot(game)}[stage]()
        if done is False:
            continue
        seconds[stage] = time.perf_counter() - t0
        if report is not None:
            report(stage, seconds[stage])
    return seconds


def _exercise_in_worker(game_key: str, verbose: bool) -> tuple[str, dict, float]:
    t0 = time.process_time()
    say = (lambda text: print(f"  {game_key:<13} {text}", file=sys.stderr, flush=True)) if verbose else None
    with CompileLog(say):
        seconds = exercise(game_key)
    return game_key, seconds, time.process_time() - t0


def _without_helper() -> None:
    os.environ[HELPER_VARIABLE] = "0"


def compile_games(games, jobs: int | None = None, out=sys.stderr, verbose: bool = True) -> dict:
    """Compile ``games`` (keys) into Numba's cache, ``jobs`` worker processes at a time (default: one
    per core).  Worker processes are spawned, so nothing of this process (a thread pool, a fork
    of an OpenMP runtime) reaches them; they write the same cache the caller then reads."""
    games = sorted(games, key=lambda key: -COLD_CPU_SECONDS.get(key, 0))
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(games)))
    t0 = time.perf_counter()
    print(f"wargym compile: {', '.join(games)} ({jobs} processes; the first run on a machine compiles, "
          "later runs load the cache)", file=out, flush=True)
    results = {}
    # a game per core already keeps every core busy: no helper process beside each (compile_plan.py)
    initializer = _without_helper if len(games) >= (os.cpu_count() or 1) else None
    with ProcessPoolExecutor(jobs, mp_context=get_context("spawn"), initializer=initializer) as pool:
        pending = {pool.submit(_exercise_in_worker, key, verbose): key for key in games}
        for future in as_completed(pending):
            key, seconds, cpu = future.result()
            results[key] = seconds
            stages = ", ".join(f"{stage} {s:.0f} s" for stage, s in seconds.items())
            print(f"  {key:<13} ready after {time.perf_counter() - t0:5.0f} s ({stages}; {cpu:.0f} s CPU)",
                  file=out, flush=True)
    return results
