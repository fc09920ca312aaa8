"""IL CAMPO DI BATTAGLIA and IN BATTAGLIA: terrain, missions, exploration, deployment,
initiative, the end of the game.
"""
from __future__ import annotations

import math

from ..core.kernel import kernel
from ..core.geometry import box_gap, point_polygon_distance, point_polygon_within, point_polygon_within_boxed
from .sight import piece_box, terrain_boxes_ready
from ..core.rng import draw_int
from .general import is_active, on_table, radius, stat
from .layout import (ACTIVE, G_ASSASSIN0, G_BASE0, G_CMD0, G_EDGE0, G_MISSION, G_NOBJ, G_RESERVE_PLACING, K_FIXED_TABLE,
                     K_N_FIXED, M_ASSASSINATION, M_BASES, M_EXTERMINATION, M_OBJECTIVES, M_PATROL, MAX_OBJ,
                     MD_STATUS, N_SLOTS, OK, OOC, PF_RULES, R_DEPLOY_ENEMY, R_DEPLOY_ZONE, R_IMPASSABLE,
                     R_BASES_CROSS, R_NEAR_ENEMY, R_OBJ_SPOT, RESERVE, REMOVED, SR_INFILTRATE, T_IMPASSABLE, T_MAX,
                     T_NONE, T_ROUGH, TABLE_CM, TI_EXPLORED, TI_HEIGHT, TI_KIND, TI_NVERT)
from .psychology import losses

DEPLOY_DEPTH = 20.0     # SCHIERAMENTO: "entro i 20 cm dal bordo"
DEPLOY_GAP = 30.0       # "mai ... a meno di 30 cm da un modello avversario"
HOLD_RANGE = 6.0        # OBIETTIVI / BASI: "entro 6 cm"


# -- terrain -------------------------------------------------------------------------------
@kernel(cache=True)
def _uniform(s, b, lo, hi):
    return lo + (hi - lo) * draw_int(s.rng, b, 1 << 20) / float(1 << 20)


@kernel(cache=True)
def _add_piece(s, b, t, cx, cy, hw, hh, ang, kind, h):
    c, sn = math.cos(ang), math.sin(ang)
    for v in range(4):
        x = hw if (v == 0 or v == 3) else -hw
        y = hh if v < 2 else -hh
        s.terr[b, t, v, 0] = cx + x * c - y * sn
        s.terr[b, t, v, 1] = cy + x * sn + y * c
    s.tinfo[b, t, TI_KIND] = kind
    s.tinfo[b, t, TI_HEIGHT] = h
    s.tinfo[b, t, TI_EXPLORED] = 0
    s.tinfo[b, t, TI_NVERT] = 4


@kernel(cache=True)
def _free_spot(s, b, n, cx, cy, rad):
    for t in range(n):
        ox = (s.terr[b, t, 0, 0] + s.terr[b, t, 2, 0]) / 2
        oy = (s.terr[b, t, 0, 1] + s.terr[b, t, 2, 1]) / 2
        orad = math.hypot(s.terr[b, t, 0, 0] - ox, s.terr[b, t, 0, 1] - oy)
        if math.hypot(cx - ox, cy - oy) < rad + orad + 4.0:
            return False
    return True


