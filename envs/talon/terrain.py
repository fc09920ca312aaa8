"""Talon terrain (rulebook sections 17, 18 and 19, with 8.2.3 and 7.5.3): planets,
asteroids, nebulae, black holes and worm holes.

Terrain tiles are a short list per game, ``s.tr[b, i, TR_*]`` (kind, hex), kept compact:
``g[b, G_TILES]`` tiles are in play.  A game without terrain has ``G_TILES == 0`` and every
rule below returns at once, so terrain-free games pay one read of that count where a
terrain rule could apply (entering a hex, damage, reinforcing, the line of fire).

Lines of fire (17.2.2, 17.5): a line from the firer's hex centre to the target's. The hexes
it crosses form a shortest path, so a hex ``x`` can only be crossed if
``d(firer, x) + d(x, target) == d(firer, target)``; it is then the ``d(firer, x)``-th hex of
the line. Where the line runs exactly along a hexside, the two hexes of that side are found
by nudging the line a little to either side (``line_step``): a hex found on both sides is
crossed, a hex found on one side only has the line on its side.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (G_TILES, K_COLS, K_HEXSIDE, K_ROWS, OK, R_BLOCKED, R_FIGHTER_TERRAIN, R_FTL_TERRAIN,
                     R_IN_NEBULA, SH_CELL,
                     TK_ASTEROID, TK_BLACK_HOLE, TK_NEBULA, TK_NONE, TK_PLANET, TR_CELL, TR_KIND)
from .ships import active, axial_distance, from_axial, to_axial


# ---------------------------------------------------------------------------------
# Where the tiles are
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def tile_at(s, b, cell):
    """Kind of the terrain tile in hex ``cell`` (TK_NONE if none; one tile per hex)."""
    tr = borrow(s.tr)
    for i in range(borrow(s.g)[b, G_TILES]):
        if tr[b, i, TR_CELL] == cell:
            return tr[b, i, TR_KIND]
    return TK_NONE


@kernel(cache=True, inline="always")
def in_nebula(s, b, cell):
    """Talon 17.4.1: in a nebula hex all shields count as down."""
    if borrow(s.g)[b, G_TILES] == 0:
        return False
    return tile_at(s, b, cell) == TK_NEBULA


# ---------------------------------------------------------------------------------
# Lines between hex centres (17.2.2, 17.5)
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def _cube_round(x, y, z):
    rx = round(x)
    ry = round(y)
    rz = round(z)
    dx = abs(rx - x)
    dy = abs(ry - y)
    dz = abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    return int(rx), int(ry)


@kernel(cache=True)
def line_step(cfg, fc, tc, i):
    """The ``i``-th hex of the line from hex ``fc``'s centre to ``tc``'s, with the line nudged
    to one side and to the other: two different hexes where it runs along their hexside."""
    k_ = borrow(cfg.k)
    rows = k_[K_ROWS]
    cols = k_[K_COLS]
    q1, r1 = to_axial(fc, cols)
    q2, r2 = to_axial(tc, cols)
    n = axial_distance(q1, r1, q2, r2)
    t = i / n
    x = q1 + (q2 - q1) * t
    y = r1 + (r2 - r1) * t
    z = -x - y
    qa, ra = _cube_round(x + 1e-6, y + 2e-6, z - 3e-6)
    qb, rb = _cube_round(x - 1e-6, y - 2e-6, z + 3e-6)
    return from_axial(qa, ra, rows, cols), from_axial(qb, rb, rows, cols)


@kernel(cache=True, inline="always")
def on_line(cfg, fc, tc, x):
    """Step of hex ``x`` on the line from ``fc`` to ``tc`` if it can be crossed, else -1."""
    dist = borrow(cfg.dist)
    d1 = dist[fc, x]
    if d1 + dist[x, tc] != dist[fc, tc]:
        return -1
    return d1


@kernel(cache=True, inline="always")
def blocks_fire(kind):
    """Planets (17.2.2) and black holes (18.1 "blocca il fuoco come un pianeta")."""
    return kind == TK_PLANET or kind == TK_BLACK_HOLE


@kernel(cache=True, inline="always")
def slows_aim(kind):
    """Asteroids and nebulae (17.5)."""
    return kind == TK_ASTEROID or kind == TK_NEBULA


@kernel(cache=True, inline="always")
def line_reason(s, cfg, b, fc, tc, ap=False):
    """Is the line of fire from hex ``fc`` to hex ``tc`` blocked (Talon 17.2.2, 18.1, 8.2.3)?

    It is when it passes through a planet or black hole hex; a line along the tile's
    hexside is not blocked ("Il fuoco non è bloccato se la linea passa sul lato").

    ``ap``: the line that carries a carrier's or base's AP to a squadron (12.2.3), which
    asteroids and nebulae block too, "nello stesso modo in cui un pianeta blocca il fuoco"
    (17.5): crossing their hex blocks it (R_FIGHTER_TERRAIN), the carrier's and the
    squadron's own hexes included (the line runs through them; RULES.md), a hexside does not."""
    # inlined: with no terrain on the map (every basic scenario) the answer costs no call
    if borrow(s.g)[b, G_TILES] == 0:
        return OK
    return terrain_line_reason(s, cfg, b, fc, tc, ap)


