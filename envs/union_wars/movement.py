"""MOVIMENTO and everything that moves a model: paths, rough terrain, flight, charges, falling back.

Choices are discretised (RULES.md "Movimento"): 16 directions x {rotate only, 1/4, 2/4, 3/4,
4/4 of the allowance}; the mask offers a destination only if the whole straight path is
legal (inside the table, never across another base or impassable terrain, never within 1 cm
of an enemy), so a move shortened by rough terrain or fatigue is legal too.
"""
from __future__ import annotations

import math

from ..core.kernel import kernel
from ..core.geometry import (box_gap, point_polygon_within, point_polygon_within_boxed, segment_polygon_distance,
                             segment_polygon_within, segment_polygon_within_boxed)
from .bank import bank_amount, bank_reach
from .sight import piece_box, terrain_boxes_ready
from .general import d6, discipline_test, has_flag, is_active, on_table, radius, stat
from .layout import (TK_CHARGE, TK_FATIGUE, TK_FLIGHT, TK_ROUGH, ACTIVE, F_ALERT, F_ENGAGED, F_HIDDEN, MD_FATIGUE, MD_FLAGS, MD_STATUS, N_DIRS, N_DIST,
                     N_SLOTS, OK, PF_FLY, PF_M, PF_RULES, R_BASES_CROSS, R_IMMOBILE, R_IMPASSABLE, R_NEAR_ENEMY, R_OFF_TABLE,
                     REMOVED, SR_FAST, SR_IMMOBILE, T_IMPASSABLE, T_MAX, T_NONE, T_ROUGH, TABLE_CM, TI_EXPLORED,
                     TI_KIND, TI_NVERT, G_MISSION, M_PATROL, G_EDGE0)

ALL_PIECES = -1   # path_reason: every terrain piece (bit t = piece t; T_MAX < 63)
REACH_MARGIN = 1e-6   # pieces_in_reach: far more than the rounding of any distance here (~1e-13 cm)
ENEMY_GAP = 1.0   # MOVIMENTO: "non può muovere a meno di 1 cm da un modello avversario"
TOUCH = 0.01      # bases may touch, not overlap


@kernel(cache=True, inline="always")
def direction_angle(d):
    return 2.0 * math.pi * d / N_DIRS


@kernel(cache=True)
def path_reason(s, cfg, b, side, i, x0, y0, x1, y1, flying, ignore_side, ignore_slot, pieces=ALL_PIECES):
    """Why the base of (side, i) may not go straight from (x0, y0) to (x1, y1) (OK = it may).
    ``pieces``: the impassable pieces to test (bit t = piece t); the mask passes ``pieces_in_reach``,
    which leaves out only pieces that cannot touch any path it tests."""
    r = radius(s, cfg, b, side, i)
    if x1 < r - 1e-4 or y1 < r - 1e-4 or x1 > TABLE_CM - r + 1e-4 or y1 > TABLE_CM - r + 1e-4:
        return R_OFF_TABLE
    terrain_boxes_ready(s, b)
    for t in range(T_MAX):
        if s.tinfo[b, t, TI_KIND] != T_IMPASSABLE or not (pieces >> t) & 1:
            continue
        n = s.tinfo[b, t, TI_NVERT]
        px0, px1, py0, py1 = piece_box(s, b, t)
        # the *_boxed tests' own first test, here to spare the call for pieces far from the path
        if flying:
            if box_gap(x1, y1, x1, y1, px0, px1, py0, py1) >= r - TOUCH:
                continue
        elif box_gap(x0, y0, x1, y1, px0, px1, py0, py1) >= r - TOUCH:
            continue
        if flying:
            # VOLANTE / TERRENI: impassable terrain "può essere sorvolato"; it may not land there
            if point_polygon_within_boxed(x1, y1, s.terr[b, t], n, r - TOUCH, px0, px1, py0, py1):
                return R_IMPASSABLE
        elif segment_polygon_within_boxed(x0, y0, x1, y1, s.terr[b, t], n, r - TOUCH, px0, px1, py0, py1):
            return R_IMPASSABLE
    lo_x, hi_x = min(x0, x1), max(x0, x1)
    lo_y, hi_y = min(y0, y1), max(y0, y1)
    for os in range(2):
        for j in range(N_SLOTS):
            if (os == side and j == i) or not on_table(s, b, os, j):
                continue
            if os == ignore_side and j == ignore_slot:
                continue
            cx, cy = s.pos[b, os, j, 0], s.pos[b, os, j, 1]
            cr = radius(s, cfg, b, os, j)
            # a base farther than both thresholds from the path's box is farther from the path
            far = r + cr + ENEMY_GAP + 0.01
            if cx < lo_x - far or cx > hi_x + far or cy < lo_y - far or cy > hi_y + far:
                continue
            # distance from the other base's centre to the path, minus both radii
            dx, dy = x1 - x0, y1 - y0
            L2 = dx * dx + dy * dy
            tt = 0.0 if L2 == 0.0 else min(1.0, max(0.0, ((cx - x0) * dx + (cy - y0) * dy) / L2))
            gap = math.hypot(cx - x0 - tt * dx, cy - y0 - tt * dy) - r - cr
            if gap < -TOUCH:
                return R_BASES_CROSS
            if os != side and is_active(s, b, os, j) and gap < ENEMY_GAP - 1e-4:
                # "non può muovere a meno di 1 cm da un modello avversario": a model that starts
                # nearer (in base contact after a charge, RIPIEGARE; CONTROMOSSA) may leave it, never
                # come nearer: the path's nearest point to that enemy must be its start (RULES.md)
                if gap < math.hypot(cx - x0, cy - y0) - r - cr - 1e-4:
                    return R_NEAR_ENEMY
    return OK


