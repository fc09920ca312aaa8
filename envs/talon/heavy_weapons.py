"""Talon heavy weapons (rulebook section 15): the Terran wave cannon (15.1: a hit pushes the
target one hex away from the firer, its 10 damage waits for the end of the turn) and the
Talon fusion cannon (15.2: every ship and missile in the cone, friendly ones too, a die each;
fighters are immune).

Both are on only with option ``heavy_weapons`` (config ``K_HEAVY``); the basic game never
calls this module's kernels except ``wave_damage_due``'s quick test at the end of a turn."""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (G_PUSH_DIR_A, G_PUSH_DIR_B, G_PUSH_SHIP, G_PULL_A, G_PULL_B, G_STAGE, G_TILES, GR_ARCS, GR_WEAPON,
                     K_COLS, OK, SH_CELL, SH_CLASS, SH_FACING, SH_STATUS, SH_WAVE, SS_ACTIVE, ST_FIRE_TARGET, ST_PUSH,
                     other)
from .ships import DQ, DR, active, is_squadron, neighbour, to_axial
from .fire import damage, hit_missile, reach_reason, roll_weapon_damage
from .movement import enter_hex, queue_collisions, step_one_hex
from .terrain import line_reason
# --- Talon 13 missiles ---
from .layout import K_MISSILES, MI_NONE, MS_CELL, MS_OWNER, MS_STATUS
from .missiles import ship_entered


# ---------------------------------------------------------------------------------
# Wave cannon (Talon 15.1)
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def push_dirs(cfg, fc, tc):
    """Directions (0..5, as facings) of the hex one step further along the line from hex ``fc``'s
    centre through ``tc``'s (Talon 15.1.2): the neighbour of ``tc`` whose direction is nearest
    the line's.  Two different directions when the line leaves ``tc`` through a vertex, i.e.
    runs between two hexes ("esattamente lungo due esagoni"): the firer picks.

    In cube coordinates the dot product is the plane's own (up to a factor), so the
    comparison is exact in integers."""
    cols = cfg.k[K_COLS]
    q1, r1 = to_axial(fc, cols)
    q2, r2 = to_axial(tc, cols)
    vq = q2 - q1
    vr = r2 - r1
    vs = -vq - vr
    best = -(1 << 30)
    da = -1
    db = -1
    for d in range(6):
        dot = vq * DQ[d] + vr * DR[d] + vs * (-DQ[d] - DR[d])
        if dot > best:
            best = dot
            da = d
            db = d
        elif dot == best:
            db = d
    return da, db


@kernel(cache=True)
def push_ship(s, cfg, b, e, t, d):
    """Ship ``t`` of player ``e`` is pushed one hex in direction ``d`` (Talon 15.1.2): its facing
    and turn marker stay ("senza cambiare orientamento"; the turn marker moves with it, so the
    hexes still to go before the next turn are the same).  Entering the hex has the effects of
    movement, resolved now (15.1.3): terrain (17-19) and collisions with friendly ships (7.4),
    which return to the fire stage.  Off the map, the map moves as for a move (7.5.1, 7.5.2)."""
    sh = s.sh
    origin = step_one_hex(s, cfg, b, e, t, d)
    if origin < 0:
        return False
    cell = sh[b, e, t, SH_CELL]
    arc = cfg.arc_of[origin, cell, sh[b, e, t, SH_FACING]]
    if s.g[b, G_TILES] > 0:
        enter_hex(s, cfg, b, e, t, origin)
    if cfg.k[K_MISSILES]:
        ship_entered(s, cfg, b, e, t, origin)         # Talon 13.5 pushed into a missile tracking it
    return queue_collisions(s, cfg, b, e, t, origin, arc, ST_FIRE_TARGET)


@kernel(cache=True)
def fire_wave(s, cfg, b, p, k, gi, t):
    """One wave cannon at enemy ship ``t`` (Talon 15.1.1): a die on the wave cannon table by range;
    a hit marks 10 damage on the target's shield arc facing the firer, resolved at the end of
    the turn (15.1.3, ``apply_wave_damage``), and pushes the target now (15.1.2).  When the push
    may go to either of two hexes, the firer decides (stage ST_PUSH)."""
    sh = s.sh
    e = other(p)
    c = sh[b, p, k, SH_CLASS]
    w = cfg.grp[c, gi, GR_WEAPON]
    fc = sh[b, p, k, SH_CELL]
    tc = sh[b, e, t, SH_CELL]
    n = roll_weapon_damage(s, cfg, b, w, fc, tc)
    if n <= 0:
        return
    # the arc hit is the one facing the firer when the shot lands (15.1 example: "un colpo
    # ... sullo scudo posteriore", then the push)
    sh[b, e, t, SH_WAVE + cfg.arc_of[tc, fc, sh[b, e, t, SH_FACING]]] += n
    da, db = push_dirs(cfg, fc, tc)
    if da == db:
        push_ship(s, cfg, b, e, t, da)
        return
    g = s.g
    g[b, G_PUSH_SHIP] = t
    g[b, G_PUSH_DIR_A] = da
    g[b, G_PUSH_DIR_B] = db
    g[b, G_PULL_A] = neighbour(cfg, tc, da)         # the hexes, for the observation (-1 off the map)
    g[b, G_PULL_B] = neighbour(cfg, tc, db)
    g[b, G_STAGE] = ST_PUSH