@kernel(cache=True)
def terrain_line_reason(s, cfg, b, fc, tc, ap):
    """line_reason on a map with terrain tiles: compiled once and called, not inlined (each
    inlined copy of its loop cost Numba's front end ~0.5 s at each of its ~30 call sites)."""
    g = borrow(s.g)
    tr = borrow(s.tr)
    for i in range(g[b, G_TILES]):
        kind = tr[b, i, TR_KIND]
        ap_block = ap and slows_aim(kind)
        if not blocks_fire(kind) and not ap_block:
            continue
        x = tr[b, i, TR_CELL]
        step = on_line(cfg, fc, tc, x)
        if step < 0:
            continue
        if step == 0:
            if ap_block:
                return R_FIGHTER_TERRAIN      # the carrier's own hex (no ship is ever in a planet's)
            continue
        ha, hb = line_step(cfg, fc, tc, step)
        if ha == x and hb == x:
            return R_FIGHTER_TERRAIN if ap_block else R_BLOCKED
    return OK


@kernel(cache=True, inline="always")
def aim_penalty(s, cfg, b, fc, tc):
    """What to subtract from a fire die (Talon 17.5, 18.1): one per asteroid or nebula hex
    the line crosses, the firer's and the target's included (along a hexside with such
    terrain on both sides: one; on one side only: option hexside_terrain); one more if
    the target is nearer to a black hole than the firer."""
    # inlined: with no terrain on the map the answer costs no call (as line_reason)
    if borrow(s.g)[b, G_TILES] == 0:
        return 0
    return terrain_aim_penalty(s, cfg, b, fc, tc)


@kernel(cache=True)
def terrain_aim_penalty(s, cfg, b, fc, tc):
    """aim_penalty on a map with terrain tiles (compiled once and called, as terrain_line_reason)."""
    n = borrow(s.g)[b, G_TILES]
    tr = borrow(s.tr)
    dist = borrow(cfg.dist)
    one_side = borrow(cfg.k)[K_HEXSIDE]
    pen = 0
    near_hole = False
    for i in range(n):
        kind = tr[b, i, TR_KIND]
        x = tr[b, i, TR_CELL]
        if kind == TK_BLACK_HOLE:
            if dist[tc, x] < dist[fc, x]:
                near_hole = True
            continue
        if not slows_aim(kind):
            continue
        step = on_line(cfg, fc, tc, x)
        if step < 0:
            continue
        ha, hb = line_step(cfg, fc, tc, step)
        if ha == x and hb == x:
            pen += 1                        # crossed (always so for the firer's and target's hexes)
        elif ha == x:
            # along the side between x and hb: one hex for the pair, counted here
            if slows_aim(tile_at(s, b, hb)) or one_side:
                pen += 1
        elif hb == x and one_side and not slows_aim(tile_at(s, b, ha)):
            pen += 1                        # along x's side, the other side (ha) has no such terrain
        # else: x is on another shortest path between the hexes, not on the line
    if near_hole:
        pen += 1
    return pen