@kernel(cache=True)
def touches_rough(s, cfg, b, side, i, x0, y0, x1, y1):
    """TERRENI: the path "entra, esce o attraversa" rough terrain (moving inside it counts)."""
    r = radius(s, cfg, b, side, i)
    for t in range(T_MAX):
        if s.tinfo[b, t, TI_KIND] == T_ROUGH and \
                segment_polygon_within(x0, y0, x1, y1, s.terr[b, t], s.tinfo[b, t, TI_NVERT], r - TOUCH):
            return True
    return False


@kernel(cache=True)
def in_rough(s, cfg, b, side, i):
    r = radius(s, cfg, b, side, i)
    x, y = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    for t in range(T_MAX):
        if s.tinfo[b, t, TI_KIND] == T_ROUGH and \
                point_polygon_within(x, y, s.terr[b, t], s.tinfo[b, t, TI_NVERT], r - TOUCH):
            return True
    return False


@kernel(cache=True)
def move_target(s, b, side, i, choice, allowance):
    """(x, y, facing, distance) of move choice ``choice`` with ``allowance`` cm."""
    d = choice // (N_DIST + 1)
    k = choice % (N_DIST + 1)
    a = direction_angle(d)
    dist = allowance * k / N_DIST
    return (s.pos[b, side, i, 0] + dist * math.cos(a), s.pos[b, side, i, 1] + dist * math.sin(a), a, dist)


@kernel(cache=True)
def move_allowance(s, cfg, b, side, i, flying, half):
    if flying:
        m = stat(s, cfg, b, side, i, PF_FLY)
    else:
        m = stat(s, cfg, b, side, i, PF_M)
    return m / 2.0 if half else float(m)


@kernel(cache=True)
def move_reason(s, cfg, b, side, i, choice, flying, half, pieces=ALL_PIECES):
    """Legality of a move choice for the mask (full nominal distance)."""
    if choice % (N_DIST + 1) != 0 and (stat(s, cfg, b, side, i, PF_RULES) & SR_IMMOBILE):
        return R_IMMOBILE   # IMMOBILE "non può muovere": MOVIMENTO / CONTROMOSSA may only "ruotare" (RULES.md)
    x1, y1, _a, dist = move_target(s, b, side, i, choice, move_allowance(s, cfg, b, side, i, flying, half))
    if dist == 0.0:
        return OK
    return path_reason(s, cfg, b, side, i, s.pos[b, side, i, 0], s.pos[b, side, i, 1], x1, y1, flying, -1, -1,
                       pieces)


@kernel(cache=True)
def consolidate_reason(s, cfg, b, side, i, choice, allowance, pieces=ALL_PIECES):
    """LA MISCHIA: a winner consolidates up to 2D6 cm (as a move: RULES.md)."""
    x1, y1, _a, dist = move_target(s, b, side, i, choice, allowance)
    if dist == 0.0:
        return OK
    return path_reason(s, cfg, b, side, i, s.pos[b, side, i, 0], s.pos[b, side, i, 1], x1, y1, False, -1, -1,
                       pieces)


