"""Talon movement (rulebook section 7): who may move, straight moves, turns and side
slips, collisions with friendly ships (7.4) and the moving map (7.5); afterburners (10.2)
where they let a ship move."""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (ARC_FRONT, ARC_LEFT, ARC_RIGHT, G_COLL_ARC, G_COLL_MOVER, G_COLL_ORIGIN, G_COLL_OTHER,
                     G_COLL_QUEUE, G_COLL_RESUME, G_IMPULSE, G_MOVE_PLAYER, G_TILES, K_COLS, K_ROWS, M_SLIP_LEFT,
                     M_SLIP_RIGHT, M_STRAIGHT, M_TURN_LEFT, M_TURN_RIGHT, OK, R_HELM_DOWN, R_MOVED, R_NO_AFTERBURNER,
                     R_NO_SHIP, R_NO_SLIP, R_TURN_MARKER, SH_AB_LEFT, SH_AB_NOW, SH_CELL, SH_C_HELM, SH_FACING,
                     SH_MOVED, SH_REINF, SH_SLIP, SH_TURN_LEFT, SS_RETREATED, ST_MOVE, ST_ROUND_END, TK_ASTEROID, TK_BLACK_HOLE,
                     TK_NEBULA, TK_NONE, TK_PLANET, TK_WORM_HOLE, config_view)
from .ships import DQ, DR, active, axial_distance, from_axial, is_squadron, leave_play, must_move, to_axial, turn_radius
from .fire import damage, destroy
from .terrain import shift_tiles, tile_at
# --- Talon 13 missiles ---
from .layout import K_MISSILES
from .missiles import shift_missiles, ship_entered
from .bases import base_collision_free, base_move_reason


# ---------------------------------------------------------------------------------
# The moving map (Talon 7.5)
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def best_shift(s, cfg, b, extra_q, extra_r):
    """The translation that fits every ship and the hex about to be entered on
    the map and centres them best; (0, 0, False) when none exists (Talon 7.5.1).

    In doubled-width coordinates (x2 = 2q + r = 2 col + row parity) a hex is on
    the odd-r map iff 0 <= x2 <= 2 cols - 1 and 0 <= r <= rows - 1, so only the
    bounding box of the pieces matters; a translation (dq, dr) adds 2 dq + dr to x2."""
    rows = cfg.k[K_ROWS]
    cols = cfg.k[K_COLS]
    sh = s.sh
    xmin = 2 * extra_q + extra_r
    xmax = xmin
    ymin = extra_r
    ymax = extra_r
    for p in range(2):
        for k in range(sh.shape[2]):
            if active(sh, b, p, k):
                q, r = to_axial(sh[b, p, k, SH_CELL], cols)
                x2 = 2 * q + r
                xmin = min(xmin, x2)
                xmax = max(xmax, x2)
                ymin = min(ymin, r)
                ymax = max(ymax, r)
    best = 1 << 60
    bq = 0
    br = 0
    found = False
    for dr in range(-ymin, rows - ymax):
        for dq in range(-(cols + rows), cols + rows + 1):
            dx = 2 * dq + dr
            if xmin + dx < 0 or xmax + dx > 2 * cols - 1:
                continue
            # distance of the box centre from the map centre (x in half hexes, y in rows)
            cx = (xmin + xmax + 2 * dx) - (2 * (cols - 1) + 1)
            cy = (ymin + ymax + 2 * dr) - (rows - 1)
            score = (cx * cx + 3 * cy * cy) * 1000 + abs(dq) + abs(dr)
            if score < best:
                best = score
                bq = dq
                br = dr
                found = True
    return bq, br, found


@kernel(cache=True)
def apply_shift(s, cfg, b, dq, dr):
    rows = cfg.k[K_ROWS]
    cols = cfg.k[K_COLS]
    sh = s.sh
    for p in range(2):
        for k in range(sh.shape[2]):
            if active(sh, b, p, k):
                q, r = to_axial(sh[b, p, k, SH_CELL], cols)
                sh[b, p, k, SH_CELL] = from_axial(q + dq, r + dr, rows, cols)
    if s.g[b, G_TILES] > 0:
        shift_tiles(s, cfg, b, dq, dr)      # 7.5.3 terrain moves with the map
    if cfg.k[K_MISSILES]:
        shift_missiles(s, cfg, b, dq, dr)   # Talon 13.4 missiles too; off the map they are destroyed