# ---------------------------------------------------------------------------------
# Legality of AP uses and retreat in terrain (17.4.1, 11.1.4)
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def reinforce_terrain_reason(s, cfg, b, p, k):
    """No shield reinforcement in a nebula: the shields count as down there and its
    reinforcement markers are destroyed (Talon 17.4.1, as 6.2.2 for shields down)."""
    if in_nebula(s, b, borrow(s.sh)[b, p, k, SH_CELL]):
        return R_IN_NEBULA
    return OK


@kernel(cache=True, inline="always")
def retreat_terrain_reason(s, cfg, b, p, k):
    """No retreat from a nebula or asteroid hex (Talon 11.1.4)."""
    if borrow(s.g)[b, G_TILES] == 0:
        return OK
    kind = tile_at(s, b, borrow(s.sh)[b, p, k, SH_CELL])
    if kind == TK_NEBULA or kind == TK_ASTEROID:
        return R_FTL_TERRAIN
    return OK


# ---------------------------------------------------------------------------------
# Terrain and the moving map (7.5.3)
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def shift_tiles(s, cfg, b, dq, dr):
    """The map moves: tiles move with the ships (17.1, 7.5.3); a tile that would leave
    the map, or is more than 6 hexes from every ship in play, is removed from the game."""
    g = s.g
    tr = s.tr
    sh = s.sh
    rows = cfg.k[K_ROWS]
    cols = cfg.k[K_COLS]
    n = g[b, G_TILES]
    j = 0
    for i in range(n):
        q, r = to_axial(tr[b, i, TR_CELL], cols)
        cell = from_axial(q + dq, r + dr, rows, cols)
        keep = cell >= 0
        if keep:
            near = 1 << 30
            for p in range(2):
                for k in range(sh.shape[2]):
                    if active(sh, b, p, k):
                        near = min(near, cfg.dist[cell, sh[b, p, k, SH_CELL]])
            keep = near <= 6
        if keep:
            tr[b, j, TR_KIND] = tr[b, i, TR_KIND]
            tr[b, j, TR_CELL] = cell
            j += 1
    for i in range(j, n):
        tr[b, i, TR_KIND] = TK_NONE
        tr[b, i, TR_CELL] = 0
    g[b, G_TILES] = j


# ---------------------------------------------------------------------------------
# Black holes: gravitational pull (18.2)
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def nearest_black_hole(s, cfg, b, cell):
    """Hex of the black hole nearest to ``cell`` (the first tile on a tie), -1 if none."""
    tr = s.tr
    best = -1
    best_d = 1 << 30
    for i in range(s.g[b, G_TILES]):
        if tr[b, i, TR_KIND] == TK_BLACK_HOLE:
            d = cfg.dist[cell, tr[b, i, TR_CELL]]
            if d < best_d:
                best_d = d
                best = tr[b, i, TR_CELL]
    return best


@kernel(cache=True)
def pull_hexes(s, cfg, b, p, k):
    """The hex(es) ship ``k`` is pulled into: the first hex of the line from its hex to the
    black hole's (Talon 18.2); two when that line runs along a hexside (its owner picks).
    (-1, -1) when no black hole pulls it."""
    cell = s.sh[b, p, k, SH_CELL]
    hole = nearest_black_hole(s, cfg, b, cell)
    if hole < 0 or hole == cell:
        return -1, -1
    ha, hb = line_step(cfg, cell, hole, 1)
    if ha < 0:
        ha = hb
    if hb < 0:
        hb = ha
    return ha, hb
