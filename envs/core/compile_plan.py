"""A second core for a cold compile: a helper process compiles half of a game's kernels into the cache.

Numba compiles in one thread, under one lock, so a process compiling a game from an empty cache uses
one core while the other waits.  A game's first entry point (the reset of the AEC env) reaches
nearly every kernel of its rules, depth first; each kernel is compiled for the exact argument types
it is called with and written to the on-disk cache as it is done, and a compile that needs a kernel
already in the cache loads it (with its bitcode, so that the caller still inlines it) instead of
compiling it.  So a second process that compiles the same kernels in another order fills the cache
with the ones the first reaches last, and the first loads them when it gets there.

**The plan** (``envs/<game>/data/compile_plan.json``) is what the helper compiles, in order: each
entry a kernel (module and name) and the argument types it is compiled for, as Numba writes them.
Each type's name is written once (``types``), the entries index them.
It is recorded from a cold compile (``python -m wargym.envs.core.compile_plan --record GAME``, an
empty cache in a temporary folder): the kernels in the order their compiles ended, each with its
seconds, cut into subtrees of at most ``UNIT_SECONDS`` each, and for each stage of the warm-up
(the AEC env, the batched core, the learner loops, the bots) the stage's subtrees last to first,
so that the helper starts where the first process will arrive last.  A kernel whose subtree is
larger than that comes right after its cut callees: the large rule functions (a mask, the reason
for refusing an action), whose own compile is seconds, are then the helper's too.

A stale plan costs time, never correctness: an entry whose kernel is gone or whose types this
version cannot build is skipped; one whose kernel changed is compiled as it is now (the types are
what the caller passes); whatever the helper has not compiled when it is needed, the process
compiles itself, as without a helper.  ``tests/test_compile_plan.py`` checks that every game's
plan still names its kernels and types.

**When** (``start_helper``): the first ``VecGame`` of a game in a process, when the game's batched
reset is not in the cache.  The helper runs ``python -m wargym.envs.core.compile_plan GAME`` in the
same environment (``NUMBA_CACHE_DIR`` included), and is stopped when the process that started it
exits.  One helper per game and cache at a time: a lock file beside the cache (``claim``), so that the
workers of a vector env starting together on a cold cache start one helper, not one each.  Not started where it cannot help: one core, ``WARGYM_COMPILE_HELPER=0`` in the environment
(``wargym compile`` sets it when it already runs a game per core), or inside a helper.
"""
from __future__ import annotations

import atexit
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

UNIT_SECONDS = 5.0          # the largest subtree compiled as one entry of the plan (seconds of one core)
HELPER_VARIABLE = "WARGYM_COMPILE_HELPER"
_STARTED: dict[str, subprocess.Popen] = {}
_ASKED: set[str] = set()     # the games start_helper has been asked about in this process


def plan_path(game_key: str) -> Path:
    return Path(__file__).resolve().parents[1] / game_key / "data" / "compile_plan.json"


def load_plan(game_key: str) -> list[dict]:
    """The plan's entries (``[]`` where the game has none): ``{"kernel", "args", "seconds"}``."""
    path = plan_path(game_key)
    if not path.is_file():
        return []
    plan = json.loads(path.read_text())
    return [{**entry, "args": [plan["types"][k] for k in entry["args"]]} for entry in plan["entries"]]


# -- recording --------------------------------------------------------------------------------------
def _tree(compiles: list[dict]) -> tuple[list[int], list[float]]:
    """For each compile (in the order their compiles ended, each with its ``depth`` and ``seconds``
    without its callees): the index where its subtree starts, and the subtree's seconds."""
    n = len(compiles)
    start, total = [0] * n, [0.0] * n
    for i, entry in enumerate(compiles):
        j, seconds = i - 1, entry["seconds"]
        while j >= 0 and compiles[j]["depth"] > entry["depth"]:   # the children, last to first
            seconds += total[j]
            j = start[j] - 1
        start[i], total[i] = j + 1, seconds
    return start, total


def _children(i: int, start: list[int]) -> list[int]:
    """The direct callees of compile ``i``, last to first."""
    out, j = [], i - 1
    while j >= start[i]:
        out.append(j)
        j = start[j] - 1
    return out


def helper_order(compiles: list[dict], limit: float = UNIT_SECONDS) -> list[int]:
    """The indices of ``compiles`` the helper compiles, in its order: the top-level compiles last to
    first, each cut into the largest subtrees below it of at most ``limit`` seconds, taken last to
    first; a larger subtree is cut into its children's, and its own kernel comes right after them
    (its callees then load from the cache, so it costs the helper its own seconds, which the first
    process would otherwise spend: the large rule functions, a mask, a reason, are most of them)."""
    start, total = _tree(compiles)

    def order(i: int) -> list[int]:
        if compiles[i]["depth"] > 0 and total[i] <= limit:
            return [i]
        out = [k for child in _children(i, start) for k in order(child)]
        # a top-level compile (a batched entry point) needs nearly every kernel: the process's own
        return out + [i] if compiles[i]["depth"] > 0 else out

    tops = [i for i, entry in enumerate(compiles) if entry["depth"] == 0]
    return [k for top in reversed(tops) for k in order(top)]


