"""Seed 004 "Iperspazio" (RULES.md §4): the clear corridor, entering hyperspace, and coming out of
it (the hex, then a ship's facing), each condition beside its effect.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import local_i32, scratch_i32
from .layout import (ACT, BASE, CRUISER, EXIT_FACE, FIGHTER, G_ACTIVE, G_COLONISED, G_EXIT_CELL, G_PHASE, G_SHOTS,
                     HYPER, HYPER_CORRIDOR, K_SHIP_LENGTH, MAX_CELLS, OK, ON_MAP, PC_DAMAGE, PC_FACING, PC_POS,
                     PC_STATUS, R_BASE_NO_HYPER, R_COLONISED_THIS_MOVE, R_CORRIDOR, R_DAMAGED, R_FIRED, R_NOT_FORWARD,
                     R_WRONG_PHASE, TRANSPORT, config_view, state_view)
from .board import colour_now, position_reason, traffic_reason
from .turn import end_activation


@kernel(cache=True, forceinline=True)
def corridor_clear(s, cfg, b, player, start, d, colour):
    """Seed 004 "Iperspazio": 9 hexes straight ahead with no enemy, obstacle or explosion."""
    return corridor_free(cfg, s.cells[b].reshape(-1), 1 - player, start, d, colour)


@kernel(cache=True, inline="always")
def corridor_free(cfg, cb, q, start, d, colour):
    """corridor_clear on a game's flat cells ``cb`` against the enemy ``q``."""
    c = start
    for _ in range(HYPER_CORRIDOR):
        c = cfg.nbr[c, d]
        if c < 0 or not cfg.open_hex[colour, c] or traffic_reason(cb, q, c) != OK:   # open_space
            return False
    return True


@kernel(cache=True, forceinline=True)
def hyper_reason(s, cfg, b, p, d):
    if s.g[b, G_PHASE] != ACT:
        return R_WRONG_PHASE
    i = s.g[b, G_ACTIVE]
    r = hyper_piece_reason(s, cfg, b, p, i)
    if r != OK:
        return r
    return hyper_dir_reason(s, cfg, b, p, i, d, colour_now(s, cfg, b))


@kernel(cache=True, inline="always")
def hyper_piece_reason(s, cfg, b, p, i):
    """hyper_reason's conditions on the active piece i, whatever the direction."""
    kind = cfg.slot_kind[i]
    # Seed 004 "Iperspazio": never for bases, only for undamaged ships, no fire in that move.
    if kind == BASE:
        return R_BASE_NO_HYPER
    if s.pc[b, p, i, PC_DAMAGE] > 0:
        return R_DAMAGED
    if s.g[b, G_SHOTS] > 0:
        return R_FIRED
    # Seed 004 "Colonizzazione": no colonising in the move that enters hyperspace.
    if s.g[b, G_COLONISED]:
        return R_COLONISED_THIS_MOVE
    return OK


@kernel(cache=True, inline="always")
def hyper_dir_reason(s, cfg, b, p, i, d, colour):
    """hyper_reason's conditions on the direction d."""
    if cfg.slot_kind[i] != FIGHTER and d != s.pc[b, p, i, PC_FACING]:
        return R_NOT_FORWARD  # only fighters may trace the corridor in any direction
    if not corridor_clear(s, cfg, b, p, s.pc[b, p, i, PC_POS], d, colour):
        return R_CORRIDOR
    return OK


@kernel(cache=True, forceinline=True)
def enter_hyperspace(s, cfg, b, p):
    """Seed 004 "Iperspazio": the piece leaves the map; its activation ends."""
    s.pc[b, p, s.g[b, G_ACTIVE], PC_STATUS] = HYPER
    end_activation(s, b)


@kernel(cache=True, forceinline=True)
def exit_reason(s, cfg, b, p, i, cell, facing):
    """Seed 004 "Iperspazio": leaving hyperspace needs the same clear corridor ahead
    as entering (RULES.md); fighters may use any direction."""
    kind = cfg.slot_kind[i]
    colour = colour_now(s, cfg, b)
    r = position_reason(s, cfg, b, p, kind, cell, facing, colour)
    if r != OK:
        return r
    if kind == FIGHTER:
        for d in range(6):
            if corridor_clear(s, cfg, b, p, cell, d, colour):
                return OK
        return R_CORRIDOR
    if not corridor_clear(s, cfg, b, p, cell, facing, colour):
        return R_CORRIDOR
    return OK


