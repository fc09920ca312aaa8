"""Seed 004 "Elementi del gioco" (RULES.md §1) and "Tabella Turni Temporali" (§10): the colour of the
turn and the planetoids it shows, which hex a piece of each kind may stand on (``map_reason``, tabulated
per config by ``fill_map_tables``; ``traffic_reason`` for the pieces on it; ``position_reason`` for every
hex a piece covers), the footprints of the pieces and the occupancy rebuilt from them.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (BASE, CI_PDIST_ALL, CI_PDIST_COLOUR, CI_PLANETOID, CI_TERRAIN, CRUISER, C_BLOCKED, C_OCC, FX_OWNER,
                     G_TURN, KP_KEEP_AWAY, K_KEEP_AWAY_ALL, K_SHIP_LENGTH, N_C, OK, ON_MAP, PC_FACING, PC_POS,
                     PC_STATUS, PL_CELL, PL_COLOUR, R_BLOCKED_HEX, R_ENEMY_HEX, R_IMPASSABLE, R_OFF_MAP, R_TOO_CLOSE,
                     SPACE, TRANSPORT, config_view, state_view)


@kernel(cache=True, inline="always")
def colour_now(s, cfg, b):
    return cfg.colour_seq[min(s.g[b, G_TURN], cfg.colour_seq.shape[0] - 1)]


@kernel(cache=True, inline="always")
def visible(cfg, colour, cell):
    """Seed 004 "Elementi del gioco": a planetoid exists only in turns of its colour."""
    f = cfg.cell[cell, CI_PLANETOID]
    return f >= 0 and cfg.planetoids[f, PL_COLOUR] == colour


@kernel(cache=True, inline="always")
def open_space(cfg, colour, cell):
    """Seed 004 "Elementi del gioco": open space, neither an asteroid belt (nor a home planet,
    RULES.md) nor a planetoid of the turn's colour: what a hyperspace corridor crosses and a shot
    into space may hit.  Tabulated per colour in ``cfg.open_hex`` by ``fill_map_tables``."""
    return cfg.cell[cell, CI_TERRAIN] == SPACE and not visible(cfg, colour, cell)


@kernel(cache=True, inline="always")
def map_reason(cfg, kind, cell, colour):
    """What the map says of a piece of ``kind`` standing on ``cell`` in a turn of ``colour``:
    the part of cell_reason that no piece changes, tabulated in ``cfg.stand`` by ``fill_map_tables``."""
    # Seed 004 "Elementi del gioco": asteroid belts are impassable (home planets too, RULES.md).
    if cfg.cell[cell, CI_TERRAIN] != SPACE:
        return R_IMPASSABLE
    # Seed 004: planetoids may be crossed only by transports, and only exist in their colour.
    if kind != TRANSPORT and visible(cfg, colour, cell):
        return R_IMPASSABLE
    # Seed 004 "Astronavi": bases keep 3 hexes and cruisers 2 from the planetoids.
    keep = cfg.kinds[kind, KP_KEEP_AWAY]
    if keep > 0:
        d = cfg.cell[cell, CI_PDIST_ALL] if cfg.k[K_KEEP_AWAY_ALL] else cfg.cell[cell, CI_PDIST_COLOUR + colour]
        if d < keep:
            return R_TOO_CLOSE
    return OK


@kernel(cache=True)
def fill_map_tables(cfg):
    """``cfg.stand[colour, kind, cell]`` = map_reason and ``cfg.open_hex[colour, cell]`` = open_space,
    once per config (game.build_config): the rules above, read by the mask as a table."""
    for colour in range(cfg.stand.shape[0]):
        for cell in range(cfg.stand.shape[2]):
            cfg.open_hex[colour, cell] = open_space(cfg, colour, cell)
            for kind in range(cfg.stand.shape[1]):
                cfg.stand[colour, kind, cell] = map_reason(cfg, kind, cell, colour)


@kernel(cache=True, inline="always")
def fp_size(cfg, kind):
    """How many hexes a piece covers.

    Seed 004 "Astronavi": cruisers and transports have a bow (prua) and pivot on
    it, so they cover the bow and the hex behind it; a mobile base covers a
    fixed shape that it translates (RULES.md, "Footprints")."""
    if kind == BASE:
        return 1 + cfg.base_fp_dirs.shape[1]
    if (kind == CRUISER or kind == TRANSPORT) and cfg.k[K_SHIP_LENGTH] == 2:
        return 2
    return 1


@kernel(cache=True, inline="always")
def fp_cell(cfg, player, kind, pos, facing, k):
    """The k-th hex a piece covers (k=0 is the bow or anchor); -1 if off the map."""
    if k == 0 or pos < 0:
        return pos
    if kind == BASE:
        return cfg.nbr[pos, cfg.base_fp_dirs[player, k - 1]]
    return cfg.nbr[pos, (facing + 3) % 6]


@kernel(cache=True, forceinline=False)
def build_occupancy(s, cfg, b):
    """occ[p, cell] = number of player p's pieces on the map covering the cell
    (fixed bases included).  Derived data, rebuilt after every change of a
    piece's position or status."""
    _occupancy(state_view(s), config_view(cfg), b)


