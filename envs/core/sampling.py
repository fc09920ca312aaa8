"""Uniform random legal actions for a whole batch, in compiled code.

Used by benchmarks and random baselines so that choosing actions does not
dominate what is being measured.  ``state`` is a uint64 array, one stream per
game (seed it with ``rng.seed_stream``).
"""
import numba as nb
import numpy as np

from .kernel import kernel
from .rng import draw_int
from .threads import PARALLEL_FROM


@kernel(cache=True)
def random_action(s, b, mask):
    """Every game's built-in ``random`` policy: a uniform legal action of game ``b`` (its mask
    row ``mask``), drawn from the game's policy stream ``s.policy_rng`` (never from its dice,
    so an opponent's choices do not change the game's rolls); -1 if nothing is legal."""
    n = 0
    for a in range(mask.shape[0]):
        n += mask[a]
    k = draw_int(s.policy_rng, b, max(n, 1))
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@kernel(cache=True)
def first_legal(mask, lo, hi):
    """The lowest legal action in ``lo`` .. ``hi - 1`` of a mask row, or -1: the scripted bots'
    fallback and their "take the first of this family" choices, in every game."""
    for a in range(lo, hi):
        if mask[a]:
            return a
    return -1


@kernel(cache=True)
def last_legal(mask, lo, hi):
    """The highest legal action in ``lo`` .. ``hi - 1`` of a mask row, or -1."""
    for a in range(hi - 1, lo - 1, -1):
        if mask[a]:
            return a
    return -1


# Legal actions are counted a block at a time (a sum LLVM vectorises) to find the
# block of the chosen one, then that block alone is scanned: a scan of the whole
# row branched on every entry and cost about a third of a Planetoids step.
BLOCK = 32


@kernel(cache=True)
def sample_one(mask, state, out, b):
    """Uniform legal action of game ``b`` from its own stream (0 if none is legal)."""
    A = mask.shape[1]
    n = 0
    for a in range(A):
        n += mask[b, a]
    k = draw_int(state, b, max(n, 1))
    out[b] = 0
    lo = 0
    while lo + BLOCK <= A:
        in_block = 0
        for a in range(lo, lo + BLOCK):
            in_block += mask[b, a]
        if k < in_block:
            break
        k -= in_block
        lo += BLOCK
    for a in range(lo, A):
        if mask[b, a]:
            if k == 0:
                out[b] = a
                return
            k -= 1


@kernel(cache=True, parallel=True)
def sample_legal(mask, state, out):
    if mask.shape[0] < PARALLEL_FROM:
        # a few games: waking the thread pool would cost more than they take
        for b in range(mask.shape[0]):
            sample_one(mask, state, out, b)
        return
    for b in nb.prange(mask.shape[0]):
        sample_one(mask, state, out, np.int64(b))  # prange's index is unsigned: one signature (compile once)


def new_streams(n: int, seed: int = 0) -> np.ndarray:
    return np.random.SeedSequence(seed).generate_state(n, np.uint64)
