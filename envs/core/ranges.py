"""The batched entry points every game's core is stepped through, written once.

``VecGame`` (vec.py) resets and steps a batch by cutting it into one range of games per thread
(``threads.run_in_ranges``); each range is one call of a compiled kernel:

* ``reset_range(s, cfg, seeds, idx, out, lo, hi)``: new games ``idx[lo:hi]`` from ``seeds[lo:hi]``;
* ``step_range(s, cfg, actions, active, out, auto_reset, lo, hi)``: one decision in each game
  ``b`` of ``lo .. hi-1`` where ``active[b]``, ``out.illegal[b]`` cleared first (``VecGame.step_one``
  steps one game as a range of one).

A game gives what one game does: ``reset_one(s, cfg, b, seed, out)`` (the new game, its observation,
mask and player written to ``out``) and ``step_game(s, cfg, b, a, out, auto_reset)`` (the action,
refused with its reason code in ``out.illegal[b]`` and nothing changed, or applied with its rewards,
flags, observation, mask and player; the loops of loops.py inline the same function).  Both take the
structs and are ``inline="always"``, so that each range kernel is one compiled module holding the
game's step (each compiled entry point compiles the whole step once more).  ``specialise_ranges``
copies the templates below with the game's two functions as their globals, under a name carrying
the digest of the game's kernel modules (as loops.py does for the loops, and for the same reason:
Numba's on-disk cache misses on closures).
"""
from __future__ import annotations

from .loops import copy_template, source_digest
from .structs import borrow


# -- templates: GAME_STEP and GAME_RESET are the game's -----------------------------------------
def _step_range(s, cfg, actions, active, out, auto_reset, lo, hi):
    """Games ``lo`` .. ``hi - 1`` of a batch step, in the calling thread."""
    illegal = borrow(out.illegal)
    for b in range(lo, hi):
        illegal[b] = 0
        if active[b]:
            GAME_STEP(s, cfg, b, actions[b], out, auto_reset)  # noqa: F821 (the game's, see specialise_ranges)


def _reset_range(s, cfg, seeds, idx, out, lo, hi):
    """New games ``idx[lo:hi]`` from ``seeds[lo:hi]``, in the calling thread."""
    for j in range(lo, hi):
        GAME_RESET(s, cfg, idx[j], seeds[j], out)  # noqa: F821


def specialise_ranges(game: str, step_game, reset_one, sources) -> tuple:
    """``(step_range, reset_range)`` of one game, compiled from its ``step_game`` and ``reset_one``;
    ``sources``: modules of the game's package (its digest, and core's, names them)."""
    tag = f"{game}_{source_digest(sources)}"
    names = {"GAME_STEP": step_game, "GAME_RESET": reset_one}
    return (copy_template(_step_range, tag, names, nogil=True),
            copy_template(_reset_range, tag, names, nogil=True))