@kernel(cache=True)
def pieces_in_reach(s, cfg, b, side, i, allowance):
    """The impassable pieces (bit t = piece t) that some move of (side, i) of up to ``allowance``
    cm in a straight line may touch; path_reason need not test the others.  Every such path lies
    in the square of side 2 x allowance around the base's centre, and a path's box gap to a piece
    is at least that square's; the margin covers rounding, so leaving a piece out never changes
    an answer (the mask tests 64 paths, and a table has up to 27 pieces)."""
    x, y = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    reach = allowance + REACH_MARGIN
    d = radius(s, cfg, b, side, i) - TOUCH + REACH_MARGIN
    terrain_boxes_ready(s, b)
    near = 0
    for t in range(T_MAX):
        if s.tinfo[b, t, TI_KIND] != T_IMPASSABLE:
            continue
        px0, px1, py0, py1 = piece_box(s, b, t)
        if box_gap(x - reach, y - reach, x + reach, y + reach, px0, px1, py0, py1) < d:
            near |= 1 << t
    return near


@kernel(cache=True)
def fatigue_malus_cm(s, cfg, b, side, i):
    """LA FATICA: each fatigue marker "riduce di 1D6 il valore di M" (each die an amount roll the
    ESPLORAZIONE bank may move)."""
    m = 0
    for _ in range(s.md[b, side, i, MD_FATIGUE]):
        m += bank_amount(s, cfg, b, side, i, TK_FATIGUE, d6(s, b), False, 0)
    return m


@kernel(cache=True)
def mark_explored(s, cfg, b, side, x0, y0, x1, y1):
    """PATTUGLIAMENTO: a scenic element a model passes through counts as explored by its side."""
    if s.g[b, G_MISSION] != M_PATROL:
        return
    for t in range(T_MAX):
        if s.tinfo[b, t, TI_KIND] == T_NONE:
            continue
        if segment_polygon_within(x0, y0, x1, y1, s.terr[b, t], s.tinfo[b, t, TI_NVERT], 1e-6):
            s.tinfo[b, t, TI_EXPLORED] = side + 1


@kernel(cache=True)
def place(s, cfg, b, side, i, x, y, facing):
    x0, y0 = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    s.pos[b, side, i, 0] = x
    s.pos[b, side, i, 1] = y
    s.pos[b, side, i, 2] = facing
    if x != x0 or y != y0:
        s.md[b, side, i, MD_FLAGS] &= ~F_ALERT  # IN ALLERTA lasts "fintanto che non si muove"
        mark_explored(s, cfg, b, side, x0, y0, x, y)


@kernel(cache=True)
def execute_move(s, cfg, b, side, i, choice, flying, half, face=-1):
    """MOVIMENTO (and CONTROMOSSA with half=True): move toward the chosen destination; rough
    terrain on the way takes 1D6 from M ("muovi comunque del valore ottenuto"), fatigue 1D6
    per marker.  VOLANTE: flying ignores rough terrain; taking off from or landing in rough
    terrain needs a discipline test, failed = the model crashes and is removed.  ``face``: the
    direction (0..15) the model ends facing ("muovere ... e/o ruotare", option facing="choose");
    -1: its direction of travel."""
    nominal = move_allowance(s, cfg, b, side, i, flying, half)
    x1, y1, a, dist = move_target(s, b, side, i, choice, nominal)
    x0, y0 = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    if dist == 0.0:
        s.pos[b, side, i, 2] = a
        return
    # LA FATICA and TERRENI take their dice off M itself ("riduce di 1D6 il valore di M", "sottrai
    # il risultato al valore di M"): CONTROMOSSA moves half of what is left, (M - dice) / 2
    allow = move_allowance(s, cfg, b, side, i, flying, False) - fatigue_malus_cm(s, cfg, b, side, i)
    fast = (stat(s, cfg, b, side, i, PF_RULES) & SR_FAST) != 0
    took_off_rough = flying and in_rough(s, cfg, b, side, i)
    if not flying and not fast and touches_rough(s, cfg, b, side, i, x0, y0, x1, y1):
        allow -= bank_amount(s, cfg, b, side, i, TK_ROUGH, d6(s, b), False, 0)
    if half:
        allow /= 2.0
    go = max(0.0, min(dist, allow))
    place(s, cfg, b, side, i, x0 + go * math.cos(a), y0 + go * math.sin(a), a if face < 0 else direction_angle(face))
    if flying and (took_off_rough or in_rough(s, cfg, b, side, i)):
        if not discipline_test(s, cfg, b, side, i, 0, TK_FLIGHT):
            s.md[b, side, i, MD_STATUS] = REMOVED


@kernel(cache=True)
def longest_legal(s, cfg, b, side, i, a, want, flying, ignore_side, ignore_slot):
    """The longest of want x (1, 7/8, ..., 1/8, 0) along angle ``a`` that is a legal path."""
    x0, y0 = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    for k in range(8, 0, -1):
        d = want * k / 8.0
        if path_reason(s, cfg, b, side, i, x0, y0, x0 + d * math.cos(a), y0 + d * math.sin(a), flying,
                       ignore_side, ignore_slot) == OK:
            return d
    return 0.0