def plan_from(compiles: list[dict]) -> list[dict]:
    """The helper's plan: stage by stage in the order they run, each stage's compiles in
    ``helper_order`` (module docstring)."""
    ordered = helper_order(compiles)
    entries = []
    for stage in dict.fromkeys(entry["stage"] for entry in compiles):
        for i in (i for i in ordered if compiles[i]["stage"] == stage):
            entry = compiles[i]
            if entry["kernel"] is not None:
                entries.append({"kernel": entry["kernel"], "args": entry["args"], "stage": stage,
                                "seconds": round(entry["subtree_seconds"], 2)})
    return entries


def record(game_key: str) -> list[dict]:
    """Compile ``game_key`` as ``wargym compile`` does, in this process (whose cache must be empty),
    and return every compile in the order it ended: kernel (``module:qualname``, None for Numba's
    own), argument types, depth, CPU seconds without callees and with them, and the stage."""
    import time

    from .kernel import WideningDispatcher
    from .warmup import CompileLog, exercise
    stages: list[tuple[int, str]] = []      # (compiles so far, stage) as each stage starts
    with CompileLog(clock=time.process_time) as log:
        exercise(game_key, before=lambda stage: stages.append((len(log.compiles), stage)))
    if not log.compiles:
        raise RuntimeError(f"{game_key}: nothing was compiled; record a plan with an empty cache")
    compiles = []
    for i, entry in enumerate(log.compiles):
        dispatcher, func = entry["dispatcher"], getattr(entry["dispatcher"], "py_func", None)
        # a kernel by its import path (not Numba's own, nor one generated per game: the range kernels
        # and loops, whose names carry a digest of the sources, are the process's to compile)
        kernel = f"{func.__module__}:{func.__qualname__}" if isinstance(dispatcher, WideningDispatcher) else None
        compiles.append({**entry, "dispatcher": None, "args": [str(a) for a in entry["args"]],
                         "kernel": kernel if kernel and resolve(kernel) is dispatcher else None,
                         "stage": next((stage for first, stage in reversed(stages) if first <= i), "aec")})
    return compiles


def write_plan(game_key: str, compiles: list[dict]) -> Path:
    import numba
    path = plan_path(game_key)
    entries, names = plan_from(compiles), {}        # each type's name written once, the entries index them
    for entry in entries:
        entry["args"] = [names.setdefault(name, len(names)) for name in entry["args"]]
    path.write_text(json.dumps({
        "about": "the kernels a helper process compiles while the first use of the game compiles the rest "
                 "(envs/core/compile_plan.py); recorded by python -m wargym.envs.core.compile_plan --record",
        "numba": numba.__version__, "cold_cpu_seconds": round(sum(c["seconds"] for c in compiles), 1),
        "types": list(names), "entries": entries}, indent=1) + "\n")
    return path


# -- compiling a plan --------------------------------------------------------------------------------
def type_names(game) -> dict:
    """Numba's types that a plan's argument types name, by their names: the game's structs and the
    views of them, scalars and arrays of every numeric type (a name not here is not built)."""
    from numba import typeof
    from numba.core import types

    from .structs import StructView
    from .vec import VecGame
    core = VecGame(game, 1)
    states, configs, outputs = core.kernel_args()
    known = {}
    for struct in (states[0], configs[0], outputs[0]):
        for t in (typeof(struct), StructView(typeof(struct))):
            known[str(t)] = t
    for n in range(1, 9):
        known[str(types.UniTuple(types.int64, n))] = types.UniTuple(types.int64, n)
    for scalar in (types.int8, types.int16, types.int32, types.int64, types.uint8, types.uint16, types.uint32,
                   types.uint64, types.float32, types.float64, types.boolean):
        known[str(scalar)] = scalar
        for ndim in (1, 2, 3, 4):
            for layout in ("C", "A"):
                known[str(types.Array(scalar, ndim, layout))] = types.Array(scalar, ndim, layout)
    return known


def build_type(name: str, known: dict):
    """The type ``name`` names: one of ``known``, or an omitted argument's (a default left out)."""
    from numba.core import types
    if name in known:
        return known[name]
    default = re.fullmatch(r"omitted\(default=(-?\d+|True|False|None)\)", name)
    if default is None:
        return None
    value = {"True": True, "False": False, "None": None}.get(default[1], None)
    return types.Omitted(int(default[1]) if value is None and default[1] != "None" else value)


