"""The observation (documented field by field in RULES.md "Osservazione").
"""
from __future__ import annotations

import math

import numpy as np

from ..core.kernel import kernel
from .actions import is_controlled, target_side
from .battle import edge_is_low, mission_score
from .layout import *  # noqa: F401,F403  (the named columns and codes)
from .psychology import losses
from .relations import write_action_table


@kernel(cache=True, inline="always")
def _i8(v):
    return np.int8(max(-128, min(127, v)))


@kernel(cache=True)
def declared_target_side(s, b):
    """The side of the model G_TGT names while an action or a melee blow is under way (-1: no
    model is targeted now).  union_wars_v1 flagged that slot on both sides, and after the
    action had ended."""
    st = s.g[b, G_STAGE]
    if s.g[b, G_TGT] < 0:
        return -1
    if st == ST_MELEE_WEAPON:
        return 1 - s.g[b, G_ACTOR_SIDE]
    if st == ST_REACT or st == ST_REACT_KIND or st == ST_COUNTERMOVE or st == ST_BANK:
        return target_side(s, b, s.g[b, G_ACTOR_SIDE], s.g[b, G_ACT])
    return -1


@kernel(cache=True)
def write_obs(s, cfg, b, me, obs):
    obs[:] = 0
    relations = cfg.k[K_RELATIONS]
    target_of_declared = declared_target_side(s, b)
    for rel in range(2):
        side = me if rel == 0 else 1 - me
        for i in range(N_SLOTS):
            o = (rel * N_SLOTS + i) * N_MF
            st = s.md[b, side, i, MD_STATUS]
            f = s.md[b, side, i, MD_FLAGS]
            if st == ABSENT:
                continue
            if rel == 1 and (f & F_HIDDEN):
                continue   # hidden models stay hidden
            p = s.md[b, side, i, MD_PROFILE]
            obs[o + 0] = 1 if (st == ACTIVE or st == OOC) else (3 if st == REMOVED and relations else 2)
            obs[o + 1] = _i8(int(s.pos[b, side, i, 0] + 0.5))
            obs[o + 2] = _i8(int(s.pos[b, side, i, 1] + 0.5))
            obs[o + 3] = _i8(int(round(s.pos[b, side, i, 2] / (2 * math.pi) * N_DIRS)) % N_DIRS)
            obs[o + 4] = _i8(p)
            obs[o + 5] = _i8(st)
            obs[o + 6] = _i8(s.md[b, side, i, MD_WOUNDS])
            obs[o + 7] = _i8(cfg.pf[p, PF_FS])
            obs[o + 8] = _i8(s.md[b, side, i, MD_MORALE])
            obs[o + 9] = _i8(s.md[b, side, i, MD_FATIGUE])
            obs[o + 10] = _i8(s.md[b, side, i, MD_CAR])
            obs[o + 11] = 1 if f & F_HIDDEN else 0
            obs[o + 12] = 1 if f & F_ALERT else 0
            obs[o + 13] = 1 if f & F_PRONE else 0
            obs[o + 14] = 1 if f & F_SUPPRESSED else 0
            obs[o + 15] = 1 if f & F_ENGAGED else 0
            obs[o + 16] = 1 if s.g[b, G_CMD0 + side] == i else 0
            obs[o + 17] = 1 if (s.g[b, G_ACTOR] == i and s.g[b, G_ACTOR_SIDE] == side and s.g[b, G_STAGE] >= ST_ACTION) else 0
            if relations:
                obs[o + 18] = 1 if (s.g[b, G_TGT] == i and side == target_of_declared) else 0
            else:
                obs[o + 18] = 1 if (s.g[b, G_TGT] == i and s.g[b, G_STAGE] >= ST_REACT) else 0
            obs[o + 19] = _i8(cfg.pf[p, PF_M])
            obs[o + 20] = _i8(cfg.pf[p, PF_ADT])
            obs[o + 21] = _i8(cfg.pf[p, PF_ADM])
            obs[o + 22] = _i8(cfg.pf[p, PF_ARM])
            obs[o + 23] = _i8(cfg.pf[p, PF_SN])
            obs[o + 24] = _i8(s.md[b, side, i, MD_JAMMED])
            obs[o + 25] = _i8(cfg.pf[p, PF_RADIUS_MM])
            obs[o + 26] = 1 if is_controlled(s, b, side, i) else 0
            obs[o + 27] = _i8(s.md[b, side, i, MD_REACTED] + 2 * ((f & F_AIMED) != 0) + 4 * ((f & F_CONCENTRATED) != 0))
    base = 2 * N_SLOTS * N_MF
    for t in range(T_MAX):
        o = base + t * N_TF
        kind = s.tinfo[b, t, TI_KIND]
        if kind == T_NONE:
            continue
        obs[o] = _i8(kind)
        obs[o + 1] = _i8(s.tinfo[b, t, TI_HEIGHT])
        n = s.tinfo[b, t, TI_NVERT]
        cx = 0.0
        cy = 0.0
        for v in range(n):
            cx += s.terr[b, t, v, 0] / n
            cy += s.terr[b, t, v, 1] / n
        obs[o + 2] = _i8(int(cx + 0.5))
        obs[o + 3] = _i8(int(cy + 0.5))
        for v in range(4):
            obs[o + 4 + 2 * v] = _i8(int(s.terr[b, t, v, 0] + 0.5))
            obs[o + 5 + 2 * v] = _i8(int(s.terr[b, t, v, 1] + 0.5))
        e = s.tinfo[b, t, TI_EXPLORED]
        obs[o + 12] = 0 if e == 0 else (1 if e == me + 1 else 2)
        if s.g[b, G_BASE0 + me] == t:
            obs[o + 12] += 4
        if s.g[b, G_BASE0 + 1 - me] == t:
            obs[o + 12] += 8
    o = base + T_MAX * N_TF
    g = s.g
    v = np.zeros(N_GF, np.int64)
    v[0] = g[b, G_TURN]
    v[1] = g[b, G_MAX_TURNS]
    v[2] = g[b, G_ACTIVE] == me
    v[3] = g[b, G_STAGE]
    v[4] = g[b, G_DECIDER] == me
    v[5] = g[b, G_MISSION]
    v[6] = g[b, G_ACT]
    v[7] = g[b, G_ACTOR]
    v[8] = g[b, G_ACTOR_SIDE] == me
    v[9] = g[b, G_TGT]
    v[10] = g[b, G_CONSOL] if g[b, G_STAGE] == ST_CONSOLIDATE else (
        g[b, G_FACE_MOVE] if g[b, G_STAGE] == ST_FACING else g[b, G_MOVE])
    v[11] = g[b, G_BANK0 + me]
    v[12] = g[b, G_BANK0 + 1 - me]
    if g[b, G_STAGE] == ST_BANK:
        # the banks as they stand at the pending roll: less what this step spent before it
        v[11] -= s.bk[b, BK_SPENT0 + me]
        v[12] -= s.bk[b, BK_SPENT0 + 1 - me]
    v[13] = g[b, G_BONUS0 + me]
    v[14] = g[b, G_BONUS0 + 1 - me]
    v[15] = g[b, G_AMMO0 + me]
    v[16] = g[b, G_AMMO0 + 1 - me]
    v[17] = g[b, G_NIGHT]
    v[18] = edge_is_low(s, b, me)
    v[19] = g[b, G_CONTROLLED]
    v[20] = g[b, G_SEGN0 + me]
    v[21] = g[b, G_COORD0 + me]
    v[22] = g[b, G_NREACT]
    v[23] = g[b, G_RSLOT]
    v[24] = mission_score(s, cfg, b, me)
    v[25] = mission_score(s, cfg, b, 1 - me)
    if g[b, G_DONE]:
        v[26] = 1 if g[b, G_WINNER] == me else (-1 if g[b, G_WINNER] == 1 - me else 0)
    v[27] = g[b, G_DONE]
    v[28] = g[b, G_FIRST] == me
    v[29] = g[b, G_CMD0 + me]
    v[30] = g[b, G_CMD0 + 1 - me]
    v[31] = g[b, G_NOBJ]
    v[32] = losses(s, b, me)
    v[33] = losses(s, b, 1 - me)
    v[34] = me
    v[35] = g[b, G_DEPLOYER] == me
    v[36] = g[b, G_RESERVE_PLACING]
    v[37] = g[b, G_SEGN0 + 1 - me]
    v[38] = g[b, G_COORD0 + 1 - me]
    v[39] = g[b, G_CHARGE_OK]
    for q in range(N_GF):
        obs[o + q] = _i8(v[q])
    o += N_GF
    for q in range(MAX_OBJ):
        if s.objs[b, q, 2] > 0:
            obs[o + 3 * q] = _i8(int(s.objs[b, q, 0] + 0.5))
            obs[o + 3 * q + 1] = _i8(int(s.objs[b, q, 1] + 0.5))
            obs[o + 3 * q + 2] = 1
    o += 3 * MAX_OBJ
    for q in range(MAX_SMOKE):
        if s.smoke[b, q, 2] > 0:
            obs[o + 3 * q] = _i8(int(s.smoke[b, q, 0] + 0.5))
            obs[o + 3 * q + 1] = _i8(int(s.smoke[b, q, 1] + 0.5))
            obs[o + 3 * q + 2] = 1
    if relations:
        # union_wars_v2: the action table after the rest (relations.py; RULES.md "Observation")
        write_action_table(s, cfg, b, me, obs, N_OBS + (N_BANK_OBS if cfg.k[K_BANK] == BANK_ASK else 0))
    if cfg.k[K_BANK] == BANK_ASK and s.g[b, G_STAGE] == ST_BANK:
        # exploration_bank="ask": the pending roll (RULES.md "Observation")
        o = N_OBS
        obs[o] = 1
        obs[o + 1] = 0 if s.bk[b, BK_ROLLER] == ROLLER_NONE else (1 if s.bk[b, BK_ROLLER] == me else -1)
        obs[o + 2] = _i8(s.bk[b, BK_KIND])
        obs[o + 3] = _i8(s.bk[b, BK_SLOT])
        obs[o + 4] = _i8(s.bk[b, BK_NEED])
        obs[o + 5] = _i8(s.bk[b, BK_MARGIN])
