"""Talon firing and damage (rulebook section 8): charged groups, targets in arc and
range, the fire procedure, damage to shields and hull, critical hits, destruction and
explosions (8.6), repairs (8.7)."""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from ..core.rng import roll_die
from ..core.structs import borrow
from .layout import (CL_EXPLOSION, CL_N_GROUPS, CL_N_HULL, CL_POINTS, CR_BREACH, CR_HELM, CR_HULL_FTL, CR_PLOSS,
                     CR_POWER, CR_SECONDARY, CR_SHIELDS, CR_TURN, CR_WEAPON, GR_ARCS, GR_RED, GR_WEAPON, GR_YELLOW,
                     G_DECIDER, G_PENDING_TURN, G_SERIAL, G_SHIP, G_SP0, G_TILES, G_WLEFT, K_REPAIRABLE, OK, R_FIRED, R_NOT_CHARGED,
                     R_NOT_ENEMY, R_NOT_PENDING, R_NO_GROUP, R_NO_SHIP, R_NO_TARGET, R_NO_WEAPON_LEFT, R_OUT_OF_ARC,
                     R_OUT_OF_RANGE, R_UNPLAYABLE_WEAPON, SH_CELL, SH_CLASS, SH_C_FTL, SH_C_HELM, SH_C_PLOSS, SH_C_POWER,
                     SH_C_POWER_AT, SH_C_SHIELDS, SH_C_TURN, SH_C_TURN_AT, SH_FACING, SH_FIRED, SH_GROUP_DEAD,
                     SH_HULL_HITS, SH_PENDING, SH_RED, SH_REINF, SH_SHIELD, SH_STATUS, SH_YEL, SS_ACTIVE,
                     SS_DESTROYED, other)
# --- Talon 13 missiles ---
from .layout import (K_MISSILES, MISSILE_KILL, MI_DAMAGED, MI_NONE, MS_CELL, MS_OWNER, MS_STATUS,
                     R_MISSILE_AT_MISSILE, R_NO_MISSILE, R_NO_MISSILE_SLOT, W_FUSION, W_MISSILE, W_WAVE)
from .ships import active, is_squadron, leave_play, lose_docked
from .terrain import aim_penalty, in_nebula, line_reason
# --- Talon 14 bases, 12 fighters, 16 docking ---
from .layout import K_DOCKING
from .bases import base_ignores_critical