@kernel(cache=True)
def forced_withdrawal(s, cfg, b):
    """Ships 6 or more hexes from the nearest other ship leave the battle (Talon 7.5.2)."""
    cols = cfg.k[K_COLS]
    sh = s.sh
    S = sh.shape[2]
    gone = np.zeros((2, S), dtype=np.bool_)
    any_gone = False
    for p in range(2):
        for k in range(S):
            if not active(sh, b, p, k):
                continue
            q1, r1 = to_axial(sh[b, p, k, SH_CELL], cols)
            near = 1 << 30
            for p2 in range(2):
                for k2 in range(S):
                    if (p2 == p and k2 == k) or not active(sh, b, p2, k2):
                        continue
                    q2, r2 = to_axial(sh[b, p2, k2, SH_CELL], cols)
                    near = min(near, axial_distance(q1, r1, q2, r2))
            if near >= 6:
                gone[p, k] = True
                any_gone = True
    for p in range(2):
        for k in range(S):
            if gone[p, k]:
                leave_play(sh, b, p, k, SS_RETREATED)
    return any_gone


# ---------------------------------------------------------------------------------
# Who may move, and how (Talon 7.1-7.3, 10.2)
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def must_still_move(s, cfg, b, p, k):
    """Ship ``k`` has its speed in this impulse's box and has not moved yet (Talon 7.1)."""
    sh = borrow(s.sh)
    return (active(sh, b, p, k) and not sh[b, p, k, SH_MOVED]
            and must_move(sh, cfg, b, p, k, borrow(s.g)[b, G_IMPULSE]))


@kernel(cache=True, inline="always")
def may_move(s, cfg, b, p, k):
    """0 if ship ``k`` may move now: it must (Talon 7.1) or can burn an afterburner (10.2)."""
    sh = borrow(s.sh)
    if not active(sh, b, p, k):
        return R_NO_SHIP
    r = base_move_reason(sh, cfg, b, p, k)           # Talon 14 a base does not move
    if r != OK:
        return r
    if sh[b, p, k, SH_MOVED]:
        return R_MOVED
    if must_move(sh, cfg, b, p, k, borrow(s.g)[b, G_IMPULSE]):
        return OK
    if sh[b, p, k, SH_AB_LEFT] > 0:
        return OK
    return R_NO_AFTERBURNER


@kernel(cache=True, inline="always")
def move_kind_reason(s, cfg, b, p, k, m):
    """May ship ``k``, which may move (may_move), make move ``m`` (Talon 7.1-7.3, critical 4)?"""
    sh = borrow(s.sh)
    if m == M_STRAIGHT:
        return OK
    if sh[b, p, k, SH_C_HELM] > 0:
        return R_HELM_DOWN  # critical 4: straight only
    if m == M_TURN_LEFT or m == M_TURN_RIGHT:
        return OK if sh[b, p, k, SH_TURN_LEFT] == 0 else R_TURN_MARKER
    return OK if sh[b, p, k, SH_SLIP] else R_NO_SLIP


@kernel(cache=True, inline="always")
def move_reason(s, cfg, b, p, k, m):
    r = may_move(s, cfg, b, p, k)
    if r != OK:
        return r
    return move_kind_reason(s, cfg, b, p, k, m)


# ---------------------------------------------------------------------------------
# Moving one hex; collisions (Talon 7.1-7.4)
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def move_heading(facing, m):
    """(facing after, direction of the hex entered, arc it is entered through) of move ``m`` by a
    ship facing ``facing``: straight ahead; a turn rotates one hexside, then advances (7.2.1); a
    side slip enters the hex ahead-left or ahead-right, the facing unchanged (7.3.1)."""
    f = facing
    if m == M_TURN_LEFT:
        f = (facing + 1) % 6
    elif m == M_TURN_RIGHT:
        f = (facing + 5) % 6
    if m == M_SLIP_LEFT:
        return f, (facing + 1) % 6, ARC_LEFT
    if m == M_SLIP_RIGHT:
        return f, (facing + 5) % 6, ARC_RIGHT
    return f, f, ARC_FRONT


