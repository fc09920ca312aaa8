"""Uniform random legal actions for a whole batch, in compiled code.

Used by benchmarks and random baselines so that choosing actions does not
dominate what is being measured.  ``state`` is a uint64 array, one stream per
game (seed it with ``rng.seed_stream``).
"""
import numba as nb
import numpy as np

from .rng import draw_int


@nb.njit(cache=True)
def sample_one(mask, state, out, b):
    """Uniform legal action of game ``b`` from its own stream."""
    n = 0
    for a in range(mask.shape[1]):
        n += mask[b, a]
    k = draw_int(state, b, max(n, 1))
    out[b] = 0
    for a in range(mask.shape[1]):
        if mask[b, a]:
            if k == 0:
                out[b] = a
                break
            k -= 1


@nb.njit(cache=True, parallel=True)
def sample_legal(mask, state, out):
    if mask.shape[0] < 16:
        # a few games: waking the thread pool would cost more than they take
        for b in range(mask.shape[0]):
            sample_one(mask, state, out, b)
        return
    for b in nb.prange(mask.shape[0]):
        sample_one(mask, state, out, b)


def new_streams(n: int, seed: int = 0) -> np.ndarray:
    return np.random.SeedSequence(seed).generate_state(n, np.uint64)
