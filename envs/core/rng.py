"""Per-game random streams that live inside the batched state.

Each game owns one 64-bit ``rng`` word, advanced with SplitMix64.  A game's
draws therefore depend only on its own seed and its own history, never on the
batch size or on how Numba's threads split the batch.

Tests (and rulebook examples) can *script* dice: a game holds a small queue of
forced die results (``dice_script``, with ``dice[b] = (length, position)``); while the queue
is not exhausted every ``roll_die`` returns the next scripted value instead of
a random one.
"""
from __future__ import annotations

import numpy as np

from .kernel import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)

DICE_SCRIPT_LEN = 64  # forced die results a game can hold at once


@kernel(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@kernel(cache=True)
def seed_stream(seed):
    """Turn a user seed into the first state word of a stream."""
    return _mix(np.uint64(seed) + _GOLDEN)


@kernel(cache=True)
def next_u64(rng, b):
    """Advance game ``b``'s stream (``rng`` is the batch's uint64 array)."""
    rng[b] = rng[b] + _GOLDEN
    return _mix(rng[b])


@kernel(cache=True)
def draw_int(rng, b, n):
    """Uniform integer in ``[0, n)`` from game ``b``'s stream."""
    return np.int64(next_u64(rng, b) % np.uint64(n))


@kernel(cache=True)
def roll_die(rng, dice_script, dice, b, sides):
    """One die roll in ``1..sides``: the next scripted result if any, else random."""
    if dice[b, 1] < dice[b, 0]:
        v = dice_script[b, dice[b, 1]]
        dice[b, 1] += 1
        return np.int64(v)
    return draw_int(rng, b, sides) + 1