@kernel(cache=True, forceinline=True)
def exit_cell_ok(s, cfg, b, p, i, cell):
    n_face = 1 if cfg.slot_kind[i] == FIGHTER else 6
    for f in range(n_face):
        if exit_reason(s, cfg, b, p, i, cell, f) == OK:
            return True
    return False


@kernel(cache=True, forceinline=False)
def any_exit(s, cfg, b, p, i):
    """Is there a hex where piece ``i`` can leave hyperspace (exit_cell_ok)?"""
    return exit_hexes(state_view(s), config_view(cfg), b, p, i, local_i32(1)[:0]) > 0


@kernel(cache=True, forceinline=True)
def exit_hexes(s, cfg, b, p, i, out):
    """exit_cell_ok for every hex at once: sets out[c] = 1 (if ``out`` has room
    for every hex) for each hex c where piece ``i`` can come out of hyperspace;
    returns 0 if there is none.  The same test as exit_reason over all hexes and facings, but
    each corridor (Seed 004 "Iperspazio": 9 clear hexes straight ahead) is read
    off a run length computed for all hexes of a direction in one pass along
    cfg.lines, instead of being walked hex by hex from every hex."""
    n = cfg.cell.shape[0]
    kind = cfg.slot_kind[i]
    colour = colour_now(s, cfg, b)
    q = 1 - p
    two = (kind == CRUISER or kind == TRANSPORT) and cfg.k[K_SHIP_LENGTH] == 2
    nbr, lines = cfg.nbr, cfg.lines
    stand, open_hex = cfg.stand[colour, kind], cfg.open_hex[colour]
    cb = s.cells[b].reshape(-1)  # flat: hex c's column C_x at N_C * c + C_x
    write = out.shape[0] >= n
    # free[c]: bit 0 = the piece may stand on c (cell_reason), bit 1 = a corridor may cross c
    free = scratch_i32(MAX_CELLS)
    for c in range(n):
        ok = traffic_reason(cb, q, c) == OK
        free[c] = ok * ((stand[c] == OK) | ((open_hex[c] != 0) << 1))   # map_reason, open_space
    run = scratch_i32(MAX_CELLS)  # run[c]: clear hexes straight ahead of c, up to HYPER_CORRIDOR
    count = 0
    for d in range(6):
        line = lines[d]
        for j in range(n):
            c = line[j]
            nxt = nbr[c, d]
            run[c] = min(run[nxt] + 1, HYPER_CORRIDOR) if nxt >= 0 and free[nxt] & 2 else 0
        stern_dir = (d + 3) % 6
        for c in range(n):
            if run[c] < HYPER_CORRIDOR or not free[c] & 1:
                continue
            if two:  # facing d: the stern hex behind the bow must be free too
                st = nbr[c, stern_dir]
                if st < 0 or not free[st] & 1:
                    continue
            if write and out[c] == 0:
                out[c] = 1
                count += 1
            elif not write:
                count += 1
    return count


@kernel(cache=True, forceinline=True)
def exit_to_hex(s, cfg, b, p, cell):
    """Seed 004 "Iperspazio": the hex where the piece comes out.  A fighter is placed at once and its
    activation ends (True: it is on the map); a ship then chooses its facing (exit_facing)."""
    i = s.g[b, G_ACTIVE]
    if cfg.slot_kind[i] == FIGHTER:
        s.pc[b, p, i, PC_STATUS] = ON_MAP
        s.pc[b, p, i, PC_POS] = cell
        end_activation(s, b)
        return True
    s.g[b, G_EXIT_CELL] = cell
    s.g[b, G_PHASE] = EXIT_FACE
    return False


@kernel(cache=True, forceinline=True)
def exit_facing(s, cfg, b, p, f):
    """Seed 004 "Iperspazio": the ship comes out on the chosen hex facing f; its activation ends."""
    i = s.g[b, G_ACTIVE]
    s.pc[b, p, i, PC_STATUS] = ON_MAP
    s.pc[b, p, i, PC_POS] = s.g[b, G_EXIT_CELL]
    s.pc[b, p, i, PC_FACING] = f
    s.g[b, G_EXIT_CELL] = -1
    end_activation(s, b)
