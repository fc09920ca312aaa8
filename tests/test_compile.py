"""``wargym compile`` and the compile log (issue 30: a first run that shows what it compiles)."""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

import numba as nb
import pytest

from conftest import games_touched
from wargym.envs.core import compile_plan
from wargym.envs.core.warmup import CompileLog, compile_games
from wargym.registration import GAME_KEYS


def test_wargym_compile_reports_each_game_ready():
    # the suite compiled every game before the first test, so this loads the cache
    run = subprocess.run([sys.executable, "-m", "wargym", "compile", "planetoids", "--quiet"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "planetoids    ready after" in run.stderr and "aec" in run.stderr


def test_compile_log_names_each_function_as_it_compiles():
    @nb.njit
    def inner(x):
        return x + 1

    @nb.njit
    def outer(x):
        return inner(x) * 2

    heard = []
    with CompileLog(heard.append) as log:
        assert outer(3) == 8
    assert heard == [f"compiling {__name__}.test_compile_log_names_each_function_as_it_compiles.<locals>.outer"]
    assert {name.rsplit(".", 1)[1] for name in log.seconds} == {"inner", "outer"}
    assert all(seconds >= 0 for seconds in log.seconds.values())


def test_the_suite_compiles_the_games_its_files_name():
    assert compile_games([], jobs=1) == {}
    assert games_touched(["tests"]) == list(GAME_KEYS)
    assert games_touched(["tests/test_talon_bot.py::test_x", "tests/test_planetoids_env.py"]) == ["planetoids", "talon"]
    assert games_touched(["tests/test_clients.py"]) == list(GAME_KEYS)


def test_a_kernel_called_with_constants_and_narrow_integers_compiles_once():
    """envs/core/kernel.py (issue 30): a kernel called from other kernels with literals and int32
    values is compiled once, for int64 and a plain bool, not once per constant and width; the
    call sites convert, so every result is what plain njit gives."""
    import numpy as np
    from wargym.envs.core.kernel import WideningDispatcher, kernel

    @kernel
    def scaled(x, apply):
        return x * 2 if apply else x

    @kernel
    def caller(column):
        return scaled(column[0], True) + scaled(column[1], False) + scaled(3, True) + scaled(np.int64(4), apply=False)

    assert isinstance(scaled, WideningDispatcher)
    assert caller(np.array([5, 7], np.int32)) == 10 + 7 + 6 + 4
    assert [str(t) for sig in scaled.signatures for t in sig] == ["int64", "bool"]


def test_kernels_are_optimised_at_the_compile_level_and_numba_keeps_its_own(monkeypatch):
    """envs/core/kernel.py (issue 30): a kernel's LLVM optimisation runs at COMPILE_OPT (1: a cold
    compile 10-34 % cheaper, the cores as fast within 5 %), and Numba's own level is back after it."""
    from numba.core import config
    from numba.core.dispatcher import Dispatcher
    from wargym.envs.core import kernel as kernel_module

    seen = []
    numba_compile = Dispatcher.compile

    def recording(self, sig):
        seen.append(int(config.OPT))
        return numba_compile(self, sig)

    monkeypatch.setattr(Dispatcher, "compile", recording)
    monkeypatch.setattr(kernel_module, "COMPILE_OPT", 1)
    before = config.OPT

    @kernel_module.kernel
    def doubled(x):
        return 2 * x

    assert doubled(21) == 42
    assert seen == [1] and config.OPT is before
    monkeypatch.setattr(kernel_module, "COMPILE_OPT", None)   # NUMBA_OPT set by the user: Numba's level

    @kernel_module.kernel
    def tripled(x):
        return 3 * x

    assert tripled(2) == 6 and seen == [1, int(before)]


def test_a_kernel_whose_body_needs_a_literal_argument_is_compiled_for_it():
    """The fall-back of kernel.py: a heterogeneous tuple indexed by an argument needs its literal value."""
    from wargym.envs.core.kernel import kernel

    @kernel
    def pick(t, k):
        return t[k]

    @kernel
    def caller():
        t = (1, 2.5)
        return pick(t, 1) + pick(t, 0)

    assert caller() == 3.5


def test_a_cache_index_that_no_longer_unpickles_is_a_miss(tmp_path):
    """envs/core/package_cache.py: an index written by earlier code can name a type that is gone (a
    game's former view class); Numba unpickles it before it compares its stamp, so a stale cache
    beside a reinstalled package stopped the first call.  Now it is read as a miss and compiled anew."""
    (tmp_path / "m.py").write_text("import numba\n\n@numba.njit(cache=True)\ndef f(x):\n    return 2 * x\n")
    run = [sys.executable, "-c"]
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    subprocess.run([*run, "import m; assert m.f(1) == 2"], check=True, env=env, cwd=tmp_path)
    [index] = (tmp_path / "__pycache__").glob("m.f-*.nbi")
    with open(index, "rb") as f:
        version = pickle.load(f)
    with open(index, "wb") as f:
        pickle.dump(version, f)
        f.write(b"cm\nGone\n.")   # a payload naming m.Gone, which m does not define
    stale = subprocess.run([*run, "import m; m.f(1)"], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert stale.returncode != 0 and "Gone" in stale.stderr   # what Numba alone does with it
    subprocess.run([*run, "from wargym.envs.core import package_cache; package_cache._stale_index_is_a_miss(); "
                          "import m; assert m.f(21) == 42"], check=True, env=env, cwd=tmp_path)


def test_cold_start_names_the_llvm_level_its_processes_compile_at(monkeypatch):
    """benchmarks/cold_start.py's JSON says which level its figures are for (issue 30)."""
    from wargym.benchmarks.cold_start import llvm_level
    from wargym.envs.core import kernel as kernel_module
    monkeypatch.setattr(kernel_module, "COMPILE_OPT", 1)
    assert llvm_level() == 1
    monkeypatch.setattr(kernel_module, "COMPILE_OPT", None)   # NUMBA_OPT set: Numba's level decides
    monkeypatch.setenv("NUMBA_OPT", "3")
    assert llvm_level() == 3
    monkeypatch.setenv("NUMBA_OPT", "max")
    assert llvm_level() == "max"


# -- the helper process of a cold compile (envs/core/compile_plan.py) ---------------------------------


@pytest.mark.parametrize("game_key", GAME_KEYS)
def test_every_game_has_a_plan_whose_kernels_and_types_still_exist(game_key):
    """A plan names kernels by module and name and types by Numba's names for them: after a kernel is
    renamed or moved the helper would skip it (costing time, not correctness), so the suite says so.
    Re-record with ``python -m wargym.envs.core.compile_plan --record GAME``."""
    entries = compile_plan.load_plan(game_key)
    assert entries, f"{game_key} has no compile plan"
    built = compile_plan.planned(game_key)
    missing = [e["kernel"] for e in entries if compile_plan.resolve(e["kernel"]) is None]
    assert not missing, f"{game_key}'s plan names kernels that are gone: {missing[:5]}"
    assert len(built) == len(entries), f"{game_key}: {len(entries) - len(built)} entries name types not built"
    assert {e["stage"] for e in entries} <= set(("aec", "batched", "adapter", "bot"))


def test_a_plan_is_cut_into_subtrees_ordered_last_first_within_each_stage_a_cut_kernel_after_its_callees():
    # post-order compiles: a (depth 1) calls b and c (depth 2); d (depth 1); top (depth 0) calls a and d;
    # then the next stage's e (depth 1) under its own top
    def c(name, depth, seconds, stage="aec"):
        return {"kernel": f"m:{name}", "args": ["int64"], "depth": depth, "seconds": seconds,
                "subtree_seconds": 0.0, "stage": stage}
    compiles = [c("b", 2, 1.0), c("c", 2, 1.0), c("a", 1, 4.0), c("d", 1, 2.0), c("top", 0, 1.0),
                c("e", 1, 1.0, "bot"), c("top2", 0, 1.0, "bot")]
    # a's subtree is 6 s: over the 5 s limit, so b and c go apart, last first, and a itself right after
    # them (its callees then load from the cache); the top-level entry points are the process's own
    assert compile_plan.helper_order(compiles, limit=5.0) == [5, 3, 1, 0, 2]
    for entry, total in zip(compiles, (1, 1, 6, 2, 9, 1, 2)):
        entry["subtree_seconds"] = total
    order = [e["kernel"] for e in compile_plan.plan_from(compiles)]
    assert order == ["m:d", "m:c", "m:b", "m:a", "m:e"]


def test_the_helper_starts_only_for_a_cold_game_once_per_process_and_cache(monkeypatch, tmp_path):
    from wargym.registration import load_game
    game = load_game("planetoids")
    started = []

    class FakePopen:
        def __init__(self, argv, env, **_kw):
            started.append((argv, env))

        def poll(self):
            return 0

        def terminate(self):
            raise AssertionError("a finished helper is not stopped")
    monkeypatch.setattr(compile_plan.subprocess, "Popen", FakePopen)
    monkeypatch.setattr(compile_plan, "_STARTED", {})
    monkeypatch.setattr(compile_plan, "_LOCKS", [])
    asked = set()
    monkeypatch.setattr(compile_plan, "_ASKED", asked)
    lock = tmp_path / "helper.lock"
    monkeypatch.setattr(compile_plan, "lock_path", lambda _game: str(lock))
    monkeypatch.setattr(compile_plan.os, "cpu_count", lambda: 2)
    monkeypatch.delenv(compile_plan.HELPER_VARIABLE, raising=False)
    assert not compile_plan.is_cold(game)          # the suite compiled it: no helper
    assert compile_plan.start_helper(game) is None and not started
    monkeypatch.setattr(compile_plan, "is_cold", lambda _game: True)
    assert compile_plan.start_helper(game) is None and not started   # asked once per process
    asked.clear()
    monkeypatch.setenv(compile_plan.HELPER_VARIABLE, "0")
    assert compile_plan.start_helper(game) is None and not started
    asked.clear()
    monkeypatch.delenv(compile_plan.HELPER_VARIABLE)
    assert compile_plan.start_helper(game) is not None
    assert compile_plan.start_helper(game) is None          # once per process
    (argv, env), = started
    assert argv[1:] == ["-m", "wargym.envs.core.compile_plan", "planetoids", "--lock", str(lock)]
    assert env[compile_plan.HELPER_VARIABLE] == "0"          # a helper starts no helper of its own
    # another process (a vector env's worker) on the same cache: the lock is held, no second helper
    monkeypatch.setattr(compile_plan, "_STARTED", {})
    asked.clear()
    assert lock.exists() and compile_plan.start_helper(game) is None and len(started) == 1
    # a lock left by a helper that died long ago is taken over
    asked.clear()
    os.utime(lock, (0, 0))
    assert compile_plan.start_helper(game) is not None and len(started) == 2
    compile_plan._stop_helpers(os.getpid())
    assert not lock.exists()


def test_the_helper_compiles_its_plan_into_the_cache_the_game_then_loads(tmp_path):
    """A plan of two of Planetoids' small kernels, compiled by the helper's command into an empty cache;
    a second process finds them there (cache hits) instead of compiling them."""
    plan = [e for e in compile_plan.load_plan("planetoids") if e["seconds"] < 0.5][:2]
    assert len(plan) == 2
    probe = ("import json, sys\n"
             "from wargym.envs.core import compile_plan\n"
             "compile_plan.load_plan = lambda _key: json.loads(sys.argv[1])\n"
             "done = compile_plan.compile_planned('planetoids')\n"
             "hits = sum(sum(d.stats.cache_hits.values()) for d, _sig in compile_plan.planned('planetoids'))\n"
             "print(done, hits)\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), compile_plan.HELPER_VARIABLE: "0"}
    first = subprocess.run([sys.executable, "-c", probe, json.dumps(plan)], env=env, capture_output=True,
                           text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["2", "0"]
    second = subprocess.run([sys.executable, "-c", probe, json.dumps(plan)], env=env, capture_output=True,
                            text=True, timeout=600)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["2", "2"]
