"""Forged saves: a valid state with one value changed, for every field of every game (issue 28).

Each forgery must be refused by ``set_state`` (the check every save goes through) with a
``ValueError``, leaving the game unchanged, or be a game that plays on: every position of it
has a legal move until it ends.  ``tests/test_forged_saves.py`` runs a bounded round of it on
every game; run it by hand against a bounds-checked build, which turns every out-of-bounds
access of a kernel into an ``IndexError`` (it recompiles every kernel into a cache of its own,
minutes per game)::

    NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=/tmp/wargym-boundscheck python -m wargym.benchmarks.forged_saves

It prints, per game, the forgeries tried, refused and played, and every failure.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

import numpy as np

from ..registration import GAMES, env_module

# the positions a round starts from: after reset and after some random decisions
START_STEPS = (0, 30, 150)


@dataclass
class Tally:
    game: str
    tried: int = 0
    refused: int = 0
    played: int = 0
    failures: list = field(default_factory=list)

    def line(self) -> str:
        return (f"{self.game}: {self.tried} forged saves, {self.refused} refused, {self.played} played on, "
                f"{len(self.failures)} failures")


def boundary_values(dtype: np.dtype, original, rng: np.random.Generator, n_random: int) -> list:
    """The values a field is forged with: its type's extremes, around 0 and the value it had, and
    a few random ones."""
    if np.issubdtype(dtype, np.floating):
        base = [np.nan, np.inf, -np.inf, -1.0, 0.0, 1e30, -1e30, float(original) + 1.0]
        return base + list(rng.uniform(-1000, 1000, n_random))
    info = np.iinfo(dtype)
    base = {info.min, info.max, -1, 0, 1, 2, int(original) - 1, int(original) + 1, 64, 127}
    values = [v for v in sorted(base) if info.min <= v <= info.max]
    return values + [int(v) for v in rng.integers(info.min, info.max, n_random, endpoint=True, dtype=dtype)]


def positions(shape: tuple, rng: np.random.Generator, limit: int = 64) -> list[tuple]:
    """Where a field is forged: every element of a small field; else one random element per column
    of its last axis (columns are its named parts), at most ``limit``."""
    if int(np.prod(shape, dtype=np.int64)) <= limit:
        return [tuple(int(i) for i in ix) for ix in np.ndindex(*shape)] if shape else [()]
    out = []
    for col in range(min(shape[-1], limit)):
        out.append(tuple(int(rng.integers(0, n)) for n in shape[:-1]) + (col,))
    return out


def play_on(env, rng: np.random.Generator, steps: int) -> str | None:
    """Random legal play from the position; None if it went well, else what went wrong."""
    for _ in range(steps):
        core = env.core
        if core.terminated[0] or core.truncated[0]:
            return None
        legal = env.legal_actions()
        if len(legal) == 0:
            return "no legal move in a game that is not over"
        env.step(int(rng.choice(legal)))
    return None


def forge_game(module_name: str, options: dict | None = None, seed: int = 0, n_random: int = 2,
               play_steps: int = 12, starts=START_STEPS, limit: int = 64) -> Tally:
    """Every field of the game's state forged at the starting positions (see the module's doc)."""
    module = env_module(module_name)
    env = module.raw_env(options=options or {})
    rng = np.random.default_rng(seed)
    tally = Tally(module_name)
    for start in starts:
        env.reset(seed=seed + start)
        if play_on(env, rng, start) is not None:
            raise RuntimeError(f"{module_name}: unforged play failed")
        base = env.core.clone_state()
        for name, shape, dtype in env.core.spec.fields:
            for index in positions(shape, rng, limit):
                original = base.arrays[name][(0, *index)]
                for value in boundary_values(np.dtype(dtype), original, rng, n_random):
                    _try(env, base, name, index, value, rng, play_steps, tally)
    return tally


def _try(env, base, name: str, index: tuple, value, rng, play_steps: int, tally: Tally) -> None:
    forged = base.clone()
    forged.arrays[name][(0, *index)] = value
    where = f"{name}{list(index)} = {value!r}"
    env.core.set_state(base)
    before = env.core.clone_state()
    tally.tried += 1
    try:
        env.core.set_state(forged)
    except ValueError:
        tally.refused += 1
        after = env.core.clone_state()
        if any(not np.array_equal(after.arrays[k], before.arrays[k], equal_nan=True) for k in after.arrays):
            tally.failures.append(f"{where}: refused, but the game changed")
        return
    except Exception as exc:  # noqa: BLE001 (anything but a clear refusal is a failure)
        tally.failures.append(f"{where}: set_state raised {type(exc).__name__}: {exc}")
        return
    env._sync_after_reset()
    try:
        why = play_on(env, rng, play_steps)
    except Exception as exc:  # noqa: BLE001
        why = f"{type(exc).__name__}: {exc}"
    if why is None:
        tally.played += 1
    else:
        tally.failures.append(f"{where}: accepted, then {why}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("games", nargs="*", default=list(GAMES))
    p.add_argument("--random", type=int, default=4, help="random values per position, beside the boundaries")
    p.add_argument("--seeds", type=int, default=2)
    p.add_argument("--steps", type=int, default=30, help="decisions played after an accepted forgery")
    args = p.parse_args(argv)
    failed = 0
    for game in args.games:
        total = Tally(game)
        for seed in range(args.seeds):
            t = forge_game(game, seed=seed, n_random=args.random, play_steps=args.steps)
            total.tried += t.tried
            total.refused += t.refused
            total.played += t.played
            total.failures += t.failures
        print(total.line(), flush=True)
        for f in total.failures[:50]:
            print("   ", f, flush=True)
        failed += len(total.failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
