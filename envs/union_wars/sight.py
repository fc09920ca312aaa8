"""VISTA DEI MODELLI and AREA DI CONTROLLO: front arc, line of sight, cover, overlapping models.

Reading (RULES.md "Vista"): three sight lines run from the viewer's centre (its head) to
the target's centre and to two points at 80 % of its radius on either side; "basta una
minima parte": the target is in sight when one line is free and obscured (-1) when one
line is blocked or passes through terrain that does not block.  Impassable pieces at
least as tall as the lower of viewer and target block; lower pieces and rough terrain
obscure.  A piece the viewer's own base touches is its cover, not an obstacle.  Models
block lines through their bases, except the viewer's allies inside its control area.

The sight cache: the lines of a pair of models depend only on the terrain, the smoke markers,
where the models stand, which are active and how far their control areas reach.  ``sight``
keeps each pair's answer in the state (``geo``, layout.GEO_VIS) with those inputs (GEO_KEY), checks the
inputs at every query (a few dozen comparisons against 2-3 microseconds of sight lines) and
forgets every answer when one of them changed, so a cached answer is always the one a fresh
computation gives.  The terrain is fixed after setup: whatever writes it (the generator, a
scenario) calls ``forget_sight``.  The front arc and NASCOSTO are checked before the cache.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.kernel import kernel
from ..core.geometry import (box_gap, box_of, point_polygon_within, point_polygon_within_boxed,
                             point_segment_distance, ray_hits_circle,
                             segment_crosses_polygon_boxed)
from ..core.structs import local_i32
from .general import control_range, has_flag, height, in_control_area, is_active, radius
from .layout import (F_HIDDEN, MD_FLAGS, N_SLOTS, N_VIS_KEY, T_IMPASSABLE, T_NONE, T_MAX, TI_HEIGHT, TI_KIND,
                     TI_NVERT, MAX_SMOKE, VIS_UNKNOWN, GEO_BOX, GEO_BOXED, GEO_KEY, GEO_VALID, GEO_VIS,
                     N_GEO)

SEEN = 1
OBSCURED = 2
SMOKE = 4
COVERED_BY_ENEMY = 8      # the centre line passes a base of the target's side (Modelli Sovrapposti)
ALLY_IN_WAY = 16          # ... a base of the viewer's side outside its control area: no action
SMOKE_RADIUS = 4.0        # FUMOGENO: "un'area di 4cm (misurata dai bordi)"; the marker counted as a point
CONTACT_TOL = 0.5         # a base within 0.5 cm of a scenic element is "a contatto"


@kernel(cache=True, inline="always")
def in_front_arc(s, cfg, b, side, i, tx, ty, tr):
    """Tutti i modelli vedono a 180°: some part of the base at (tx, ty) lies in the front half."""
    f = s.pos[b, side, i, 2]
    dx = tx - s.pos[b, side, i, 0]
    dy = ty - s.pos[b, side, i, 1]
    return dx * math.cos(f) + dy * math.sin(f) >= -tr


@kernel(cache=True)
def touches_terrain(s, b, t, x, y, r):
    k = s.tinfo[b, t, TI_KIND]
    if k == T_NONE:
        return False
    return point_polygon_within(x, y, s.terr[b, t], s.tinfo[b, t, TI_NVERT], r + CONTACT_TOL + 1e-6)


@kernel(cache=True)
def touching_any_terrain(s, b, x, y, r):
    for t in range(T_MAX):
        if touches_terrain(s, b, t, x, y, r):
            return True
    return False


@kernel(cache=True)
def _line(s, cfg, b, side, i, ts, ti, ax, ay, bx, by, low, pieces, n_pieces, models, n_models):
    """One sight line: 0 free, 1 obscured, 2 blocked; +4 through smoke; +8/+16 covered by a base.
    ``pieces`` / ``models`` are the candidates near the whole fan of lines (see sight)."""
    vr = radius(s, cfg, b, side, i)
    out = 0
    for q in range(n_pieces):
        t = pieces[q]
        kind = s.tinfo[b, t, TI_KIND]
        n = s.tinfo[b, t, TI_NVERT]
        px0, px1, py0, py1 = piece_box(s, b, t)
        if not segment_crosses_polygon_boxed(ax, ay, bx, by, s.terr[b, t], n, px0, px1, py0, py1):
            continue
        if point_polygon_within_boxed(ax, ay, s.terr[b, t], n, vr + CONTACT_TOL + 1e-6, px0, px1, py0, py1):
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


@kernel(cache=True)
def forget_sight(s, b):
    """Drop every cached sight answer and terrain box of game ``b`` (the terrain changed)."""
    s.geo[b, GEO_VALID] = 0.0
    s.geo[b, GEO_BOXED] = 0.0


@kernel(cache=True, inline="always")
def piece_box(s, b, t):
    """The bounding box x0, x1, y0, y1 of terrain piece t (terrain_boxes_ready first)."""
    o = GEO_BOX + 4 * t
    return s.geo[b, o], s.geo[b, o + 1], s.geo[b, o + 2], s.geo[b, o + 3]


@kernel(cache=True, inline="always")
def pieces_meeting_box(s, b, x0, y0, x1, y1, pieces):
    """Write into ``pieces`` the terrain pieces whose bounding boxes meet the box x0..x1, y0..y1
    (terrain_boxes_ready first): the only ones a line inside that box can cross. Their count."""
    n = 0
    for t in range(T_MAX):
        if s.tinfo[b, t, TI_KIND] == T_NONE:
            continue
        px0, px1, py0, py1 = piece_box(s, b, t)
        if box_gap(x0, y0, x1, y1, px0, px1, py0, py1) > 0.0:
            continue
        pieces[n] = t
        n += 1
    return n


@kernel(cache=True)
def terrain_boxes_ready(s, b):
    """Make GEO_BOX hold the bounding box of every terrain piece (after forget_sight)."""
    if s.geo[b, GEO_BOXED] != 0.0:
        return
    for t in range(T_MAX):
        n = s.tinfo[b, t, TI_NVERT]
        if s.tinfo[b, t, TI_KIND] != T_NONE and n > 0:
            x0, x1, y0, y1 = box_of(s.terr[b, t], n)
            o = GEO_BOX + 4 * t
            s.geo[b, o] = x0
            s.geo[b, o + 1] = x1
            s.geo[b, o + 2] = y0
            s.geo[b, o + 3] = y1
    s.geo[b, GEO_BOXED] = 1.0


@kernel(cache=True, inline="always")
def _vis_index(side, i, ts, ti):
    return GEO_VIS + ((side * N_SLOTS + i) * 2 + ts) * N_SLOTS + ti


@kernel(cache=True, inline="always")
def _key_entry_same(geo, b, n, x, y, c, write):
    """Is the key's entry ``n`` (three floats) equal to (x, y, c)?  With ``write`` it is set to them."""
    same = geo[b, n] == x and geo[b, n + 1] == y and geo[b, n + 2] == c
    if write:
        geo[b, n] = x
        geo[b, n + 1] = y
        geo[b, n + 2] = c
    return same


