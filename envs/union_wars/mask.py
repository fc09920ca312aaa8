"""The legal-action mask (RULES.md "Actions"): the families the stage allows (``stage_ranges``, as
``decide`` asks them), then ``decide`` for each candidate, with what the candidates share asked once
(the model to place, the terrain in reach).
"""
from __future__ import annotations

from ..core.kernel import kernel
from .actions import ACTION_TARGET, TARGET_MOVE
from .battle import spot_reason
from .layout import *  # noqa: F401,F403  (the named columns and codes)
from .movement import consolidate_reason, move_reason, pieces_in_reach
from .reactions import reaction_kind_reason, reactor_reason
from .relations import mover
from .deployment import next_to_deploy
from .decisions import decide, stage_ranges


@kernel(cache=True)
def write_mask(s, cfg, b, mask):
    mask[:] = 0
    if s.g[b, G_DONE]:
        return
    k = cfg.k
    st = s.g[b, G_STAGE]
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
    lo0, hi0, lo1, hi1, lo2, hi2 = stage_ranges(s, cfg, b)
    for lo, hi in ((lo0, hi0), (lo1, hi1), (lo2, hi2)):
        for a in range(lo, hi):
            if decide(s, cfg, b, a, False) == OK:
                mask[a] = 1