@kernel(cache=True)
def charge_move(s, cfg, b, side, i, ts, ti):
    """CARICA: "del valore di M+2D6; se lo raggiunge i modelli sono INGAGGIATI; se non lo
    raggiunge muovi il modello del solo valore di M".  The charge goes straight at the
    target's centre and ends in base contact; rough terrain on the way takes 1D6 (as
    MOVIMENTO), fatigue 1D6 per marker.  Returns True if contact was made."""
    x0, y0 = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    tx, ty = s.pos[b, ts, ti, 0], s.pos[b, ts, ti, 1]
    r, tr = radius(s, cfg, b, side, i), radius(s, cfg, b, ts, ti)
    a = math.atan2(ty - y0, tx - x0)
    centre = math.hypot(tx - x0, ty - y0)
    need = max(0.0, centre - r - tr)
    two_d6 = d6(s, b) + d6(s, b)
    # LA FATICA and TERRENI reduce M itself: the reach is (M - dice) + 2D6, and a charge that falls
    # short moves that reduced M ("muovi il modello del solo valore di M"), not the profile's
    m = float(stat(s, cfg, b, side, i, PF_M)) - fatigue_malus_cm(s, cfg, b, side, i)
    cx, cy = x0 + need * math.cos(a), y0 + need * math.sin(a)
    fast = (stat(s, cfg, b, side, i, PF_RULES) & SR_FAST) != 0
    # a VOLANTE model charges on foot: it flies "quando utilizza un'azione movimento" (RULES.md), so
    # the charge takes rough terrain's 1D6, never crosses impassable terrain and has no landing test
    if not fast and touches_rough(s, cfg, b, side, i, x0, y0, cx, cy):
        m -= bank_amount(s, cfg, b, side, i, TK_ROUGH, d6(s, b), False, 0)
    allow = m + two_d6
    # the charge roll reaches or not: the ESPLORAZIONE bank may turn it (when the path is clear)
    if path_reason(s, cfg, b, side, i, x0, y0, cx, cy, False, ts, ti) == OK and \
            bank_reach(s, cfg, b, side, i, TK_CHARGE, allow, need):
        place(s, cfg, b, side, i, cx, cy, a)
        return True
    go = longest_legal(s, cfg, b, side, i, a, min(max(0.0, m), max(0.0, need - ENEMY_GAP)), False, -1, -1)
    place(s, cfg, b, side, i, x0 + go * math.cos(a), y0 + go * math.sin(a), a)
    return False


@kernel(cache=True)
def fall_back(s, cfg, b, side, i):
    """RIPIEGARE: M x 2 straight toward the own deployment edge; reaching the table edge
    removes the model as a casualty.  Returns True if it left the table."""
    edge_low = (s.g[b, G_EDGE0] == 0) == (side == 0)   # this side deployed along y = 0
    a = -math.pi / 2 if edge_low else math.pi / 2
    x = s.pos[b, side, i, 0]
    y = s.pos[b, side, i, 1]
    r = radius(s, cfg, b, side, i)
    to_edge = (y - r) if edge_low else (TABLE_CM - r - y)
    # M x 2 of the M that LA FATICA ("riduce di 1D6 il valore di M") and rough terrain on the way
    # (TERRENI, as MOVIMENTO: the path of the full M x 2, "muovi comunque del valore ottenuto") leave
    m = float(stat(s, cfg, b, side, i, PF_M)) - fatigue_malus_cm(s, cfg, b, side, i)
    full = min(2.0 * stat(s, cfg, b, side, i, PF_M), to_edge)
    if not (stat(s, cfg, b, side, i, PF_RULES) & SR_FAST) and \
            touches_rough(s, cfg, b, side, i, x, y, x, y + (-full if edge_low else full)):
        m -= bank_amount(s, cfg, b, side, i, TK_ROUGH, d6(s, b), False, 0)
    want = max(0.0, 2.0 * m)
    if want >= to_edge:
        # it reaches the edge only if nothing stops it first
        go = longest_legal(s, cfg, b, side, i, a, to_edge, False, -1, -1)
        if go >= to_edge - 1e-3:
            s.md[b, side, i, MD_STATUS] = REMOVED
            return True
        want = go
    go = longest_legal(s, cfg, b, side, i, a, want, False, -1, -1)
    place(s, cfg, b, side, i, x, y + (-go if edge_low else go), s.pos[b, side, i, 2])
    return False