# ---------------------------------------------------------------------------------
# A group's charge (Talon 8.1)
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def group_full(sh, cfg, b, p, k, gi):
    """A group fires only with its whole bar charged (Talon 8.1.1)."""
    c = sh[b, p, k, SH_CLASS]
    if (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1:
        return False
    grp = borrow(cfg.grp)
    return sh[b, p, k, SH_RED + gi] >= grp[c, gi, GR_RED] and sh[b, p, k, SH_YEL + gi] >= grp[c, gi, GR_YELLOW]


# ---------------------------------------------------------------------------------
# Damage, criticals, destruction (Talon 8.4-8.6)
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def destroy(s, cfg, b, p, k):
    """The last hull box is marked or the FTL core breaches: the ship is destroyed (Talon 8.6.1).

    Its explosion (8.6.2) waits in the queue: several ships destroyed at once
    explode in the order their owners choose (8.6.3)."""
    sh = s.sh
    if sh[b, p, k, SH_STATUS] != SS_ACTIVE:
        return
    leave_play(sh, b, p, k, SS_DESTROYED)
    sh[b, p, k, SH_PENDING] = 1
    pts = cfg.cls[sh[b, p, k, SH_CLASS], CL_POINTS]
    s.g[b, G_SP0 + other(p)] += pts
    if cfg.k[K_DOCKING]:
        lose_docked(s, cfg, b, p, k)        # Talon 16.3 the ships docked on it are lost with it


@kernel(cache=True)
def roll_off(s, b, cand, n):
    """Among the candidates ``cand`` (a bitmask over 0 .. n-1): a die each, in index order;
    the highest wins, ties roll again (Talon 8.5 criticals 5/9, 8.6.2).  -1 if there is none."""
    while cand != 0:
        if cand & (cand - 1) == 0:          # one left
            for i in range(n):
                if (cand >> i) & 1:
                    return i
        best = 0
        nxt = 0
        for i in range(n):
            if (cand >> i) & 1:
                v = roll_die(s.rng, s.dice_script, s.dice, b, 6)
                if v > best:
                    best = v
                    nxt = 1 << i
                elif v == best:
                    nxt |= 1 << i
        cand = nxt
    return -1


@kernel(cache=True)
def destroy_weapon_group(s, cfg, b, p, k):
    """Critical 5/9: a die per intact group, the highest is destroyed, ties re-rolled (Talon 8.5)."""
    sh = s.sh
    c = sh[b, p, k, SH_CLASS]
    cand = 0
    for gi in range(cfg.cls[c, CL_N_GROUPS]):
        if not (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1:
            cand |= 1 << gi
    gi = roll_off(s, b, cand, 3)
    if gi >= 0:
        sh[b, p, k, SH_GROUP_DEAD] |= 1 << gi
        sh[b, p, k, SH_RED + gi] = 0
        sh[b, p, k, SH_YEL + gi] = 0


@kernel(cache=True)
def critical(s, cfg, b, p, k):
    """Roll 2d6 on the critical damage table and apply the result at once (Talon 8.4.3, 8.5).

    Returns the extra hull damage the result causes (2: 3 boxes, 10: 1 box); the
    caller marks it, so that no kernel is recursive (Numba cannot cache recursion)."""
    sh = s.sh
    roll = roll_die(s.rng, s.dice_script, s.dice, b, 6) + roll_die(s.rng, s.dice_script, s.dice, b, 6)
    res = cfg.crit[roll]
    stamp = s.g[b, G_SERIAL] + 1
    if res == CR_SECONDARY:
        return 3
    elif res == CR_SHIELDS:
        # Shields down until repaired: reinforcements are destroyed, damage goes to the hull.
        if sh[b, p, k, SH_C_SHIELDS] == 0:
            sh[b, p, k, SH_C_SHIELDS] = stamp
        for a in range(4):
            sh[b, p, k, SH_REINF + a] = 0
    elif base_ignores_critical(sh, cfg, b, p, k, res == CR_HELM or res == CR_TURN):
        pass                            # Talon 8.5: results 4 and 6 do not affect a base
    elif res == CR_HELM:
        if sh[b, p, k, SH_C_HELM] == 0:
            sh[b, p, k, SH_C_HELM] = stamp
    elif res == CR_WEAPON:
        destroy_weapon_group(s, cfg, b, p, k)
    elif res == CR_TURN:
        if sh[b, p, k, SH_C_TURN] < 2:  # "Turn +1", flipped to "+2" (the marker has two sides)
            sh[b, p, k, SH_C_TURN] += 1
            sh[b, p, k, SH_C_TURN_AT] = stamp
    elif res == CR_POWER:
        if sh[b, p, k, SH_C_POWER] == 0:  # one Power -1 marker; a second 8 has no effect (RULES.md)
            sh[b, p, k, SH_C_POWER] = 1
            sh[b, p, k, SH_C_POWER_AT] = stamp
    elif res == CR_HULL_FTL:
        if sh[b, p, k, SH_C_FTL] == 0:
            sh[b, p, k, SH_C_FTL] = stamp
        return 1
    elif res == CR_PLOSS:
        if sh[b, p, k, SH_C_PLOSS] == 0:  # a second 11 has no effect (8.5 example)
            sh[b, p, k, SH_C_PLOSS] = stamp
    elif res == CR_BREACH:
        destroy(s, cfg, b, p, k)
    return 0


@kernel(cache=True)
def hull_damage(s, cfg, b, p, k, n):
    """Mark ``n`` hull boxes from the left; critical boxes roll at once (Talon 8.4.1, 8.4.3),
    and a secondary explosion's boxes are marked next (critical 2)."""
    sh = s.sh
    c = sh[b, p, k, SH_CLASS]
    while n > 0:
        n -= 1
        if sh[b, p, k, SH_STATUS] != SS_ACTIVE:
            return
        h = sh[b, p, k, SH_HULL_HITS]
        sh[b, p, k, SH_HULL_HITS] = h + 1
        if h + 1 >= cfg.cls[c, CL_N_HULL]:
            destroy(s, cfg, b, p, k)
            return
        if cfg.hull[c, h, 1]:
            n += critical(s, cfg, b, p, k)


@kernel(cache=True)
def damage(s, cfg, b, p, k, arc, n):
    """``n`` points on shield arc ``arc``: reinforcement first, then shield boxes, then hull (Talon 6.2.1, 8.4.1)."""
    sh = s.sh
    if is_squadron(sh, cfg, b, p, k):
        # Talon 12.1.2-12.1.3, 8.6.4: the damage goes to one fighter's single hull box
        if n > 0 and sh[b, p, k, SH_STATUS] == SS_ACTIVE:
            hull_damage(s, cfg, b, p, k, 1)
        return
    for i in range(n):
        if sh[b, p, k, SH_STATUS] != SS_ACTIVE:
            return
        if sh[b, p, k, SH_C_SHIELDS] == 0 and not in_nebula(s, b, sh[b, p, k, SH_CELL]):   # 17.4.1
            if sh[b, p, k, SH_REINF + arc] > 0:
                sh[b, p, k, SH_REINF + arc] = 0
                continue
            if sh[b, p, k, SH_SHIELD + arc] > 0:
                sh[b, p, k, SH_SHIELD + arc] -= 1
                continue
        hull_damage(s, cfg, b, p, k, 1)


@kernel(cache=True)
def random_arc(s, b):
    """Explosion in the same hex: a die per shield arc, the highest is hit, ties re-rolled (Talon 8.6.2)."""
    return roll_off(s, b, 15, 4)


@kernel(cache=True)
def explode(s, cfg, b, p, k):
    """Explosion damage to every ship in the same and in adjacent hexes (Talon 8.6.2).

    Damage goes to the player to move's ships first, in slot order: every ship's
    damage is independent, so the order only decides which die each roll uses."""
    sh = s.sh
    sh[b, p, k, SH_PENDING] = 0
    strength = cfg.cls[sh[b, p, k, SH_CLASS], CL_EXPLOSION]
    if strength <= 0:
        return
    cell = sh[b, p, k, SH_CELL]
    first = s.g[b, G_PENDING_TURN]
    for i in range(2):
        q = first if i == 0 else other(first)
        for j in range(sh.shape[2]):
            if not active(sh, b, q, j):
                continue
            tc = sh[b, q, j, SH_CELL]
            if tc == cell:
                damage(s, cfg, b, q, j, random_arc(s, b), strength)
            elif cfg.dist[tc, cell] == 1:
                damage(s, cfg, b, q, j, cfg.arc_of[tc, cell, sh[b, q, j, SH_FACING]], strength)
    if borrow(cfg.k)[K_MISSILES]:
        blast_missiles(s, cfg, b, cell, strength)     # Talon 13.6 missiles take explosion damage


@kernel(cache=True)
def pending_count(sh, b, p):
    n = 0
    last = -1
    for k in range(sh.shape[2]):
        if sh[b, p, k, SH_PENDING]:
            n += 1
            last = k
    return n, last


@kernel(cache=True)
def resolve_explosions(s, cfg, b):
    """Explode destroyed ships until none is pending or an owner must choose the order (Talon 8.6.3).

    The player whose turn it is orders its own ships first.  Returns True when
    a decision (ST_EXPLODE) is needed."""
    g = borrow(s.g)
    sh = borrow(s.sh)
    none = True
    for p in range(2):
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_PENDING]:
                none = False
    if none:
        return False   # the usual case, without the helper calls below
    first = g[b, G_PENDING_TURN]
    while True:
        n0, k0 = pending_count(sh, b, first)
        if n0 > 1:
            g[b, G_DECIDER] = first
            return True
        if n0 == 1:
            explode(s, cfg, b, first, k0)
            continue
        n1, k1 = pending_count(sh, b, other(first))
        if n1 > 1:
            g[b, G_DECIDER] = other(first)
            return True
        if n1 == 1:
            explode(s, cfg, b, other(first), k1)
            continue
        return False


# ---------------------------------------------------------------------------------
# Who may fire, with which group, at which target (Talon 8.2, 8.3)
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def reach_reason(cfg, w, arcs, fc, facing, tc):
    """Is hex ``tc`` in range of weapon ``w`` fired from hex ``fc`` (not its own hex) and in
    one of the arcs ``arcs`` of a ship facing ``facing`` (Talon 8.2.2, 5.3)?"""
    d = borrow(cfg.dist)[fc, tc]
    if d < borrow(cfg.wmin)[w] or d > borrow(cfg.wmax)[w] or d == 0:
        return R_OUT_OF_RANGE
    if not (arcs >> borrow(cfg.arc_of)[fc, tc, facing]) & 1:
        return R_OUT_OF_ARC
    return OK


@kernel(cache=True, inline="always")
def target_reason(s, cfg, b, p, k, gi, t):
    """May weapon group ``gi`` of ship ``k`` fire at enemy ship ``t``: an enemy in play, in
    reach of a playable weapon (Talon 8.2.2, 8.3 step 2), no planet or black hole on the
    line (8.2.3, 17.2.2, 18.1)?"""
    sh = borrow(s.sh)
    grp = borrow(cfg.grp)
    e = other(p)
    if not active(sh, b, e, t):
        return R_NOT_ENEMY
    c = sh[b, p, k, SH_CLASS]
    w = grp[c, gi, GR_WEAPON]
    if not borrow(cfg.wplay)[w]:
        return R_UNPLAYABLE_WEAPON
    fc = sh[b, p, k, SH_CELL]
    tc = sh[b, e, t, SH_CELL]
    r = reach_reason(cfg, w, grp[c, gi, GR_ARCS], fc, sh[b, p, k, SH_FACING], tc)
    if r != OK:
        return r
    if w == W_MISSILE:
        r = launch_reason(s, b, borrow(cfg.dist)[fc, tc])      # Talon 13.2
        if r != OK:
            return r
    return line_reason(s, cfg, b, fc, tc)


@kernel(cache=True, inline="always")
def firer_reason(s, b, p):
    """The ship that is firing (G_SHIP, stages ST_FIRE_GROUP and ST_FIRE_TARGET) is still in play (Talon 8.3)."""
    return OK if active(borrow(s.sh), b, p, borrow(s.g)[b, G_SHIP]) else R_NO_SHIP


@kernel(cache=True, inline="always")
def weapons_left_reason(s, b, p):
    """firer_reason, and its chosen group has weapons left to fire (Talon 8.3 step 4: each weapon of the
    group picks its target in turn; the stage ends with the last)."""
    r = firer_reason(s, b, p)
    if r != OK:
        return r
    return OK if borrow(s.g)[b, G_WLEFT] > 0 else R_NO_WEAPON_LEFT


@kernel(cache=True, inline="always")
def group_ready_reason(s, cfg, b, p, k, gi):
    """Is group ``gi`` of ship ``k`` there, charged and playable (Talon 8.1.1, 8.3 step 1)?"""
    sh = borrow(s.sh)
    cls = borrow(cfg.cls)
    c = sh[b, p, k, SH_CLASS]
    if gi >= cls[c, CL_N_GROUPS]:
        return R_NO_GROUP
    if not group_full(sh, cfg, b, p, k, gi):
        return R_NOT_CHARGED
    if not borrow(cfg.wplay)[borrow(cfg.grp)[c, gi, GR_WEAPON]]:
        return R_UNPLAYABLE_WEAPON
    return OK


@kernel(cache=True, inline="always")
def group_reason(s, cfg, b, p, k, gi):
    """May ship ``k`` fire group ``gi`` now: ready, with a target (Talon 8.3 steps 1-2)?
    target_reason for every enemy ship, with what depends only on the group read once."""
    r = group_ready_reason(s, cfg, b, p, k, gi)
    if r != OK:
        return r
    sh = borrow(s.sh)
    grp = borrow(cfg.grp)
    c = sh[b, p, k, SH_CLASS]
    w = grp[c, gi, GR_WEAPON]
    arcs = grp[c, gi, GR_ARCS]
    fc = sh[b, p, k, SH_CELL]
    facing = sh[b, p, k, SH_FACING]
    e = other(p)
    for t in range(sh.shape[2]):
        if active(sh, b, e, t):
            tc = sh[b, e, t, SH_CELL]
            if reach_reason(cfg, w, arcs, fc, facing, tc) == OK and line_reason(s, cfg, b, fc, tc) == OK \
                    and (w != W_MISSILE or launch_reason(s, b, borrow(cfg.dist)[fc, tc]) == OK):
                return OK
    if borrow(cfg.k)[K_MISSILES]:
        for m in range(borrow(s.ms).shape[1]):                  # Talon 13.6 shooting missiles down
            if missile_target_reason(s, cfg, b, p, k, gi, m) == OK:
                return OK
    return R_NO_TARGET


@kernel(cache=True, inline="always")
def fire_ship_reason(s, cfg, b, p, k):
    """Ship ``k`` is in play and has not fired this turn (Talon 8.2.1)."""
    sh = borrow(s.sh)
    if not active(sh, b, p, k):
        return R_NO_SHIP
    if sh[b, p, k, SH_FIRED]:
        return R_FIRED
    return OK


@kernel(cache=True, inline="always")
def can_fire(s, cfg, b, p, k):
    """May ship ``k`` be chosen to fire: it may, and a group of it may fire (Talon 8.2.1, 8.3)?"""
    r = fire_ship_reason(s, cfg, b, p, k)
    if r != OK:
        return r
    r = R_NO_GROUP
    for gi in range(borrow(cfg.cls)[borrow(s.sh)[b, p, k, SH_CLASS], CL_N_GROUPS]):
        r = group_reason(s, cfg, b, p, k, gi)
        if r == OK:
            return OK
    return r


@kernel(cache=True, inline="always")
def explode_reason(s, b, p, k):
    """Only a ship destroyed and not yet exploded can be chosen to explode next (Talon 8.6.3)."""
    return OK if borrow(s.sh)[b, p, k, SH_PENDING] else R_NOT_PENDING


# ---------------------------------------------------------------------------------
# Firing a weapon (Talon 8.3); repairs (8.7)
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def roll_weapon_damage(s, cfg, b, w, fc, tc):
    """The damage of one shot of weapon ``w`` from hex ``fc`` at hex ``tc``: a die on the weapon's
    table by range (Talon 8.3 step 5; the wave cannon's table for 15.1.1), less the aim penalty
    of terrain (17.5, 18.1); a result below 1 misses."""
    die = roll_die(s.rng, s.dice_script, s.dice, b, 6)
    if s.g[b, G_TILES] > 0:
        die -= aim_penalty(s, cfg, b, fc, tc)
    return cfg.wdmg[w, cfg.dist[fc, tc], die] if die >= 1 else 0


@kernel(cache=True)
def fire_weapon(s, cfg, b, p, k, gi, t):
    """One weapon of the group at target ``t``: a die on the weapon table by range (Talon 8.3 step 5),
    damage on the target's shield arc that contains the firer (8.3 step 6)."""
    sh = s.sh
    e = other(p)
    c = sh[b, p, k, SH_CLASS]
    w = cfg.grp[c, gi, GR_WEAPON]
    fc = sh[b, p, k, SH_CELL]
    tc = sh[b, e, t, SH_CELL]
    n = roll_weapon_damage(s, cfg, b, w, fc, tc)
    if n > 0:
        damage(s, cfg, b, e, t, cfg.arc_of[tc, fc, sh[b, e, t, SH_FACING]], n)


@kernel(cache=True)
def repairs(s, cfg, b, p):
    """End of the turn: each repairable critical marker placed before this impulse is repaired on a 6 (Talon 8.7)."""
    g = borrow(s.g)
    k_ = borrow(cfg.k)
    sh = borrow(s.sh)
    now = g[b, G_SERIAL] + 1
    rep = k_[K_REPAIRABLE]
    for k in range(sh.shape[2]):
        if not active(sh, b, p, k):
            continue
        if (rep >> CR_SHIELDS) & 1 and 0 < sh[b, p, k, SH_C_SHIELDS] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_SHIELDS] = 0    # shields return exactly as they were
        if (rep >> CR_HELM) & 1 and 0 < sh[b, p, k, SH_C_HELM] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_HELM] = 0
        if (rep >> CR_TURN) & 1 and sh[b, p, k, SH_C_TURN] > 0 and sh[b, p, k, SH_C_TURN_AT] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_TURN] = 0
                sh[b, p, k, SH_C_TURN_AT] = 0
        if (rep >> CR_POWER) & 1 and sh[b, p, k, SH_C_POWER] > 0 and sh[b, p, k, SH_C_POWER_AT] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_POWER] = 0
                sh[b, p, k, SH_C_POWER_AT] = 0
        if (rep >> CR_HULL_FTL) & 1 and 0 < sh[b, p, k, SH_C_FTL] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_FTL] = 0
        if (rep >> CR_PLOSS) & 1 and 0 < sh[b, p, k, SH_C_PLOSS] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_PLOSS] = 0