@kernel(cache=True)
def _sight_key_same(s, cfg, b, write):
    """Do the cached answers hold for the table as it is now (the inputs of the sight lines are
    the ones they were computed from)?  With ``write`` the key is set to the table's."""
    same = s.geo[b, GEO_VALID] != 0.0
    n = GEO_KEY
    for side in range(2):
        for i in range(N_SLOTS):
            code = control_range(s, cfg, b, side, i) if is_active(s, b, side, i) else -2.0
            if not _key_entry_same(s.geo, b, n, s.pos[b, side, i, 0], s.pos[b, side, i, 1],
                                   np.float32(code), write):
                same = False
                if not write:
                    return False
            n += 3
    for q in range(MAX_SMOKE):
        on = s.smoke[b, q, 2] > 0
        x = s.smoke[b, q, 0] if on else np.float32(0.0)
        y = s.smoke[b, q, 1] if on else np.float32(0.0)
        if not _key_entry_same(s.geo, b, n, x, y, np.float32(1.0 if on else 0.0), write):
            same = False
            if not write:
                return False
        n += 3
    return same


@kernel(cache=True)
def _sight_cache_ready(s, cfg, b):
    """Make the cache match the table as it is now: keep it when no input of the sight lines
    changed since it was filled, else empty it."""
    terrain_boxes_ready(s, b)
    if _sight_key_same(s, cfg, b, False):
        return
    _sight_key_same(s, cfg, b, True)
    for q in range(GEO_VIS, N_GEO):
        s.geo[b, q] = VIS_UNKNOWN
    s.geo[b, GEO_VALID] = 1.0