@kernel(cache=True)
def apply_move(s, cfg, b, p, k, m):
    """Move one hex: straight, turn (rotate then advance, 7.2.1) or side slip (7.3.1).

    Returns True if the ship ended in a friendly ship's hex (collision, 7.4)."""
    g = borrow(s.g)
    sh = borrow(s.sh)
    if not must_move(sh, config_view(cfg), b, p, k, g[b, G_IMPULSE]):   # views: see layout.py
        sh[b, p, k, SH_AB_LEFT] -= 1                  # 10.2.2 afterburner
        sh[b, p, k, SH_AB_NOW] = 1
    sh[b, p, k, SH_MOVED] = 1
    f, d, arc = move_heading(sh[b, p, k, SH_FACING], m)
    origin = step_one_hex(s, cfg, b, p, k, d)
    if origin < 0:
        return False
    sh[b, p, k, SH_FACING] = f
    # 7.2.2 turn marker: placed turn-radius hexes ahead after a turn; each
    # straight move or side slip brings it one hex closer (7.3.2).
    if m == M_TURN_LEFT or m == M_TURN_RIGHT:
        sh[b, p, k, SH_TURN_LEFT] = turn_radius(sh, config_view(cfg), b, p, k)
    elif sh[b, p, k, SH_TURN_LEFT] > 0:
        sh[b, p, k, SH_TURN_LEFT] -= 1
    sh[b, p, k, SH_SLIP] = 0                          # 7.3.2 removed at the next move, used or not
    if g[b, G_TILES] > 0:
        enter_hex(s, cfg, b, p, k, origin)            # 17-19 terrain
    if borrow(cfg.k)[K_MISSILES]:
        ship_entered(s, cfg, b, p, k, origin)         # Talon 13.5 into a missile tracking it
    return queue_collisions(s, cfg, b, p, k, origin, arc, ST_MOVE)


@kernel(cache=True)
def step_one_hex(s, cfg, b, p, k, d):
    """Ship ``k`` of player ``p`` enters the next hex in direction ``d``, its facing unchanged
    (a move, 7.1-7.3, or a wave cannon's push, 15.1.2).  Off the map, the map moves first
    (7.5.1), after a forced withdrawal if there is no room (7.5.2).  Returns the hex it came
    from (as the map now is), or -1 when the ship is no longer in play."""
    sh = s.sh
    rows = cfg.k[K_ROWS]
    cols = cfg.k[K_COLS]
    q, r = to_axial(sh[b, p, k, SH_CELL], cols)
    nq = q + DQ[d]
    nr = r + DR[d]
    if from_axial(nq, nr, rows, cols) < 0:
        # 7.5.1 the moving map: shift everything so there is room to move
        dq, dr, ok = best_shift(s, cfg, b, nq, nr)
        if not ok:
            forced_withdrawal(s, cfg, b)              # 7.5.2
            if not active(sh, b, p, k):
                return -1
            dq, dr, ok = best_shift(s, cfg, b, nq, nr)
            if not ok:
                # No room even after 7.5.2: the ship leaves the battle (RULES.md).
                leave_play(sh, b, p, k, SS_RETREATED)
                return -1
        apply_shift(s, cfg, b, dq, dr)
        q += dq
        r += dr
        nq += dq
        nr += dr
    sh[b, p, k, SH_CELL] = from_axial(nq, nr, rows, cols)
    return from_axial(q, r, rows, cols)


@kernel(cache=True)
def queue_collisions(s, cfg, b, p, k, origin, arc, resume):
    """Ship ``k`` entered its hex from ``origin``: queue the friendly ships there to collide
    with (Talon 7.4; nothing if the ship is no longer in play, 8.6.1; never a base or with a
    base, 14); the collisions are
    resolved from stage ``resume`` (movement, or the black hole's pull, 18.2).
    Returns True if there is one."""
    g = s.g
    sh = s.sh
    queue = 0
    cell = sh[b, p, k, SH_CELL]
    if active(sh, b, p, k):
        for j in range(sh.shape[2]):
            if j != k and active(sh, b, p, j) and sh[b, p, j, SH_CELL] == cell:
                if base_collision_free(sh, cfg, b, p, k, j):
                    continue                  # Talon 14 no collision damage with a base
                queue |= 1 << j
    g[b, G_COLL_MOVER] = k
    g[b, G_COLL_ORIGIN] = origin
    g[b, G_COLL_ARC] = arc
    g[b, G_COLL_QUEUE] = queue
    g[b, G_MOVE_PLAYER] = p
    g[b, G_COLL_RESUME] = resume
    return queue != 0