# ---------------------------------------------------------------------------------
# --- Talon 13 missiles: missiles as targets, damage to missiles (13.2, 13.6) ---
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def launch_reason(s, b, d):
    """A missile launched at range 2 or more needs a free counter of the game's pool (13.2,
    option max_missiles); one launched at range 1 detonates at once and needs none (13.5)."""
    ms = borrow(s.ms)
    if d <= 1:
        return OK
    for m in range(ms.shape[1]):
        if ms[b, m, MS_STATUS] == MI_NONE:
            return OK
    return R_NO_MISSILE_SLOT


@kernel(cache=True)
def missile_target_reason(s, cfg, b, p, k, gi, m):
    """May weapon group ``gi`` of ship ``k`` fire at missile ``m`` (13.6): an enemy missile in
    play, in reach (arc and range, 8.2.2) with no planet or black hole on the line (17.2.2,
    18.1).  Missiles cannot target missiles (13.2); wave and fusion cannons do not either
    (RULES.md)."""
    ms = borrow(s.ms)
    sh = borrow(s.sh)
    grp = borrow(cfg.grp)
    if ms[b, m, MS_STATUS] == MI_NONE or ms[b, m, MS_OWNER] == p:
        return R_NO_MISSILE
    c = sh[b, p, k, SH_CLASS]
    w = grp[c, gi, GR_WEAPON]
    if w == W_MISSILE or w == W_FUSION or w == W_WAVE:
        return R_MISSILE_AT_MISSILE
    if not borrow(cfg.wplay)[w]:
        return R_UNPLAYABLE_WEAPON
    fc = sh[b, p, k, SH_CELL]
    mc = ms[b, m, MS_CELL]
    r = reach_reason(cfg, w, grp[c, gi, GR_ARCS], fc, sh[b, p, k, SH_FACING], mc)
    if r != OK:
        return r
    return line_reason(s, cfg, b, fc, mc)


