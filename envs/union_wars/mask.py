"""The legal-action mask (RULES.md "Actions"): the families each stage allows, then ``decide`` for
each candidate, with what the candidates share asked once (the model to place, the terrain in reach).
"""
from __future__ import annotations

import numba as nb
import numpy as np

from .actions import ACTION_TARGET, TARGET_MINE, TARGET_MOVE
from .battle import spot_reason
from .layout import *  # noqa: F401,F403  (the named columns and codes)
from .movement import consolidate_reason, move_reason, pieces_in_reach
from .reactions import reaction_kind_reason, reactor_reason
from .relations import mover
from .deployment import next_to_deploy
from .decisions import decide


@nb.njit(cache=True)
def write_mask(s, cfg, b, mask):
    mask[:] = 0
    if s.g[b, G_DONE]:
        return
    k = cfg.k
    st = s.g[b, G_STAGE]
    lo = np.zeros(4, np.int64)
    hi = np.zeros(4, np.int64)
    n = 0
    if st == ST_SELECT:
        lo[0], hi[0] = k[K_A_MODEL], k[K_A_MODEL] + N_SLOTS
        lo[1], hi[1] = k[K_A_THEIR], k[K_A_THEIR] + N_SLOTS
        lo[2], hi[2] = k[K_A_PASS], k[K_A_PASS] + 1
        n = 3
    elif st == ST_ACTION:
        lo[0], hi[0] = k[K_A_ACT], k[K_A_ACT] + N_AK
        n = 1
    elif st == ST_TARGET:
        kind = ACTION_TARGET[s.g[b, G_ACT]]
        if kind == TARGET_MOVE:
            lo[0], hi[0] = k[K_A_MOVE], k[K_A_MOVE] + N_MOVES
        elif kind == TARGET_MINE:
            lo[0], hi[0] = k[K_A_MINE], k[K_A_MINE] + N_SLOTS
        else:
            lo[0], hi[0] = k[K_A_THEIR], k[K_A_THEIR] + N_SLOTS
        n = 1
        if s.g[b, G_ACT] == AK_FIRE0 or s.g[b, G_ACT] == AK_FIRE1:
            lo[1], hi[1] = k[K_A_MOVE], k[K_A_MOVE] + N_MOVES   # DA LANCIO: a point
            n = 2
    elif st == ST_REACT:
        lo[0], hi[0] = k[K_A_MODEL], k[K_A_MODEL] + N_SLOTS
        lo[1], hi[1] = k[K_A_PASS], k[K_A_PASS] + 1
        n = 2
    elif st == ST_REACT_KIND:
        lo[0], hi[0] = k[K_A_REACT], k[K_A_REACT] + N_RK
        n = 1
    elif st == ST_MELEE_TARGET:
        lo[0], hi[0] = k[K_A_THEIR], k[K_A_THEIR] + N_SLOTS
        n = 1
    elif st == ST_FACING:
        lo[0], hi[0] = k[K_A_MOVE], k[K_A_MOVE] + N_MOVES
        n = 1
    elif st == ST_COUNTERMOVE:
        lo[0], hi[0] = k[K_A_MOVE], k[K_A_MOVE] + N_MOVES
        n = 1
    elif st == ST_CONSOLIDATE:
        lo[0], hi[0] = k[K_A_MOVE], k[K_A_MOVE] + N_MOVES
        lo[1], hi[1] = k[K_A_PASS], k[K_A_PASS] + 1
        n = 2
    elif st == ST_DEPLOY:
        lo[0], hi[0] = k[K_A_SPOT], k[K_A_SPOT] + N_SPOTS
        lo[1], hi[1] = k[K_A_PASS], k[K_A_PASS] + 1
        n = 2
    elif st == ST_OBJECTIVE:
        lo[0], hi[0] = k[K_A_SPOT], k[K_A_SPOT] + N_SPOTS
        n = 1
    elif st == ST_BASE:
        lo[0], hi[0] = k[K_A_PIECE], k[K_A_PIECE] + T_MAX
        n = 1
    elif st == ST_BANK:
        lo[0], hi[0] = k[K_A_CHOICE], k[K_A_CHOICE] + N_CHOICES
        lo[1], hi[1] = k[K_A_PASS], k[K_A_PASS] + 1
        n = 2
    else:
        lo[0], hi[0] = k[K_A_CHOICE], k[K_A_CHOICE] + N_CHOICES
        n = 1
    if st == ST_DEPLOY:
        # the same test as decide -> _spot, with the model to place found once
        me = s.g[b, G_DECIDER]
        i = next_to_deploy(s, b, me)
        for sp in range(N_SPOTS):
            if spot_reason(s, cfg, b, me, i, cfg.spots[sp, 0], cfg.spots[sp, 1]) == OK:
                mask[k[K_A_SPOT] + sp] = 1
        if decide(s, cfg, b, k[K_A_PASS], False) == OK:
            mask[k[K_A_PASS]] = 1
        return
    if st == ST_COUNTERMOVE or st == ST_CONSOLIDATE or (st == ST_TARGET and ACTION_TARGET[s.g[b, G_ACT]] == TARGET_MOVE):
        # the same tests as decide -> _move, with the terrain pieces out of every path's reach left out
        side, i, allowance, flying = mover(s, cfg, b, s.g[b, G_DECIDER])
        half = st == ST_COUNTERMOVE
        near = pieces_in_reach(s, cfg, b, side, i, allowance)
        for c in range(N_MOVES):
            if st == ST_CONSOLIDATE:
                code = consolidate_reason(s, cfg, b, side, i, c, allowance, near)
            else:
                code = move_reason(s, cfg, b, side, i, c, flying, half, near)
            if code == OK:
                mask[k[K_A_MOVE] + c] = 1
        if st == ST_CONSOLIDATE and decide(s, cfg, b, k[K_A_PASS], False) == OK:
            mask[k[K_A_PASS]] = 1
        return
    if st == ST_REACT_KIND:
        # the same test as decide -> _react_kind, with the reactor's part (its sight lines) done once
        me, j = s.g[b, G_DECIDER], s.g[b, G_RSLOT]
        if reactor_reason(s, cfg, b, me, j) == OK:
            for rk in range(N_RK):
                if reaction_kind_reason(s, cfg, b, me, j, rk) == OK:
                    mask[k[K_A_REACT] + rk] = 1
        return
    for r in range(n):
        for a in range(lo[r], hi[r]):
            if decide(s, cfg, b, a, False) == OK:
                mask[a] = 1
