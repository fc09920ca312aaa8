"""VISTA DEI MODELLI and AREA DI CONTROLLO: front arc, line of sight, cover, overlapping models.

Reading (RULES.md "Vista"): three sight lines run from the viewer's centre (its head) to
the target's centre and to two points at 80 % of its radius on either side; "basta una
minima parte": the target is in sight when one line is free and obscured (-1) when one
line is blocked or passes through terrain that does not block.  Impassable pieces at
least as tall as the lower of viewer and target block; lower pieces and rough terrain
obscure.  A piece the viewer's own base touches is its cover, not an obstacle.  Models
block lines through their bases, except the viewer's allies inside its control area.
"""
from __future__ import annotations

import math

import numba as nb

from ..core.geometry import bbox_gap, point_polygon_within, ray_hits_circle, segment_crosses_polygon, point_segment_distance
from ..core.structs import local_i32
from .general import has_flag, height, in_control_area, is_active, radius
from .layout import (F_HIDDEN, MD_FLAGS, N_SLOTS, T_IMPASSABLE, T_NONE, T_MAX, TI_HEIGHT, TI_KIND, TI_NVERT, MAX_SMOKE)

SEEN = 1
OBSCURED = 2
SMOKE = 4
COVERED_BY_ENEMY = 8      # the centre line passes a base of the target's side (Modelli Sovrapposti)
ALLY_IN_WAY = 16          # ... a base of the viewer's side outside its control area: no action
SMOKE_RADIUS = 4.0        # FUMOGENO: "un'area di 4cm (misurata dai bordi)"; the marker counted as a point
CONTACT_TOL = 0.5         # a base within 0.5 cm of a scenic element is "a contatto"


@nb.njit(cache=True)
def in_front_arc(s, cfg, b, side, i, tx, ty, tr):
    """Tutti i modelli vedono a 180°: some part of the base at (tx, ty) lies in the front half."""
    f = s.pos[b, side, i, 2]
    dx = tx - s.pos[b, side, i, 0]
    dy = ty - s.pos[b, side, i, 1]
    return dx * math.cos(f) + dy * math.sin(f) >= -tr


@nb.njit(cache=True)
def touches_terrain(s, b, t, x, y, r):
    k = s.tinfo[b, t, TI_KIND]
    if k == T_NONE:
        return False
    return point_polygon_within(x, y, s.terr[b, t], s.tinfo[b, t, TI_NVERT], r + CONTACT_TOL + 1e-6)


@nb.njit(cache=True)
def touching_any_terrain(s, b, x, y, r):
    for t in range(T_MAX):
        if touches_terrain(s, b, t, x, y, r):
            return True
    return False


@nb.njit(cache=True)
def _line(s, cfg, b, side, i, ts, ti, ax, ay, bx, by, low, pieces, n_pieces, models, n_models):
    """One sight line: 0 free, 1 obscured, 2 blocked; +4 through smoke; +8/+16 covered by a base.
    ``pieces`` / ``models`` are the candidates near the whole fan of lines (see sight)."""
    vr = radius(s, cfg, b, side, i)
    out = 0
    for q in range(n_pieces):
        t = pieces[q]
        kind = s.tinfo[b, t, TI_KIND]
        n = s.tinfo[b, t, TI_NVERT]
        if not segment_crosses_polygon(ax, ay, bx, by, s.terr[b, t], n):
            continue
        if point_polygon_within(ax, ay, s.terr[b, t], n, vr + CONTACT_TOL + 1e-6):
            continue  # the viewer's own cover
        if kind == T_IMPASSABLE and s.tinfo[b, t, TI_HEIGHT] >= low:
            return 2
        out = 1
    for q in range(MAX_SMOKE):
        if s.smoke[b, q, 2] > 0 and point_segment_distance(s.smoke[b, q, 0], s.smoke[b, q, 1], ax, ay, bx, by) \
                <= SMOKE_RADIUS:
            out |= 4
    for q in range(n_models):
        os = models[q] // N_SLOTS
        j = models[q] % N_SLOTS
        if not ray_hits_circle(ax, ay, bx, by, s.pos[b, os, j, 0], s.pos[b, os, j, 1], radius(s, cfg, b, os, j)):
            continue
        if os == side:
            if in_control_area(s, cfg, b, side, i, os, j):
                continue  # allies inside the control area are ignored for sight
            return 2 | 16
        return 2 | 8
    return out