@kernel(cache=True)
def sight_cache_mismatches(s, cfg, b):
    """(wrong, checked): the cached sight answers of game ``b`` that are current, compared with
    a fresh computation from scratch (the fuzz test's check that the cache is exact)."""
    if not _sight_key_same(s, cfg, b, False):
        return 0, 0      # the table changed since the last query: nothing cached is current
    saved = s.geo[b].copy()
    forget_sight(s, b)
    _sight_cache_ready(s, cfg, b)     # boxes the terrain again and empties the cache
    wrong, checked = 0, 0
    for side in range(2):
        for i in range(N_SLOTS):
            for ts in range(2):
                for ti in range(N_SLOTS):
                    v = saved[_vis_index(side, i, ts, ti)]
                    if v == VIS_UNKNOWN:
                        continue
                    checked += 1
                    if sight_lines(s, cfg, b, side, i, ts, ti) != v:
                        wrong += 1
    s.geo[b, :] = saved
    return wrong, checked


@kernel(cache=True)
def sight(s, cfg, b, side, i, ts, ti, need_arc):
    """Bits SEEN, OBSCURED, SMOKE, COVERED_BY_ENEMY, ALLY_IN_WAY of model (side, i) looking at
    (ts, ti).  Hidden targets are out of sight (NASCOSTO).  The sight lines come from the
    cache when nothing they depend on changed (module docstring)."""
    if has_flag(s, b, ts, ti, F_HIDDEN):
        return 0
    if need_arc and not in_front_arc(s, cfg, b, side, i, s.pos[b, ts, ti, 0], s.pos[b, ts, ti, 1],
                                     radius(s, cfg, b, ts, ti)):
        return 0
    _sight_cache_ready(s, cfg, b)
    q = _vis_index(side, i, ts, ti)
    v = s.geo[b, q]
    if v == VIS_UNKNOWN:
        r = sight_lines(s, cfg, b, side, i, ts, ti)
        s.geo[b, q] = r
        return r
    return np.int64(v)


@kernel(cache=True)
def sight_lines(s, cfg, b, side, i, ts, ti):
    """The three sight lines of (side, i) to (ts, ti), front arc and NASCOSTO aside; needs the
    terrain boxes (GEO_BOX) of the table as it is (sight makes sure of them)."""
    ax, ay = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    tx, ty = s.pos[b, ts, ti, 0], s.pos[b, ts, ti, 1]
    tr = radius(s, cfg, b, ts, ti)
    low = min(height(s, cfg, b, side, i), height(s, cfg, b, ts, ti))
    # candidates: terrain pieces and bases whose boxes meet the box of the three lines
    x0, x1 = min(ax, tx - tr), max(ax, tx + tr)
    y0, y1 = min(ay, ty - tr), max(ay, ty + tr)
    pieces = local_i32(32)
    n_pieces = pieces_meeting_box(s, b, x0, y0, x1, y1, pieces)
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


@kernel(cache=True)
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


@kernel(cache=True)
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


@kernel(cache=True)
def can_see_any(s, cfg, b, side, i, ts, ti):
    """In sight (front arc) or inside the control area (for reactions and charges)."""
    if in_control_area(s, cfg, b, side, i, ts, ti) and not has_flag(s, b, ts, ti, F_HIDDEN):
        return True
    return (sight(s, cfg, b, side, i, ts, ti, True) & SEEN) != 0


@kernel(cache=True)
def sight_to_point(s, cfg, b, side, i, px, py):
    """DA LANCIO at a point (RULES.md): the thrower's line to a point of the table.  Bits SEEN
    (the point is in the front arc and the line is not blocked by impassable terrain at least
    as tall as the thrower) and SMOKE (the line crosses a smoke marker: -1 to hit).  Models do
    not block it (a throw is lobbed over them); there is no OBSCURED: a point has no part to hide."""
    if not in_front_arc(s, cfg, b, side, i, px, py, 0.0):
        return 0
    terrain_boxes_ready(s, b)
    ax, ay = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    x0, x1 = min(ax, px), max(ax, px)
    y0, y1 = min(ay, py), max(ay, py)
    pieces = local_i32(32)
    n_pieces = pieces_meeting_box(s, b, x0, y0, x1, y1, pieces)
    models = local_i32(1)
    r = _line(s, cfg, b, side, i, side, i, ax, ay, px, py, height(s, cfg, b, side, i), pieces, n_pieces, models, 0)
    if (r & 3) == 2:
        return 0
    return SEEN | (SMOKE if r & 4 else 0)
