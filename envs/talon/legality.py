"""Which actions are legal (rulebook sections 6-9 through their chapter modules).

Each rule's condition is stated once, in its chapter's module, as an inlined function
returning 0 (legal) or a reason code.  Here they are put together: ``write_mask`` asks
them for every candidate action of the current stage, ``stage_has_choice`` whether any is
legal, ``action_reason`` (step_game, why_illegal) for one action.  ``write_mask_ref`` and
``stage_has_choice_ref`` are the slow statements through ``action_reason`` the tests
compare against."""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (G_DECIDER, G_DONE, G_GROUP, G_SHIP, G_STAGE, G_WLEFT, K_A_AP, K_A_COLLIDE, K_A_DONE, K_A_EXPLODE,
                     K_A_FIRE_SHIP, K_A_GROUP, K_A_INIT, K_A_MOVE, K_A_PULL, K_A_RETREAT, K_A_SPEED, K_A_TARGET,
                     K_A_UNREINF, K_N_ACTIONS, N_MOVES, N_USES, OK, R_GAME_OVER, R_MUST_MOVE, R_NOT_PENDING,
                     R_NO_SUCH_ACTION, R_STAGE, SH_AP_SPENT, SH_REINF, ST_AP, ST_COLLIDE,
                     ST_EXPLODE, ST_FIRE_GROUP, ST_FIRE_SHIP, ST_FIRE_TARGET, ST_INIT, ST_MOVE, ST_POWER, ST_PULL,
                     ST_PUSH, ST_RETREAT, config_view, state_view)
from .ships import active
from .fire import can_fire, explode_reason, firer_reason, group_reason, target_reason, weapons_left_reason
from .movement import may_move, move_kind_reason, move_reason, must_still_move
from .power import ap_reason, ap_ship_reason, ap_source, ap_use_reason, speed_reason, unreinforce_reason
from .retreat import retreat_reason
# --- Talon 13 missiles ---
from .layout import K_A_MMOVE, K_MISSILES, ST_RETARGET
from .missiles import (NOT_A_MISSILE_ACTION, missile_action_reason, missile_must_move, missile_stage_choice,
                       write_missile_mask)
# --- Talon 12 fighters, 16 docking ---
from .layout import K_A_DOCK, K_A_FTR_AP, K_DOCKING, K_FIGHTERS
from .fighters import N_FTR_USES, fighter_ap_any, fighter_ap_reason, write_fighter_ap_mask
from .docking import dock_reason


# ---------------------------------------------------------------------------------
# Putting the rules together: one action, any action, the mask
# ---------------------------------------------------------------------------------
# The first action family of each stage's actions, by stage ST_AP .. ST_RETREAT: a stage's
# actions run up to the next entry (ST_AP has its AP uses, removals and squadron AP; ST_MOVE its moves
# and dockings).  The one statement of which actions a stage allows: action_reason asks stage_reason,
# write_mask and stage_has_choice walk only the current stage's candidates, write_mask_ref the ranges.
STAGE_FAMILY = np.array([0, K_A_AP, K_A_MOVE, K_A_FIRE_SHIP, K_A_GROUP, K_A_TARGET, K_A_SPEED, K_A_INIT, K_A_COLLIDE,
                         K_A_EXPLODE, K_A_PULL, K_A_RETREAT, K_A_DONE], dtype=np.int64)


@kernel(cache=True, inline="always")
def stage_reason(cfg, st, a):
    """Is action ``a`` (not "done", not a missile's) one of stage ``st``'s?  A wave cannon's push picks
    the hex as a black hole's pull does (15.1.2, 18.2)."""
    k = borrow(cfg.k)
    if st == ST_PUSH:
        st = ST_PULL
    if ST_AP <= st <= ST_RETREAT and k[STAGE_FAMILY[st]] <= a < k[STAGE_FAMILY[st + 1]]:
        return OK
    return R_STAGE


@kernel(cache=True, inline="always")
def done_reason(s, cfg, b, p, st):
    """May the player end the stage: AP, fire and retreat are optional (6.1, 8.2, 11.1.2);
    the move stage ends only when no ship must still move (7.1)."""
    if st == ST_AP or st == ST_FIRE_SHIP or st == ST_FIRE_GROUP or st == ST_RETREAT:
        return OK
    if st == ST_MOVE:
        for k in range(borrow(s.sh).shape[2]):
            if must_still_move(s, cfg, b, p, k):
                return R_MUST_MOVE
        if borrow(cfg.k)[K_MISSILES] and missile_must_move(s, b, p):     # Talon 13.4
            return R_MUST_MOVE
        return OK
    return R_STAGE


