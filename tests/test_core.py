"""Shared machinery of the batched core: hex geometry, action sampling and the worker threads."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from wargym.envs.core.hexgrid import HexGrid
from wargym.registration import GAME_KEYS, load_game
from wargym.envs.core.sampling import new_streams, sample_legal
import pytest

from wargym.envs.core.threads import PARALLEL_FROM, SERIAL_BELOW, run_in_ranges


# -- hex geometry ------------------------------------------------------------
def test_line_orders_put_every_cell_after_its_neighbour_in_that_direction():
    valid = np.ones(7 * 6, dtype=bool)
    valid[[11, 23, 35]] = False  # short odd rows, as on the Planetoids map
    grid = HexGrid(7, 6, valid)
    order = grid.line_orders()
    for d in range(6):
        assert sorted(order[d]) == list(range(grid.n_cells))
        where = np.empty(grid.n_cells, dtype=int)
        where[order[d]] = np.arange(grid.n_cells)
        for c in range(grid.n_cells):
            nxt = grid.neighbors[c, d]
            assert nxt < 0 or where[nxt] < where[c]


# -- sample_legal ------------------------------------------------------------
def test_sample_legal_picks_only_legal_actions_and_zero_when_none_is():
    rng = np.random.default_rng(0)
    for n_actions in (1, 31, 32, 33, 167, 275):
        mask = (rng.random((200, n_actions)) < 0.1).astype(np.int8)
        mask[0] = 0
        out = np.full(200, -1, dtype=np.int64)
        sample_legal(mask, new_streams(200, 1), out)
        assert out[0] == 0
        legal_rows = mask[1:].any(axis=1)
        assert mask[1:][legal_rows, out[1:][legal_rows]].all()


def test_sample_legal_is_uniform_over_the_legal_actions():
    # one legal action in each 32-entry block and a few inside one block
    legal = [0, 5, 31, 32, 63, 64, 100, 101, 102, 270]
    mask = np.zeros((1, 275), dtype=np.int8)
    mask[0, legal] = 1
    streams, out = new_streams(1, 7), np.zeros(1, dtype=np.int64)
    counts = dict.fromkeys(legal, 0)
    for _ in range(20000):
        sample_legal(mask, streams, out)
        counts[int(out[0])] += 1
    # 2000 expected per action; +-200 is more than 4 standard deviations (fixed seed)
    assert all(1800 < c < 2200 for c in counts.values()), counts


def test_sample_legal_does_not_depend_on_the_batch_size():
    rng = np.random.default_rng(3)
    n = PARALLEL_FROM + 44
    mask = (rng.random((n, 275)) < 0.05).astype(np.int8)
    streams = new_streams(n, 9)
    whole = np.zeros(n, dtype=np.int64)
    sample_legal(mask, streams.copy(), whole)   # the parallel loop
    one_by_one = np.zeros(1, dtype=np.int64)
    for b in range(n):
        s = streams[b:b + 1].copy()
        sample_legal(mask[b:b + 1], s, one_by_one)  # one game: the serial loop
        assert one_by_one[0] == whole[b]


# -- worker threads (envs/core/threads.py) ------------------------------------
_PROBE = ("import os; from wargym.envs.core.vec import VecGame; from wargym.envs.planetoids import game; "
          "from numba.np.ufunc import parallel; VecGame(game, 1); "
          "print(parallel._is_initialized, os.environ.get('OMP_WAIT_POLICY'))")


def _probe(env_extra: dict) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True,
                          check=True).stdout.split()


def test_thread_pool_starts_with_the_environment_left_as_the_user_had_it():
    # passive waiting is set only while the pool starts (later OpenMP runtimes, e.g.
    # PyTorch's, must not inherit it) ...
    assert _probe({}) == ["True", "None"]
    # ... and a user's own setting is kept and used
    assert _probe({"OMP_WAIT_POLICY": "ACTIVE"}) == ["True", "ACTIVE"]


@pytest.mark.parametrize("n", [0, 1, SERIAL_BELOW - 1, SERIAL_BELOW, 1000])
def test_run_in_ranges_covers_every_game_once_with_its_thread_struct(n):
    # threads.run_in_ranges: the batched kernels and the loops cut a batch into one range per thread
    import numba
    calls = []
    run_in_ranges(lambda t, lo, hi: calls.append((t, lo, hi)), n, lambda t: (t,))
    covered = sorted(g for _, lo, hi in calls for g in range(lo, hi))
    assert covered == list(range(n))
    assert sorted(t for t, _, _ in calls) == list(range(len(calls)))   # range t gets struct t
    assert len(calls) == (1 if n < SERIAL_BELOW else min(numba.get_num_threads(), n))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_run_in_ranges_splits_from_serial_below_where_each_game_is_much_work(n):
    # the search's rollouts (whole games, milliseconds each) are cut over the threads from 2 games
    import numba
    calls = []
    run_in_ranges(lambda t, lo, hi: calls.append((t, lo, hi)), n, lambda t: (t,), serial_below=2)
    assert sorted(g for _, lo, hi in calls for g in range(lo, hi)) == list(range(n))
    assert len(calls) == (1 if n < 2 else min(numba.get_num_threads(), n))


def test_run_in_ranges_raises_what_a_range_raised():
    def kernel(lo, hi):
        if lo > 0:
            raise IndexError("range beyond the first")
    with pytest.raises(IndexError):
        run_in_ranges(kernel, 1000, lambda t: ())


def test_a_struct_view_reads_and_writes_the_structs_own_arrays():
    # core.structs.view, every game's one view (issue 29): one pointer to the struct's payload,
    # passed to a function that is not inlined, reading and writing the arrays Python holds
    import numba as nb

    from wargym.envs.core.structs import Outputs, view

    @nb.njit
    def add_row(o, b):          # not inlined: receives the view
        o.rewards[b, 0] += o.mask[b, 1]
        return o.mask.shape[1]

    @nb.njit
    def kernel(out):
        o = view(out)
        width = 0
        for b in range(o.rewards.shape[0]):
            width += add_row(o, b)
        return width

    z = np.zeros
    mask = np.arange(6, dtype=np.int8).reshape(3, 2)
    rewards = z((3, 2))
    out = Outputs(z((3, 1), np.int8), mask, rewards, z(3, bool), z(3, bool), z(3, np.int8), z(3, np.int16),
                  z((3, 2, 1), np.int8), z((3, 1), np.int32))
    assert kernel(out) == 6
    assert rewards[:, 0].tolist() == [1.0, 3.0, 5.0]


def test_modules_left_out_of_the_kernel_cache_digest_hold_no_kernel():
    """package_cache.NOT_KERNEL_MODULES (validate.py, env.py, render.py, core's Python-side modules)
    are left out of the digest that stamps a package's compiled kernels: they must define no kernel,
    and no module that defines kernels may import them (a kernel reading one would keep stale code
    after an edit)."""
    import pathlib
    import re

    from wargym.envs.core.package_cache import NOT_KERNEL_MODULES
    envs = pathlib.Path(__file__).resolve().parent.parent / "envs"
    checked = 0
    for package in sorted(p for p in envs.iterdir() if (p / "__init__.py").exists()):
        kernel_modules = [m for m in package.glob("*.py") if re.search(r"@nb\.njit|@njit|structref", m.read_text())]
        for name in NOT_KERNEL_MODULES:
            module = package / name
            if not module.exists():
                continue
            checked += 1
            assert module not in kernel_modules, f"{module} defines kernels"
            stem = name[:-3]
            for other in kernel_modules:
                if other.name == "game.py":   # binds them for the env's use (validate_state, render); no kernel reads them
                    continue
                if other.name == "loops.py" and stem == "package_cache":   # names the loops by the digest; no kernel reads it
                    continue
                assert not re.search(rf"from \.{stem} import|from \. import .*\b{stem}\b",
                                     other.read_text()), f"{other} imports {name}"
    assert checked >= 12, checked


def test_the_loops_recompile_after_an_edit_of_any_kernel_module_of_the_game(tmp_path):
    """The compiled loops run the game's step, so their cache name carries the digest of every kernel
    module of the game's package (package_cache.package_digest), not of rules.py and bot.py alone:
    Battle Force's chapter modules once kept stale loops after an edit.  A module with no kernel
    (NOT_KERNEL_MODULES, e.g. render.py) changes nothing."""
    import importlib.util

    from wargym.envs.core.loops import source_digest
    package = tmp_path / "somegame"
    package.mkdir()
    for name, text in (("__init__.py", ""), ("rules.py", "X = 1\n"), ("chapter.py", "Y = 1\n"),
                       ("render.py", "Z = 1\n")):
        (package / name).write_text(text)
    spec = importlib.util.spec_from_file_location("somegame_rules", package / "rules.py")
    rules = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rules)
    before = source_digest([rules])
    (package / "render.py").write_text("Z = 2\n")
    assert source_digest([rules]) == before
    (package / "chapter.py").write_text("Y = 2\n")
    assert source_digest([rules]) != before


@pytest.mark.parametrize("key", GAME_KEYS)
def test_every_games_kernels_are_stamped_by_all_its_modules_and_core(key):
    """A game's rules span several modules, and Numba invalidates a cached function only when its own
    file changes; the game's __init__.py stamps every cache entry of its package with a digest of all
    its modules and of envs/core's (package_cache.package_stamp), so an edit anywhere recompiles."""
    import os

    from wargym.envs.core.package_cache import package_stamp
    game = load_game(key)
    kernel = game.kernels.observe_game
    assert kernel._cache._impl._locator.get_source_stamp() == package_stamp(os.path.dirname(game.__file__))


def test_a_games_kernels_recompile_after_an_edit_of_core(monkeypatch):
    """A game's kernels inline core's (the struct views, the dice, the geometry), so their cache stamp
    covers envs/core too: an edit of core/structs.py once left every game's machine code built with
    the old views (package_cache.package_stamp)."""
    import os

    from wargym.envs.core import package_cache
    from wargym.envs.talon import rules
    talon = os.path.dirname(os.path.abspath(rules.__file__))
    before = package_cache.package_stamp(talon)
    core_before = package_cache.package_stamp(package_cache.CORE_DIRECTORY)
    real = package_cache.package_digest
    monkeypatch.setattr(package_cache, "package_digest",
                        lambda d: real(d) + ("edited" if d == package_cache.CORE_DIRECTORY else ""))
    assert package_cache.package_stamp(talon) != before
    assert package_cache.package_stamp(package_cache.CORE_DIRECTORY) != core_before


def test_reason_texts_match_codes_by_name_and_refuse_gaps():
    # envs/core/contract.reason_texts: a game's REASONS from {code name: text}, checked whole
    import types
    from wargym.envs.core.contract import reason_texts
    codes = types.ModuleType("codes")
    codes.OK, codes.R_LATE, codes.R_FAR = 0, 1, 2
    assert reason_texts(codes, {"R_FAR": "too far", "OK": "legal", "R_LATE": "too late"}) == ("legal", "too late",
                                                                                              "too far")
    with pytest.raises(ValueError, match="without a text"):
        reason_texts(codes, {"OK": "legal", "R_LATE": "too late"})
    with pytest.raises(ValueError, match="not a reason code"):
        reason_texts(codes, {"OK": "legal", "R_LATE": "too late", "R_FAR": "too far", "R_SOON": "?"})
    codes.R_ALIAS = 2
    with pytest.raises(ValueError, match="both reason code 2"):
        reason_texts(codes, {"OK": "legal", "R_LATE": "too late", "R_FAR": "too far", "R_ALIAS": "again"})


@pytest.mark.parametrize("key", GAME_KEYS)
def test_every_games_reasons_are_read_by_code_name(key):
    # each game.py builds REASONS with reason_texts (its import checks every code has a text)
    from wargym.registration import load_game
    game = load_game(key)
    assert game.REASONS[0] == "legal" and len(game.REASONS) > 10