@kernel(cache=True)
def choose_push(s, cfg, b, p, second):
    """The firer picks the hex of a push along a hexside (Talon 15.1.2); back to its targets."""
    g = s.g
    g[b, G_STAGE] = ST_FIRE_TARGET
    push_ship(s, cfg, b, other(p), g[b, G_PUSH_SHIP], g[b, G_PUSH_DIR_B] if second else g[b, G_PUSH_DIR_A])


@kernel(cache=True, inline="always")
def wave_damage_due(s, b):
    """Is any wave cannon damage waiting for the end of the turn (Talon 15.1.3)?"""
    sh = borrow(s.sh)
    for p in range(2):
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_WAVE] or sh[b, p, k, SH_WAVE + 1] or sh[b, p, k, SH_WAVE + 2] or sh[b, p, k, SH_WAVE + 3]:
                return True
    return False


@kernel(cache=True)
def apply_wave_damage(s, cfg, b):
    """End of the turn: the wave cannon hits' damage, ship by ship in slot order, arc by arc
    (Talon 15.1.3).  Ships destroyed by it explode afterwards in their owners' order (8.6.3),
    and their explosions may destroy others: the chain reaction the rule speaks of."""
    sh = s.sh
    for p in range(2):
        for k in range(sh.shape[2]):
            for a in range(4):
                n = sh[b, p, k, SH_WAVE + a]
                sh[b, p, k, SH_WAVE + a] = 0
                if n > 0 and sh[b, p, k, SH_STATUS] == SS_ACTIVE:
                    damage(s, cfg, b, p, k, a, n)


# ---------------------------------------------------------------------------------
# Fusion cannon (Talon 15.2)
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def fire_fusion(s, cfg, b, p, k, gi):
    """One fusion cannon, fired at an enemy ship (15.2.2: only an enemy may be designated), hits
    every ship in the group's arc and range, friendly ones included, with a die each on the
    fusion cannon table by range (15.2.1); damage on the shield arc facing the firer.  The
    firer's own ships are resolved first (15.2.2 "il giocatore che ha sparato risolve per
    primo"), each side's in slot order: the damage to each ship is independent and the
    explosions wait in the queue (8.6.3), so the order decides only which die each roll uses.
    Then the missiles in the cone, a die each (13.6's damage to a missile)."""
    sh = s.sh
    c = sh[b, p, k, SH_CLASS]
    w = cfg.grp[c, gi, GR_WEAPON]
    arcs = cfg.grp[c, gi, GR_ARCS]
    fc = sh[b, p, k, SH_CELL]
    facing = sh[b, p, k, SH_FACING]
    for i in range(2):
        q = p if i == 0 else other(p)
        for j in range(sh.shape[2]):
            if not active(sh, b, q, j) or is_squadron(sh, cfg, b, q, j):
                continue                # fighters ignore the fusion cannon (12.1.2, 15.2.2)
            tc = sh[b, q, j, SH_CELL]
            if reach_reason(cfg, w, arcs, fc, facing, tc) != OK or line_reason(s, cfg, b, fc, tc) != OK:
                continue
            n = roll_weapon_damage(s, cfg, b, w, fc, tc)
            if n > 0:
                damage(s, cfg, b, q, j, cfg.arc_of[tc, fc, sh[b, q, j, SH_FACING]], n)
    if cfg.k[K_MISSILES]:
        # missiles in the cone are hit too, a die each (15.2.1 "tutti i bersagli"; the 15.2 example:
        # "I missili 14 e 15 prendono 2 danni ciascuno e vengono girati"), as a shot at a missile
        # (13.6): 3 or more destroy an intact one, less flips it.  Both sides' (friendly ships are hit
        # too), the firer's first, each side in counter slot order
        ms = s.ms
        for i in range(2):
            q = p if i == 0 else other(p)
            for m in range(ms.shape[1]):
                if ms[b, m, MS_STATUS] == MI_NONE or ms[b, m, MS_OWNER] != q:
                    continue
                mc = ms[b, m, MS_CELL]
                if reach_reason(cfg, w, arcs, fc, facing, mc) != OK or line_reason(s, cfg, b, fc, mc) != OK:
                    continue
                hit_missile(s, b, m, roll_weapon_damage(s, cfg, b, w, fc, mc))