@kernel(cache=True)
def generate_terrain(s, cfg, b):
    """DISPOSIZIONE: "per ogni 40 cm quadrati di campo posiziona D3 elementi scenici di diversa
    grandezza", read as D3 pieces in each 40x40 cm square (RULES.md); pieces are rectangles
    4-12 cm a side at any angle, rough (3 in 5) or impassable, kept 4 cm apart.
    PATTUGLIAMENTO: three equal rough pieces in each quarter of the table.  A fixed table
    (option ``table``) is copied instead.  The layout draws from the game's random stream,
    never from scripted dice."""
    for t in range(T_MAX):
        s.tinfo[b, t, TI_KIND] = T_NONE
        s.tinfo[b, t, TI_NVERT] = 0
        s.tinfo[b, t, TI_EXPLORED] = 0
        s.tinfo[b, t, TI_HEIGHT] = 0
        for v in range(4):
            s.terr[b, t, v, 0] = 0.0
            s.terr[b, t, v, 1] = 0.0
    if cfg.k[K_FIXED_TABLE]:
        for t in range(cfg.k[K_N_FIXED]):
            for v in range(4):
                s.terr[b, t, v, 0] = cfg.fixed_terr[t, v, 0]
                s.terr[b, t, v, 1] = cfg.fixed_terr[t, v, 1]
            for c in range(4):
                s.tinfo[b, t, c] = cfg.fixed_tinfo[t, c]
        return
    n = 0
    if s.g[b, G_MISSION] == M_PATROL:
        for q in range(4):
            x0 = 60.0 * (q % 2)
            y0 = 60.0 * (q // 2)
            for _k in range(3):
                for _try in range(30):
                    cx = _uniform(s, b, x0 + 8, x0 + 52)
                    cy = _uniform(s, b, y0 + 8, y0 + 52)
                    if _free_spot(s, b, n, cx, cy, 5.7):
                        _add_piece(s, b, n, cx, cy, 4.0, 4.0, _uniform(s, b, 0, math.pi), T_ROUGH, 2)
                        n += 1
                        break
        return
    for sq in range(9):
        x0 = 40.0 * (sq % 3)
        y0 = 40.0 * (sq // 3)
        pieces = 1 + draw_int(s.rng, b, 3)
        for _k in range(pieces):
            for _try in range(10):
                hw = _uniform(s, b, 2.0, 6.0)
                hh = _uniform(s, b, 2.0, 6.0)
                rad = math.hypot(hw, hh)
                cx = _uniform(s, b, x0 + rad, x0 + 40 - rad)
                cy = _uniform(s, b, y0 + rad, y0 + 40 - rad)
                if n < T_MAX and _free_spot(s, b, n, cx, cy, rad):
                    rough = draw_int(s.rng, b, 5) < 3
                    _add_piece(s, b, n, cx, cy, hw, hh, _uniform(s, b, 0, math.pi),
                               T_ROUGH if rough else T_IMPASSABLE, 2 if rough else 2 + draw_int(s.rng, b, 7))
                    n += 1
                    break


# -- deployment ------------------------------------------------------------------------------
@kernel(cache=True)
def edge_is_low(s, b, side):
    """Does ``side`` deploy along y = 0 (its table edge)?"""
    return (s.g[b, G_EDGE0] == 0) == (side == 0)


@kernel(cache=True)
def in_zone(s, b, side, y, r):
    if edge_is_low(s, b, side):
        return y + r <= DEPLOY_DEPTH + 1e-4
    return y - r >= TABLE_CM - DEPLOY_DEPTH - 1e-4


@kernel(cache=True)
def spot_reason(s, cfg, b, side, i, x, y):
    """SCHIERAMENTO (and LE RISERVE when a reserve enters): where (side, i) may be placed."""
    r = radius(s, cfg, b, side, i)
    reserve = s.g[b, G_RESERVE_PLACING] != 0
    infiltrator = (stat(s, cfg, b, side, i, PF_RULES) & SR_INFILTRATE) != 0 and not reserve
    if not infiltrator and not in_zone(s, b, side, y, r):
        return R_DEPLOY_ZONE
    terrain_boxes_ready(s, b)
    for t in range(T_MAX):
        if s.tinfo[b, t, TI_KIND] != T_IMPASSABLE:
            continue
        px0, px1, py0, py1 = piece_box(s, b, t)
        if box_gap(x, y, x, y, px0, px1, py0, py1) >= r:
            continue    # (point_polygon_within_boxed's own first test, here to spare the call)
        if point_polygon_within_boxed(x, y, s.terr[b, t], s.tinfo[b, t, TI_NVERT], r, px0, px1, py0, py1):
            return R_IMPASSABLE
    for os in range(2):
        for j in range(N_SLOTS):
            if (os == side and j == i) or not on_table(s, b, os, j):
                continue
            gap = math.hypot(x - s.pos[b, os, j, 0], y - s.pos[b, os, j, 1]) - r - radius(s, cfg, b, os, j)
            if gap < 0:
                return R_BASES_CROSS
            if os != side:
                if reserve and gap < 1.0:
                    return R_NEAR_ENEMY
                if not reserve and gap < DEPLOY_GAP:
                    return R_DEPLOY_ENEMY   # INFILTRAZIONE too: "a più di 30 cm da un modello avversario"
    return OK


@kernel(cache=True)
def objective_reason(s, cfg, b, x, y):
    terrain_boxes_ready(s, b)
    for t in range(T_MAX):
        if s.tinfo[b, t, TI_KIND] != T_IMPASSABLE:
            continue
        # (a point 1 mm outside a piece's box is outside the piece: the box test first)
        px0, px1, py0, py1 = piece_box(s, b, t)
        if box_gap(x, y, x, y, px0, px1, py0, py1) < 0.1 and \
                point_polygon_distance(x, y, s.terr[b, t], s.tinfo[b, t, TI_NVERT]) <= 0:
            return R_IMPASSABLE
    for q in range(s.g[b, G_NOBJ]):
        if s.objs[b, q, 2] > 0 and abs(s.objs[b, q, 0] - x) < 1e-3 and abs(s.objs[b, q, 1] - y) < 1e-3:
            return R_OBJ_SPOT
    return OK


@kernel(cache=True)
def base_piece_ok(s, b, side, t):
    """BASI: "un elemento scenico entro la propria area di schieramento" (some part of it)."""
    if s.tinfo[b, t, TI_KIND] == T_NONE:
        return False
    for v in range(s.tinfo[b, t, TI_NVERT]):
        if in_zone(s, b, side, s.terr[b, t, v, 1], 0.0):
            return True
    return False


# -- victory -----------------------------------------------------------------------------------
@kernel(cache=True)
def _holds(s, cfg, b, side, x, y, t):
    """OBIETTIVI / BASI: a model of ``side`` within 6 cm and no enemy within 6 cm (of the point
    (x, y), or of terrain piece t when t >= 0)."""
    mine = False
    for os in range(2):
        for j in range(N_SLOTS):
            if not is_active(s, b, os, j):
                continue
            px, py = s.pos[b, os, j, 0], s.pos[b, os, j, 1]
            if t >= 0:
                d = point_polygon_distance(px, py, s.terr[b, t], s.tinfo[b, t, TI_NVERT])
            else:
                d = math.hypot(px - x, py - y)
            if d - radius(s, cfg, b, os, j) <= HOLD_RANGE:
                if os == side:
                    mine = True
                else:
                    return False
    return mine


@kernel(cache=True)
def mission_score(s, cfg, b, side):
    m = s.g[b, G_MISSION]
    if m == M_PATROL:
        n = 0
        for t in range(T_MAX):
            if s.tinfo[b, t, TI_EXPLORED] == side + 1:
                n += 1
        return n
    if m == M_OBJECTIVES:
        n = 0
        for q in range(s.g[b, G_NOBJ]):
            if s.objs[b, q, 2] > 0 and _holds(s, cfg, b, side, s.objs[b, q, 0], s.objs[b, q, 1], -1):
                n += 1
        return n
    if m == M_BASES:
        t = s.g[b, G_BASE0 + 1 - side]
        return 1 if t >= 0 and _holds(s, cfg, b, side, 0.0, 0.0, t) else 0
    if m == M_ASSASSINATION:
        c = s.g[b, G_ASSASSIN0 + 1 - side]
        return 1 if c >= 0 and not is_active(s, b, 1 - side, c) and s.md[b, 1 - side, c, MD_STATUS] != RESERVE else 0
    return losses(s, b, 1 - side)   # STERMINIO


@kernel(cache=True)
def sudden_end(s, cfg, b):
    """-1 = play on; else the winner (0, 1) or 2 for a draw: a side with nothing left to fight
    loses; ASSASSINIO ends as soon as a commander falls."""
    alive0 = 0
    alive1 = 0
    for i in range(N_SLOTS):
        st = s.md[b, 0, i, MD_STATUS]
        if st == ACTIVE or st == RESERVE:
            alive0 += 1
        st = s.md[b, 1, i, MD_STATUS]
        if st == ACTIVE or st == RESERVE:
            alive1 += 1
    if alive0 == 0 and alive1 == 0:
        return 2
    if alive0 == 0:
        return 1
    if alive1 == 0:
        return 0
    if s.g[b, G_MISSION] == M_ASSASSINATION:
        k0 = mission_score(s, cfg, b, 0)
        k1 = mission_score(s, cfg, b, 1)
        if k0 and k1:
            return 2
        if k0:
            return 0
        if k1:
            return 1
    return -1


@kernel(cache=True)
def final_result(s, cfg, b):
    """MISSIONI: at the end of the turns the higher score wins, else a draw."""
    a = mission_score(s, cfg, b, 0)
    c = mission_score(s, cfg, b, 1)
    if a > c:
        return 0
    if c > a:
        return 1
    return 2
