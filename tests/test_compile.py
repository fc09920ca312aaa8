"""``wargym compile`` and the compile log (issue 30: a first run that shows what it compiles)."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numba as nb

from conftest import games_touched
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