@nb.njit(cache=True)
def sight(s, cfg, b, side, i, ts, ti, need_arc):
    """Bits SEEN, OBSCURED, SMOKE, COVERED_BY_ENEMY, ALLY_IN_WAY of model (side, i) looking at
    (ts, ti).  Hidden targets are out of sight (NASCOSTO)."""
    if has_flag(s, b, ts, ti, F_HIDDEN):
        return 0
    ax, ay = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    tx, ty = s.pos[b, ts, ti, 0], s.pos[b, ts, ti, 1]
    tr = radius(s, cfg, b, ts, ti)
    if need_arc and not in_front_arc(s, cfg, b, side, i, tx, ty, tr):
        return 0
    low = min(height(s, cfg, b, side, i), height(s, cfg, b, ts, ti))
    # candidates: terrain pieces and bases whose boxes meet the box of the three lines
    x0, x1 = min(ax, tx - tr), max(ax, tx + tr)
    y0, y1 = min(ay, ty - tr), max(ay, ty + tr)
    pieces = local_i32(32)
    n_pieces = 0
    for t in range(T_MAX):
        if s.tinfo[b, t, TI_KIND] == T_NONE:
            continue
        if bbox_gap(x0, y0, x1, y1, s.terr[b, t], s.tinfo[b, t, TI_NVERT]) > 0.0:
            continue
        pieces[n_pieces] = t
        n_pieces += 1
    models = local_i32(16)
    n_models = 0
    for os in range(2):
        for j in range(N_SLOTS):
            if (os == side and j == i) or (os == ts and j == ti) or not is_active(s, b, os, j):
                continue
            mx, my = s.pos[b, os, j, 0], s.pos[b, os, j, 1]
            mr = radius(s, cfg, b, os, j)
            if mx + mr < x0 or mx - mr > x1 or my + mr < y0 or my - mr > y1:
                continue
            models[n_models] = os * N_SLOTS + j
            n_models += 1
    dx, dy = tx - ax, ty - ay
    L = math.hypot(dx, dy)
    px, py = (-dy / L, dx / L) if L > 1e-9 else (0.0, 0.0)
    seen = False
    obscured = False
    extra = 0
    for k in range(3):
        off = 0.0 if k == 0 else (0.8 * tr if k == 1 else -0.8 * tr)
        r = _line(s, cfg, b, side, i, ts, ti, ax, ay, tx + px * off, ty + py * off, low, pieces, n_pieces,
                  models, n_models)
        if k == 0:
            extra |= r & (8 | 16)
        if r & 4:
            extra |= SMOKE
        if (r & 3) == 2:
            obscured = True
        else:
            seen = True
            if (r & 3) == 1:
                obscured = True
    if not seen:
        return 0
    return SEEN | (OBSCURED if obscured else 0) | extra


@nb.njit(cache=True)
def first_model_on_line(s, cfg, b, side, i, ts, ti):
    """Modelli Sovrapposti: the model of the target's side nearest the viewer on the centre line."""
    ax, ay = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    bx, by = s.pos[b, ts, ti, 0], s.pos[b, ts, ti, 1]
    best, best_d = ti, 1e30
    for j in range(N_SLOTS):
        if j == ti or not is_active(s, b, ts, j) or has_flag(s, b, ts, j, F_HIDDEN):
            continue
        if ray_hits_circle(ax, ay, bx, by, s.pos[b, ts, j, 0], s.pos[b, ts, j, 1], radius(s, cfg, b, ts, j)):
            d = math.hypot(s.pos[b, ts, j, 0] - ax, s.pos[b, ts, j, 1] - ay)
            if d < best_d:
                best, best_d = j, d
    return best


@nb.njit(cache=True)
def reveal_hidden(s, cfg, b):
    """AREA DI CONTROLLO: "i modelli nascosti entro tale area vengono individuati"."""
    for side in range(2):
        for i in range(N_SLOTS):
            if not has_flag(s, b, side, i, F_HIDDEN):
                continue
            for j in range(N_SLOTS):
                if in_control_area(s, cfg, b, 1 - side, j, side, i):
                    s.md[b, side, i, MD_FLAGS] &= ~F_HIDDEN
                    break


@nb.njit(cache=True)
def can_see_any(s, cfg, b, side, i, ts, ti):
    """In sight (front arc) or inside the control area (for reactions and charges)."""
    if in_control_area(s, cfg, b, side, i, ts, ti) and not has_flag(s, b, ts, ti, F_HIDDEN):
        return True
    return (sight(s, cfg, b, side, i, ts, ti, True) & SEEN) != 0
