"""What every test file shares: the games' kernels compiled before the first test.

Most of a cold run's time is Numba compiling the games' kernels, and Numba compiles in one
thread.  So before the first test the kernels of the games this run touches are compiled into
Numba's on-disk cache by ``wargym compile``'s machinery, one game per process on every core
(``envs/core/warmup.py``); pytest-xdist's workers (``-n auto`` in pyproject's addopts) then load
them from the cache and share the tests out file by file.  With a warm cache the step only
loads, in a few seconds a game.  ``WARGYM_TEST_PRECOMPILE=0`` skips it (each test then compiles
what it meets, as it did before).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# One torch (OpenMP) thread per process: pytest-xdist runs a worker per core, and two workers whose
# torch each spins two OpenMP threads on 2 cores collapse (training/runtime.py): a shipped agent's
# two arena games took 26 s in the suite and 1-3 s alone.  Set before any test module imports
# torch, and inherited by the training CLI's subprocesses (training/runtime.torch_threads reads it).
os.environ.setdefault("OMP_NUM_THREADS", "1")

from wargym.registration import GAME_KEYS  # noqa: E402

# tests/helpers/ holds what several test files share (tests/helpers/__init__.py); pytest puts this
# folder on sys.path (it is no package), so a test file imports them as ``from helpers.talon import
# act``.  Their asserts are rewritten as the tests' own are, so that a failing one explains itself.
pytest.register_assert_rewrite("helpers")


def games_touched(args: list[str]) -> list[str]:
    """The games a run of these pytest arguments touches: those a test file is named after
    (``test_talon_bot.py`` -> talon), and every game for a folder or any other file."""
    games: set[str] = set()
    for arg in args:
        name = Path(arg.split("::")[0]).name
        named = [key for key in GAME_KEYS if name.startswith(f"test_{key}")]
        if not named:
            return list(GAME_KEYS)
        games.update(named)
    return [key for key in GAME_KEYS if key in games]


# The slow groups (issue 30): training runs, the shipped agents' games, RLlib, the browser.  Marked
# ``slow`` (``pytest -m "not slow"`` is the fast suite: the rules, the envs, the core, the server) and
# run after every other test file, so that a broken rule shows within the first minutes of a run;
# among themselves the longest first, so that the two workers end together.
SLOW_GROUPS = ("test_rllib.py", "test_training.py", "test_baselines.py", "test_arena.py", "test_serve_browser.py")


def pytest_collection_modifyitems(config, items):
    slow = pytest.mark.slow
    rank = {name: k for k, name in enumerate(SLOW_GROUPS)}
    for item in items:
        if item.path.name in rank:
            item.add_marker(slow)
    # sorted is stable: the fast files keep their order, then the slow groups in SLOW_GROUPS' order
    items[:] = sorted(items, key=lambda item: rank.get(item.path.name, -1))


def pytest_sessionstart(session):
    if os.environ.get("PYTEST_XDIST_WORKER") or os.environ.get("WARGYM_TEST_PRECOMPILE") == "0":
        return
    from wargym.envs.core.warmup import compile_games
    games = games_touched(session.config.args or ["tests"])
    compile_games(games, out=sys.__stderr__, verbose=False)
