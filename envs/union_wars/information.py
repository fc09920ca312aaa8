"""What a UnionWars player cannot see, sampled anew: the search bot's determinisation.

Both players see the whole table, so the only thing a UnionWars state holds that the player to move
cannot see is **dice not yet rolled**.  Those normally live in the game's stream, which a search
replaces by its own for every simulation.  One place keeps them fixed: an ESPLORAZIONE question
(stage *exploration bank*, bank.py).  The step was resolved past the asked roll, then put back to
its start (the snapshot, dice stream included), so that after the answer the step replays **with
the same dice**: the roll the owner was asked about, and every die after it in the step and, from
there, in the rest of the game.  A search that gave each simulation its own stream would see it
overwritten by the snapshot's at the answer, and every simulation would play the real game's
future dice: all alike, so a move would look certain to win or lose on one sample of the future.

``determinise`` marks, in each game at a question, that the dice after the asked roll (event
``BK_NDEC``, the first unanswered one) are a sample: the replay draws them from a stream of the
seed's (``bank.reseed_after``), at every replay of the step alike, so that the step's later
questions replay as asked.  The rolls up to the asked one stay as rolled: the owner was shown that
one, and the others were rolled before it.  Elsewhere it changes nothing (the search's own stream is
the sample).  Two games that differ only in the dice after a question get the same samples.

Plain numpy over a batch of state arrays, run once per simulation; no kernel reads this module.
"""
from __future__ import annotations

import numpy as np

from . import layout as L


def determinise(cfg, state, rows, players, seeds) -> None:
    """In games ``rows`` of ``state`` at an exploration-bank question, draw the dice after the asked
    roll from ``seeds[i]`` (see the module's text); ``players`` is the contract's and unused here:
    no die is seen by one player and not the other."""
    rows = np.asarray(rows, dtype=np.int64)
    at_question = (state.g[rows, L.G_STAGE] == L.ST_BANK) & (state.g[rows, L.G_DONE] == 0)
    asked, words = rows[at_question], np.asarray(seeds, dtype=np.uint64)[at_question]
    if not len(asked):
        return
    bk = state.bk
    bk[asked, L.BK_RESEED_AT] = bk[asked, L.BK_NDEC] + 1
    bk[asked, L.BK_RESEED_LO] = (words & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32)
    bk[asked, L.BK_RESEED_HI] = (words >> np.uint64(32)).astype(np.uint32).view(np.int32)