def resolve(kernel: str):
    """The dispatcher ``module:qualname`` names, or None where it is gone."""
    module, _, qualname = kernel.partition(":")
    try:
        found = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return found if hasattr(found, "compile") and hasattr(found, "py_func") else None


def planned(game_key: str) -> list[tuple]:
    """``(dispatcher, signature)`` for every entry of the plan this version can build, in order."""
    from ...registration import load_game
    known = type_names(load_game(game_key))
    out = []
    for entry in load_plan(game_key):
        dispatcher, signature = resolve(entry["kernel"]), tuple(build_type(a, known) for a in entry["args"])
        if dispatcher is not None and None not in signature:
            out.append((dispatcher, signature))
    return out


def compile_planned(game_key: str) -> int:
    """The helper's work: compile the plan's kernels into the cache (those there already load)."""
    done = 0
    for dispatcher, signature in planned(game_key):
        dispatcher.compile(signature)
        done += 1
    return done


# -- starting the helper -----------------------------------------------------------------------------
def is_cold(game) -> bool:
    """Whether ``game``'s batched reset has neither been compiled in this process nor cached on disk."""
    dispatcher = game.kernels.reset_range
    if dispatcher.overloads:
        return False
    try:
        return not dispatcher._cache._cache_file._load_index()   # Numba internals: an empty index
    except AttributeError:                                        # a Numba without them: no helper
        return False


def start_helper(game) -> subprocess.Popen | None:
    """Start the helper for ``game`` (module docstring) where it helps: at most once per process, and
    one at a time per game and cache on the machine (``claim``), so that the workers of a vector env
    starting together on a cold cache start one helper, not one each."""
    game_key = getattr(game, "NAME", None)
    if not isinstance(game_key, str) or game_key in _ASKED:
        return None
    _ASKED.add(game_key)        # asked once per process: later VecGames (a search's batches) cost nothing
    if (os.environ.get(HELPER_VARIABLE, "1") == "0" or (os.cpu_count() or 1) < 2
            or not plan_path(game_key).is_file() or not is_cold(game)):
        return None
    lock = claim(game)
    if lock is None:
        return None
    env = {**os.environ, HELPER_VARIABLE: "0"}
    try:
        helper = subprocess.Popen([sys.executable, "-m", "wargym.envs.core.compile_plan", game_key, "--lock", lock],
                                  env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
    except OSError:
        release(lock)
        return None
    _STARTED[game_key] = helper
    _LOCKS.append(lock)
    if len(_STARTED) == 1:
        atexit.register(_stop_helpers, os.getpid())
    return helper


LOCK_SECONDS = 600      # a lock older than this is a helper that died (a cold compile takes 1-2 minutes)
_LOCKS: list[str] = []


def lock_path(game) -> str | None:
    """The lock file of ``game``'s helper: in the folder of the cache, named after the batched reset
    (whose name carries the digest of the game's sources)."""
    dispatcher = game.kernels.reset_range
    try:
        folder = dispatcher._cache._cache_path       # Numba internals, as is_cold
    except AttributeError:
        return None
    return os.path.join(folder, f"wargym-compile-helper-{dispatcher.py_func.__qualname__}.lock")


def claim(game) -> str | None:
    """Take ``game``'s helper lock (its path), or None where another process holds it."""
    import time
    path = lock_path(game)
    if path is None:
        return None
    for _attempt in range(2):
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return path
        except FileExistsError:
            try:
                if time.time() - os.path.getmtime(path) < LOCK_SECONDS:
                    return None
                os.unlink(path)                         # stale: taken over
            except OSError:
                return None
        except OSError:                                 # a read-only cache folder: no helper
            return None
    return None


def release(lock: str) -> None:
    try:
        os.unlink(lock)
    except OSError:
        pass


def _stop_helpers(starter: int) -> None:
    if os.getpid() != starter:      # a forked child exiting is not the process that started them
        return
    for helper in _STARTED.values():
        if helper.poll() is None:
            helper.terminate()
            helper.wait(timeout=10)
    for lock in _LOCKS:
        release(lock)


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--record", action="store_true",
                    help="compile the game from an empty cache in a temporary folder and write its plan")
    ap.add_argument("--lock", help="the lock file to remove when done (start_helper's)")
    args = ap.parse_args(argv)
    if not args.record:
        try:
            compile_planned(args.game)
        finally:
            if args.lock:
                release(args.lock)
        return 0
    if "NUMBA_CACHE_DIR" not in os.environ or os.environ.get(HELPER_VARIABLE) != "0":
        import tempfile
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache, HELPER_VARIABLE: "0"}
            return subprocess.run([sys.executable, "-m", "wargym.envs.core.compile_plan", "--record", args.game],
                                  env=env).returncode
    path = write_plan(args.game, record(args.game))
    print(f"{args.game}: {len(load_plan(args.game))} entries written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