@kernel(cache=True)
def hit_missile(s, b, m, n):
    """``n`` damage in one hit on missile ``m`` (13.6): 3 or more destroy it, less flips it to
    its damaged side, and a damaged missile hit by any damage is destroyed."""
    ms = borrow(s.ms)
    if n <= 0 or ms[b, m, MS_STATUS] == MI_NONE:
        return
    if n >= MISSILE_KILL or ms[b, m, MS_STATUS] == MI_DAMAGED:
        ms[b, m, MS_STATUS] = MI_NONE
    else:
        ms[b, m, MS_STATUS] = MI_DAMAGED


@kernel(cache=True)
def blast_missiles(s, cfg, b, cell, n):
    """A ship exploding in ``cell`` with strength ``n`` (8.6.2) hits the missiles in its hex
    and the adjacent ones, one missile per hex (13.6, 8.6.4): the one in the lowest slot."""
    ms = borrow(s.ms)
    M = ms.shape[1]
    hit = np.zeros(M, dtype=np.bool_)
    for m in range(M):
        if ms[b, m, MS_STATUS] == MI_NONE or cfg.dist[ms[b, m, MS_CELL], cell] > 1:
            continue
        first = True
        for j in range(m):
            if ms[b, j, MS_STATUS] != MI_NONE and ms[b, j, MS_CELL] == ms[b, m, MS_CELL]:
                first = False
        hit[m] = first
    for m in range(M):
        if hit[m]:
            hit_missile(s, b, m, n)