@kernel(cache=True, forceinline=True)
def _occupancy(s, cfg, b):
    # Hot code here and in the mask and observation builders is written without
    # helper calls that take arrays: each such call costs a reference-count
    # increment and decrement per array.  A piece's hexes (fp_size / fp_cell)
    # are therefore spelled out where they are needed: the bow/anchor, then a
    # mobile base's neighbours in base_fp_dirs or a 2-hex ship's stern.
    cb = s.cells[b].reshape(-1)  # flat: hex c's column C_x at N_C * c + C_x
    for c in range(cb.shape[0] // N_C):
        cb[N_C * c + C_OCC] = 0
        cb[N_C * c + C_OCC + 1] = 0
    pc, slot_kind, nbr, bfd = s.pc, cfg.slot_kind, cfg.nbr, cfg.base_fp_dirs
    ship2 = cfg.k[K_SHIP_LENGTH] == 2
    for p in range(2):
        for i in range(slot_kind.shape[0]):
            if pc[b, p, i, PC_STATUS] != ON_MAP:
                continue
            kind = slot_kind[i]
            pos = pc[b, p, i, PC_POS]
            cb[N_C * pos + C_OCC + p] += 1
            if pos < 0:  # never on the map; fp_cell repeats pos for every k
                cb[N_C * pos + C_OCC + p] += fp_size(cfg, kind) - 1
            elif kind == BASE:
                for x in range(bfd.shape[1]):
                    cb[N_C * nbr[pos, bfd[p, x]] + C_OCC + p] += 1
            elif ship2 and (kind == CRUISER or kind == TRANSPORT):
                cb[N_C * nbr[pos, (pc[b, p, i, PC_FACING] + 3) % 6] + C_OCC + p] += 1
    planetoids = cfg.planetoids
    for f in range(planetoids.shape[0]):
        o = s.fx[b, f, FX_OWNER]
        if o >= 0:
            cb[N_C * planetoids[f, PL_CELL] + C_OCC + o] += 1


@kernel(cache=True, inline="always")
def traffic_reason(cb, q, cell):
    """What the pieces say of a hex (``cb``: a game's cells, flat; ``q``: the enemy).  Written
    without branches, so that exit_hexes' loop over every hex vectorises."""
    # Seed 004 "Movimento": own ships may be crossed and stacked; enemy ones may not.
    enemy = cb[N_C * cell + C_OCC + q] > 0
    # Seed 004 "Combattimento": a hex hit by a shot into empty space is impassable this turn.
    blocked = cb[N_C * cell + C_BLOCKED] >= 0
    return enemy * R_ENEMY_HEX + (1 - enemy) * blocked * R_BLOCKED_HEX    # OK (0) when neither


@kernel(cache=True, inline="always")
def hex_reason(cfg, cb, q, kind, cell, colour):
    """cell_reason on a game's flat cells ``cb`` against the enemy ``q``: what the mask loops ask."""
    if cell < 0:
        return R_OFF_MAP
    r = cfg.stand[colour, kind, cell]    # map_reason
    if r != OK:
        return r
    return traffic_reason(cb, q, cell)


@kernel(cache=True, forceinline=True)
def cell_reason(s, cfg, b, player, kind, cell, colour):
    """Can a piece of ``kind`` of ``player`` stand on / move through ``cell``?"""
    return hex_reason(cfg, s.cells[b].reshape(-1), 1 - player, kind, cell, colour)


@kernel(cache=True, forceinline=True)
def position_reason(s, cfg, b, player, kind, pos, facing, colour):
    """cell_reason for every hex the piece would cover."""
    cb = s.cells[b].reshape(-1)
    for k in range(fp_size(cfg, kind)):
        r = hex_reason(cfg, cb, 1 - player, kind, fp_cell(cfg, player, kind, pos, facing, k), colour)
        if r != OK:
            return r
    return OK