@kernel(cache=True)
def action_reason(s_, cfg_, b, a):
    """Reason code why action ``a`` is illegal in game ``b`` now (0 = legal)."""
    s = state_view(s_)
    cfg = config_view(cfg_)
    g = s.g
    k_ = cfg.k
    if g[b, G_DONE]:
        return R_GAME_OVER
    if a < 0 or a >= k_[K_N_ACTIONS]:
        return R_NO_SUCH_ACTION
    p = g[b, G_DECIDER]
    st = g[b, G_STAGE]
    if k_[K_MISSILES]:                                   # --- Talon 13 missiles ---
        r = missile_action_reason(s, cfg, b, p, st, a)
        if r != NOT_A_MISSILE_ACTION:
            return r
    if a >= k_[K_A_DONE]:
        return done_reason(s, cfg, b, p, st)
    r = stage_reason(cfg, st, a)
    if r != OK:
        return r
    if a < k_[K_A_MOVE]:
        if a < k_[K_A_UNREINF]:
            i = a - k_[K_A_AP]
            return ap_reason(s, cfg, b, p, i // N_USES, i % N_USES)
        if a >= k_[K_A_FTR_AP]:                     # Talon 12.2 an AP sent to a squadron
            i = a - k_[K_A_FTR_AP]
            S = borrow(s.sh).shape[2]
            return fighter_ap_reason(s, cfg, b, p, i // (N_FTR_USES * S), (i // N_FTR_USES) % S, i % N_FTR_USES)
        i = a - k_[K_A_UNREINF]
        return unreinforce_reason(s, cfg, b, p, i // 4, i % 4)
    if a < k_[K_A_FIRE_SHIP]:
        if a >= k_[K_A_DOCK]:                       # Talon 16.2 docking or landing, declared with the move
            i = a - k_[K_A_DOCK]
            return dock_reason(s, cfg, b, p, i // N_MOVES, i % N_MOVES)
        i = a - k_[K_A_MOVE]
        return move_reason(s, cfg, b, p, i // N_MOVES, i % N_MOVES)
    if a < k_[K_A_GROUP]:
        return can_fire(s, cfg, b, p, a - k_[K_A_FIRE_SHIP])
    if a < k_[K_A_TARGET]:
        r = firer_reason(s, b, p)
        if r != OK:
            return r
        return group_reason(s, cfg, b, p, g[b, G_SHIP], a - k_[K_A_GROUP])
    if a < k_[K_A_SPEED]:
        r = weapons_left_reason(s, b, p)
        if r != OK:
            return r
        return target_reason(s, cfg, b, p, g[b, G_SHIP], g[b, G_GROUP], a - k_[K_A_TARGET])
    if a < k_[K_A_INIT]:
        return speed_reason(s, cfg, b, p, a - k_[K_A_SPEED])
    if a < k_[K_A_EXPLODE]:
        return OK                                   # the initiative (4.2) or the first to take damage (7.4)
    if a < k_[K_A_PULL]:
        k = a - k_[K_A_EXPLODE]
        return explode_reason(s, b, p, k) if k < borrow(s.sh).shape[2] else R_NOT_PENDING
    if a < k_[K_A_RETREAT]:
        return OK                                   # 18.2, 15.1.2 either hex of the hexside
    return retreat_reason(s, cfg, b, p, a - k_[K_A_RETREAT])


@kernel(cache=True)
def _ap_ship_any(s, cfg, b, p, k):
    """Ship ``k`` may remove a reinforcement or spend its AP on some use (stage ST_AP)."""
    for a in range(4):
        if unreinforce_reason(s, cfg, b, p, k, a) == OK:
            return True
    if ap_ship_reason(s, cfg, b, p, k) != OK:
        return False
    for u in range(N_USES):
        if ap_use_reason(s, cfg, b, p, k, u) == OK:
            return True
    return False


@kernel(cache=True)
def stage_has_choice(s_, cfg_, b):
    """Is there anything for the player to decide in the current stage: is any action of
    the stage's families other than "done" legal (stopping at the first)?"""
    s = state_view(s_)
    cfg = config_view(cfg_)
    g = s.g
    sh = s.sh
    S = sh.shape[2]
    p = g[b, G_DECIDER]
    st = g[b, G_STAGE]
    if cfg.k[K_MISSILES] and missile_stage_choice(s, cfg, b, p, st):    # --- Talon 13 missiles ---
        return True
    if st == ST_AP:
        for k in range(S):
            if _ap_ship_any(s, cfg, b, p, k):
                return True
            if cfg.k[K_FIGHTERS] and fighter_ap_any(s, cfg, b, p, k):     # Talon 12.2
                return True
        return False
    if st == ST_MOVE:
        for k in range(S):
            if may_move(s, cfg, b, p, k) == OK:
                return True
        return False
    if st == ST_FIRE_SHIP:
        for k in range(S):
            if can_fire(s, cfg, b, p, k) == OK:
                return True
        return False
    if st == ST_FIRE_GROUP:
        if firer_reason(s, b, p) != OK:
            return False
        for gi in range(3):
            if group_reason(s, cfg, b, p, g[b, G_SHIP], gi) == OK:
                return True
        return False
    if st == ST_FIRE_TARGET:
        if weapons_left_reason(s, b, p) != OK:
            return False
        for t in range(S):
            if target_reason(s, cfg, b, p, g[b, G_SHIP], g[b, G_GROUP], t) == OK:
                return True
        return False
    if st == ST_RETREAT:
        for k in range(S):
            if retreat_reason(s, cfg, b, p, k) == OK:
                return True
        return False
    return True


@kernel(cache=True)
def stage_has_choice_ref(s, cfg, b):
    """Reference statement of stage_has_choice through the per-action reasons (tests)."""
    p = s.g[b, G_DECIDER]
    st = s.g[b, G_STAGE]
    sh = s.sh
    S = sh.shape[2]
    if cfg.k[K_MISSILES]:                                # --- Talon 13 missiles: any of their actions ---
        if st == ST_RETARGET:
            return True
        for a in range(cfg.k[K_A_MMOVE], cfg.k[K_A_DONE]):
            if action_reason(s, cfg, b, a) == OK:
                return True
    if st == ST_AP:
        for k in range(S):
            if not active(sh, b, p, k):
                continue
            for a in range(4):
                if sh[b, p, k, SH_REINF + a] > 0:
                    return True
            if ap_source(s, cfg, b, p, k) and not sh[b, p, k, SH_AP_SPENT]:
                for u in range(N_USES):
                    if ap_reason(s, cfg, b, p, k, u) == OK:
                        return True
        for a in range(cfg.k[K_A_FTR_AP], cfg.k[K_A_MOVE]):           # Talon 12.2
            if action_reason(s, cfg, b, a) == OK:
                return True
        return False
    if st == ST_MOVE:
        for k in range(S):
            if may_move(s, cfg, b, p, k) == OK:
                return True
        return False
    if st == ST_FIRE_SHIP:
        for k in range(S):
            if can_fire(s, cfg, b, p, k) == OK:
                return True
        return False
    if st == ST_FIRE_GROUP:
        k = s.g[b, G_SHIP]
        if not active(sh, b, p, k):
            return False
        for gi in range(3):
            if group_reason(s, cfg, b, p, k, gi) == OK:
                return True
        return False
    if st == ST_FIRE_TARGET:
        k = s.g[b, G_SHIP]
        if s.g[b, G_WLEFT] <= 0 or not active(sh, b, p, k):
            return False
        for t in range(S):
            if target_reason(s, cfg, b, p, k, s.g[b, G_GROUP], t) == OK:
                return True
        return False
    if st == ST_RETREAT:
        for k in range(S):
            if action_reason(s, cfg, b, cfg.k[K_A_RETREAT] + k) == OK:
                return True
        return False
    return True


@kernel(cache=True)
def mask_range(s, cfg, b, mask, lo, hi):
    for a in range(lo, hi):
        if action_reason(s, cfg, b, a) == OK:
            mask[a] = 1


@kernel(cache=True)
def write_mask_ref(s, cfg, b, mask):
    """Reference mask: ``action_reason`` for every action of the current stage's families.

    Slow (one call per action, each decoding its action number); kept for the tests,
    which check on random-play states that ``write_mask`` gives exactly this."""
    mask[:] = 0
    if s.g[b, G_DONE]:
        return
    k = cfg.k
    st = s.g[b, G_STAGE]
    if ST_AP <= st <= ST_RETREAT:
        mask_range(s, cfg, b, mask, k[STAGE_FAMILY[st]], k[STAGE_FAMILY[st + 1]])
    elif st == ST_PUSH:
        mask_range(s, cfg, b, mask, k[K_A_PULL], k[K_A_RETREAT])
    if k[K_MISSILES]:                                    # --- Talon 13 missiles ---
        mask_range(s, cfg, b, mask, k[K_A_MMOVE], k[K_A_DONE])
        if st == ST_RETARGET:
            mask_range(s, cfg, b, mask, k[K_A_TARGET], k[K_A_SPEED])
    mask_range(s, cfg, b, mask, k[K_A_DONE], k[K_A_DONE] + 1)


@kernel(cache=True)
def write_mask(s_, cfg_, b, mask):
    """Legal actions of the player to decide: ``action_reason(a) == OK`` for every ``a``,
    asked of the same per-rule functions ship by ship (only the current stage's families
    can be legal; the stage is known, so it is not asked again per action)."""
    s = state_view(s_)
    cfg = config_view(cfg_)
    k_ = cfg.k
    g = s.g
    sh = s.sh
    S = sh.shape[2]
    mask[:] = 0
    if g[b, G_DONE]:
        return
    st = g[b, G_STAGE]
    p = g[b, G_DECIDER]
    if st == ST_AP:
        a_ap = k_[K_A_AP]
        a_un = k_[K_A_UNREINF]
        for k in range(S):
            for a in range(4):
                if unreinforce_reason(s, cfg, b, p, k, a) == OK:
                    mask[a_un + 4 * k + a] = 1
            if ap_ship_reason(s, cfg, b, p, k) == OK:
                o = a_ap + N_USES * k
                for u in range(N_USES):
                    if ap_use_reason(s, cfg, b, p, k, u) == OK:
                        mask[o + u] = 1
                if k_[K_FIGHTERS]:
                    write_fighter_ap_mask(s, cfg, b, p, k, mask, k_[K_A_FTR_AP] + N_FTR_USES * S * k)   # Talon 12.2
    elif st == ST_MOVE:
        a_mv = k_[K_A_MOVE]
        for k in range(S):
            if may_move(s, cfg, b, p, k) == OK:
                o = a_mv + N_MOVES * k
                for m in range(N_MOVES):
                    if move_kind_reason(s, cfg, b, p, k, m) == OK:
                        mask[o + m] = 1
                if k_[K_DOCKING]:                           # Talon 16.2
                    for m in range(N_MOVES):
                        if dock_reason(s, cfg, b, p, k, m) == OK:
                            mask[k_[K_A_DOCK] + N_MOVES * k + m] = 1
    elif st == ST_FIRE_SHIP:
        a_fs = k_[K_A_FIRE_SHIP]
        for k in range(S):
            if can_fire(s, cfg, b, p, k) == OK:
                mask[a_fs + k] = 1
    elif st == ST_FIRE_GROUP:
        if firer_reason(s, b, p) == OK:
            a_gr = k_[K_A_GROUP]
            for gi in range(3):
                if group_reason(s, cfg, b, p, g[b, G_SHIP], gi) == OK:
                    mask[a_gr + gi] = 1
    elif st == ST_FIRE_TARGET:
        if weapons_left_reason(s, b, p) == OK:
            a_tg = k_[K_A_TARGET]
            for t in range(S):
                if target_reason(s, cfg, b, p, g[b, G_SHIP], g[b, G_GROUP], t) == OK:
                    mask[a_tg + t] = 1
    elif st == ST_POWER:
        a_sp = k_[K_A_SPEED]
        for d in range(3):
            if speed_reason(s, cfg, b, p, d) == OK:
                mask[a_sp + d] = 1
    elif st == ST_INIT:
        mask[k_[K_A_INIT]] = 1
        mask[k_[K_A_INIT] + 1] = 1
    elif st == ST_COLLIDE:
        mask[k_[K_A_COLLIDE]] = 1
        mask[k_[K_A_COLLIDE] + 1] = 1
    elif st == ST_EXPLODE:
        a_ex = k_[K_A_EXPLODE]
        for k in range(S):
            if explode_reason(s, b, p, k) == OK:
                mask[a_ex + k] = 1
    elif st == ST_PULL or st == ST_PUSH:
        mask[k_[K_A_PULL]] = 1
        mask[k_[K_A_PULL] + 1] = 1
    elif st == ST_RETREAT:
        a_rt = k_[K_A_RETREAT]
        for k in range(S):
            if retreat_reason(s, cfg, b, p, k) == OK:
                mask[a_rt + k] = 1
    if k_[K_MISSILES]:                                   # --- Talon 13 missiles ---
        write_missile_mask(s, cfg, b, p, st, mask)
    if done_reason(s, cfg, b, p, st) == OK:
        mask[k_[K_A_DONE]] = 1