@kernel(cache=True)
def collide(s, cfg, b, mover_first):
    """3 damage to each ship on its shields facing the other (Talon 7.4), in the order chosen."""
    sh = s.sh
    p = s.g[b, G_MOVE_PLAYER]
    k = s.g[b, G_COLL_MOVER]
    j = s.g[b, G_COLL_OTHER]
    arc_mover = s.g[b, G_COLL_ARC]
    arc_other = cfg.arc_of[sh[b, p, j, SH_CELL], s.g[b, G_COLL_ORIGIN], sh[b, p, j, SH_FACING]]
    if mover_first:
        damage(s, cfg, b, p, k, arc_mover, 3)
        damage(s, cfg, b, p, j, arc_other, 3)
    else:
        damage(s, cfg, b, p, j, arc_other, 3)
        damage(s, cfg, b, p, k, arc_mover, 3)


@kernel(cache=True)
def next_collision(s, b):
    """Pop the next friendly ship the mover collides with; False when none is left.

    Talon 8.6.1 with 7.4: a destroyed ship is removed at once, so a mover destroyed
    by an earlier collision (or by the explosion that followed it) collides with
    nothing more, and a ship of the queue that is no longer in play is skipped."""
    g = s.g
    sh = s.sh
    p = g[b, G_MOVE_PLAYER]
    q = g[b, G_COLL_QUEUE]
    if not active(sh, b, p, g[b, G_COLL_MOVER]):
        q = 0
    while q != 0:
        j = 0
        while not (q >> j) & 1:
            j += 1
        q &= ~(1 << j)
        if active(sh, b, p, j):
            g[b, G_COLL_QUEUE] = q
            g[b, G_COLL_OTHER] = j
            return True
    g[b, G_COLL_QUEUE] = 0
    return False
# ---------------------------------------------------------------------------------
# Entering a terrain hex (Talon 17.2.1, 17.3, 17.4.1, 18.1, 19)
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def enter_hex(s, cfg, b, p, k, origin):
    """Ship ``k`` has just moved (or been pulled, 18.2) from hex ``origin`` into its hex.

    Planet or black hole: destroyed, its explosion hits the neighbours (17.2.1, 18.1); the
    enemy scores it (17.1 "contano per il calcolo della vittoria").  Worm hole: it leaves
    the battle at once, retreated (19).  Asteroids: 1 damage on "lo scudo impattato", the
    arc facing the way it moved (17.3; shields down: the hull), never to fighters (17.3
    "ECCEZIONE: Caccia e missili non prendono *mai* danni dagli asteroidi").  Nebula: its reinforcement
    markers are destroyed (17.4.1)."""
    sh = s.sh
    cell = sh[b, p, k, SH_CELL]
    kind = tile_at(s, b, cell)
    if kind == TK_NONE:
        return
    if kind == TK_PLANET or kind == TK_BLACK_HOLE:
        destroy(s, cfg, b, p, k)
    elif kind == TK_WORM_HOLE:
        leave_play(sh, b, p, k, SS_RETREATED)
    elif kind == TK_ASTEROID and not is_squadron(sh, cfg, b, p, k):
        arc = cfg.arc_of[origin, cell, sh[b, p, k, SH_FACING]] if origin != cell else ARC_FRONT
        damage(s, cfg, b, p, k, arc, 1)
    elif kind == TK_NEBULA:
        for a in range(4):
            sh[b, p, k, SH_REINF + a] = 0




@kernel(cache=True)
def pull_ship(s, cfg, b, p, k, cell):
    """A black hole pulls ship ``k`` one hex, into ``cell`` (Talon 18.2): its facing and
    turn marker stay as they are ("Le navi non cambiano direzione"); entering the hex has
    the usual effects (terrain, collisions with friendly ships, resolved at once)."""
    sh = s.sh
    origin = sh[b, p, k, SH_CELL]
    sh[b, p, k, SH_CELL] = cell
    arc = cfg.arc_of[origin, cell, sh[b, p, k, SH_FACING]]
    enter_hex(s, cfg, b, p, k, origin)
    if cfg.k[K_MISSILES]:
        ship_entered(s, cfg, b, p, k, origin)         # Talon 13.5
    return queue_collisions(s, cfg, b, p, k, origin, arc, ST_ROUND_END)
