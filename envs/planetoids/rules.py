"""Planetoids rules as Numba kernels over the batched state.

Every rule cites the seed section it implements (`# Seed 004 "Movimento"`);
``RULES.md`` beside this file states the same rules in English with every
interpretation.  ``s`` is the namedtuple of state arrays (leading batch
dimension), ``cfg`` the namedtuple of static map tables and options built by
``game.py``; ``b`` indexes one game.

Each legality check returns a *reason code* (0 = legal).  The mask builder,
the step kernel's own check and the AEC env's error message all call the same
functions, so the mask can never disagree with what ``step`` accepts.
"""
from __future__ import annotations

import collections

import numba as nb
import numpy as np

from ..core.rng import draw_int, roll_die, seed_stream
from ..core.structs import OUTPUT_FIELDS, borrow, local_i32, scratch_i32

# -- piece kinds and piece status ------------------------------------------
BASE, CRUISER, TRANSPORT, FIGHTER, FIXED = 0, 1, 2, 3, 4
KIND_NAMES = ("mobile base", "cruiser", "transport", "fighter", "fixed base")
RESERVE, ON_MAP, HYPER, DESTROYED = 0, 1, 2, 3

# -- phases of a decision ----------------------------------------------------
SETUP, SELECT, ACT, EXIT_HEX, EXIT_FACE, OVER = 0, 1, 2, 3, 4, 5
PHASE_NAMES = ("setup", "select", "act", "exit-hex", "exit-facing", "over")

# -- terrain codes -------------------------------------------------------------
SPACE, ASTEROID, PLANET = 0, 1, 2

# -- packed layouts (named columns of the state and config arrays) ----------
# per-game scalars: s.g[b, G_*]
(G_TURN, G_CURRENT, G_PHASE, G_SETUP_COUNT, G_ACTIVE, G_STEPS, G_SHOTS, G_MOVE_DONE, G_NO_FIRE, G_LAUNCHED,
 G_LAUNCH_COUNT, G_EXIT_CELL, G_DECISIONS, G_DONE, G_LAST_DIE, G_COLONISED, G_SPACE_SHOTS) = range(17)
N_G = 17  # G_SPACE_SHOTS: shots into space by the active piece this activation
# per piece: s.pc[b, player, slot, PC_*]
(PC_STATUS, PC_POS, PC_FACING, PC_DAMAGE, PC_REPAIR_PROGRESS, PC_ACTIVATED, PC_REPAIRED, PC_SHOT) = range(8)
N_PC = 8
# per fixed-base site (planetoid): s.fx[b, f, FX_*]
FX_OWNER, FX_HITS, FX_SHOT = range(3)
N_FX = 3
# per hex: s.cells[b, cell, C_*]  (C_OCC, C_OCC + 1: occupancy by player, rebuilt before each decision)
C_BLOCKED, C_SHOT, C_OCC, C_OCC1, C_DEAD = range(5)
N_C = 5
# config scalars: cfg.k[K_*]
(K_ROWS, K_COLS, K_SHIP_LENGTH, K_KEEP_AWAY_ALL, K_FIXED_SETUP, K_REWARD_SCORE, K_MAX_DECISIONS,
 K_A_PIECE, K_A_TARGET, K_A_FIXED, K_A_HEX, K_A_MOVE, K_A_FACE, K_A_HYPER, K_A_LAUNCH, K_A_COLONISE,
 K_A_REPAIR, K_A_END_ACT, K_A_END_TURN, K_N_ACTIONS, K_BASE_SPACE_EACH_HEX, K_RELATIONS) = range(22)
N_K = 22  # K_BASE_SPACE_EACH_HEX: option base_space_shots="each_hex" (RULES.md §3, mobile base);
#           K_RELATIONS: option relations: the action table after channel 46 (0 none, 1 planetoids_v1's, 2 v2's)
# static per-hex map data: cfg.cell[cell, CI_*]
(CI_VALID, CI_TERRAIN, CI_HOME_OWNER, CI_RAMP_OWNER, CI_PLANETOID, CI_PDIST_ALL, CI_HOME_DIST, CI_HOME_DIST1,
 CI_PDIST_COLOUR) = range(9)
N_CI = 12  # CI_PDIST_COLOUR + colour for the 3 colours
# per piece kind: cfg.kinds[kind, KP_*]
KP_MAX_STEPS, KP_SHOTS, KP_KEEP_AWAY = range(3)
# per planetoid: cfg.planetoids[f, PL_*]; per ramp: cfg.ramps[player, ramp, (cell, direction)]
PL_CELL, PL_COLOUR = range(2)
# observation channels 0..N_STATIC_OBS-1 depend only on the map and the viewer (cfg.static_obs)
N_STATIC_OBS = 7

HYPER_CORRIDOR = 9  # Seed 004 "Iperspazio": a clear straight corridor of 9 hexes
MAX_CELLS = 1024  # the stack scratch of exit_hexes; game.py refuses larger maps
MAX_HITS = 4        # Seed 004 "Combattimento": bases, cruisers, transports take 4 hits, the 5th destroys

# -- reasons an action is illegal (index into game.REASONS) -------------------
OK = 0
R_GAME_OVER = 1
R_WRONG_PHASE = 2
R_NOT_YOURS = 3
R_PIECE_UNAVAILABLE = 4
R_ALREADY_ACTIVATED = 5
R_UNDER_REPAIR = 6
R_NO_EXIT = 7
R_NO_RESERVE = 8
R_LAUNCH_LIMIT = 9
R_PLACEMENT = 10
R_MOVE_DONE = 11
R_MOVE_LIMIT = 12
R_NOT_FORWARD = 13
R_OFF_MAP = 14
R_IMPASSABLE = 15
R_ENEMY_HEX = 16
R_BLOCKED_HEX = 17
R_TOO_CLOSE = 18
R_CANNOT_PIVOT = 19
R_SAME_FACING = 20
R_NO_SHOTS = 21
R_NOT_TARGETABLE = 22
R_OUT_OF_RANGE = 23
R_ALREADY_SHOT = 24
R_FIGHTER_FIXED_RANGE = 25
R_HEX_NOT_EMPTY = 26
R_NO_FIRE_HYPER = 27
R_DAMAGED = 28
R_CORRIDOR = 29
R_NOT_TRANSPORT = 30
R_NO_PLANETOID = 31
R_COLONISED = 32
R_NOT_BASE = 33
R_HAS_MOVED = 34
R_NOTHING_TO_REPAIR = 35
R_NOT_NEAR_HOME = 36
R_FIRED = 37
R_BASE_NO_HYPER = 38
R_COLONISED_THIS_MOVE = 39
R_NO_SUCH_ACTION = 40
R_BASE_ONE_SPACE_SHOT = 41


# ----------------------------------------------------------------------------
# views: the arrays of a struct, borrowed
#
# Reading an array field of a struct, and passing a struct or an array to a
# function that is not inlined, costs an atomic reference-count increment and
# decrement.  Atomics wait for the CPU's pending stores, and a step writes
# several kilobytes of observation, so these were about half of the time of a
# batched step.  Hot code therefore works on *views*: namedtuples of the
# struct's arrays without meminfo (no reference counting), made once per call
# of a kernel entry point, and passed only to functions that are inlined
# (``inline="always"``).  Rules functions are written against ``s.field`` /
# ``cfg.field`` and accept a struct or a view alike.  A view must not outlive
# the call that made it (the caller keeps the owning arrays alive).
# ----------------------------------------------------------------------------
STATE_FIELDS = ("rng", "policy_rng", "dice_script", "dice", "g", "pc", "fx", "cells")
CONFIG_FIELDS = ("k", "nbr", "dist", "fire_dist", "cell", "kinds", "planetoids", "ramps", "colour_seq",
                 "slot_kind", "hit_table", "base_fp_dirs", "start_cells", "static_obs", "visible_obs", "stand",
                 "open_hex", "lines")
StateView = collections.namedtuple("StateView", STATE_FIELDS)
ConfigView = collections.namedtuple("ConfigView", CONFIG_FIELDS)
OutputsView = collections.namedtuple("OutputsView", OUTPUT_FIELDS)


@nb.njit(cache=True, inline="always")
def state_view(s):
    return StateView(borrow(s.rng), borrow(s.policy_rng), borrow(s.dice_script), borrow(s.dice), borrow(s.g),
                     borrow(s.pc), borrow(s.fx), borrow(s.cells))


@nb.njit(cache=True, inline="always")
def config_view(c):
    return ConfigView(borrow(c.k), borrow(c.nbr), borrow(c.dist), borrow(c.fire_dist), borrow(c.cell),
                      borrow(c.kinds), borrow(c.planetoids), borrow(c.ramps), borrow(c.colour_seq),
                      borrow(c.slot_kind), borrow(c.hit_table), borrow(c.base_fp_dirs), borrow(c.start_cells),
                      borrow(c.static_obs), borrow(c.visible_obs), borrow(c.stand), borrow(c.open_hex), borrow(c.lines))


@nb.njit(cache=True, inline="always")
def outputs_view(o):
    return OutputsView(borrow(o.obs), borrow(o.mask), borrow(o.rewards), borrow(o.term), borrow(o.trunc),
                       borrow(o.player), borrow(o.illegal), borrow(o.final_obs), borrow(o.obs_key))



# ----------------------------------------------------------------------------
# geometry helpers
# ----------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def colour_now(s, cfg, b):
    return cfg.colour_seq[min(s.g[b, G_TURN], cfg.colour_seq.shape[0] - 1)]


@nb.njit(cache=True, inline="always")
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


@nb.njit(cache=True, inline="always")
def fp_cell(cfg, player, kind, pos, facing, k):
    """The k-th hex a piece covers (k=0 is the bow or anchor); -1 if off the map."""
    if k == 0 or pos < 0:
        return pos
    if kind == BASE:
        return cfg.nbr[pos, cfg.base_fp_dirs[player, k - 1]]
    return cfg.nbr[pos, (facing + 3) % 6]


@nb.njit(cache=True, forceinline=False)
def build_occupancy(s, cfg, b):
    """occ[p, cell] = number of player p's pieces on the map covering the cell
    (fixed bases included).  Derived data, rebuilt after every change of a
    piece's position or status."""
    _occupancy(state_view(s), config_view(cfg), b)


@nb.njit(cache=True, forceinline=True)
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


@nb.njit(cache=True, inline="always")
def visible(cfg, colour, cell):
    """Seed 004 "Elementi del gioco": a planetoid exists only in turns of its colour."""
    f = cfg.cell[cell, CI_PLANETOID]
    return f >= 0 and cfg.planetoids[f, PL_COLOUR] == colour


@nb.njit(cache=True, inline="always")
def open_space(cfg, colour, cell):
    """Seed 004 "Elementi del gioco": open space, neither an asteroid belt (nor a home planet,
    RULES.md) nor a planetoid of the turn's colour: what a hyperspace corridor crosses and a shot
    into space may hit.  Tabulated per colour in ``cfg.open_hex`` by ``fill_map_tables``."""
    return cfg.cell[cell, CI_TERRAIN] == SPACE and not visible(cfg, colour, cell)


@nb.njit(cache=True, inline="always")
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


@nb.njit(cache=True)
def fill_map_tables(cfg):
    """``cfg.stand[colour, kind, cell]`` = map_reason and ``cfg.open_hex[colour, cell]`` = open_space,
    once per config (game.build_config): the rules above, read by the mask as a table."""
    for colour in range(cfg.stand.shape[0]):
        for cell in range(cfg.stand.shape[2]):
            cfg.open_hex[colour, cell] = open_space(cfg, colour, cell)
            for kind in range(cfg.stand.shape[1]):
                cfg.stand[colour, kind, cell] = map_reason(cfg, kind, cell, colour)


@nb.njit(cache=True, inline="always")
def traffic_reason(cb, q, cell):
    """What the pieces say of a hex (``cb``: a game's cells, flat; ``q``: the enemy).  Written
    without branches, so that exit_hexes' loop over every hex vectorises."""
    # Seed 004 "Movimento": own ships may be crossed and stacked; enemy ones may not.
    enemy = cb[N_C * cell + C_OCC + q] > 0
    # Seed 004 "Combattimento": a hex hit by a shot into empty space is impassable this turn.
    blocked = cb[N_C * cell + C_BLOCKED] >= 0
    return enemy * R_ENEMY_HEX + (1 - enemy) * blocked * R_BLOCKED_HEX    # OK (0) when neither


@nb.njit(cache=True, inline="always")
def hex_reason(cfg, cb, q, kind, cell, colour):
    """cell_reason on a game's flat cells ``cb`` against the enemy ``q``: what the mask loops ask."""
    if cell < 0:
        return R_OFF_MAP
    r = cfg.stand[colour, kind, cell]    # map_reason
    if r != OK:
        return r
    return traffic_reason(cb, q, cell)


@nb.njit(cache=True, forceinline=True)
def cell_reason(s, cfg, b, player, kind, cell, colour):
    """Can a piece of ``kind`` of ``player`` stand on / move through ``cell``?"""
    return hex_reason(cfg, s.cells[b].reshape(-1), 1 - player, kind, cell, colour)


@nb.njit(cache=True, forceinline=True)
def position_reason(s, cfg, b, player, kind, pos, facing, colour):
    """cell_reason for every hex the piece would cover."""
    cb = s.cells[b].reshape(-1)
    for k in range(fp_size(cfg, kind)):
        r = hex_reason(cfg, cb, 1 - player, kind, fp_cell(cfg, player, kind, pos, facing, k), colour)
        if r != OK:
            return r
    return OK


@nb.njit(cache=True, forceinline=True)
def corridor_clear(s, cfg, b, player, start, d, colour):
    """Seed 004 "Iperspazio": 9 hexes straight ahead with no enemy, obstacle or explosion."""
    return corridor_free(cfg, s.cells[b].reshape(-1), 1 - player, start, d, colour)


@nb.njit(cache=True, inline="always")
def corridor_free(cfg, cb, q, start, d, colour):
    """corridor_clear on a game's flat cells ``cb`` against the enemy ``q``."""
    c = start
    for _ in range(HYPER_CORRIDOR):
        c = cfg.nbr[c, d]
        if c < 0 or not cfg.open_hex[colour, c] or traffic_reason(cb, q, c) != OK:   # open_space
            return False
    return True


@nb.njit(cache=True, forceinline=True)
def fire_range(s, cfg, b, player, i, tq, tkind, tpos, tface, colour):
    """Seed 004 "Combattimento": rockets fly any path, through ships but not
    through asteroid belts or planetoids; range is the shortest such path from
    the firer to the target (a single hex: pass tkind=FIGHTER)."""
    a0, a1, a2 = footprint3(cfg, player, cfg.slot_kind[i], s.pc[b, player, i, PC_POS], s.pc[b, player, i, PC_FACING])
    return range_from(cfg, a0, a1, a2, tq, tkind, tpos, tface, colour)


@nb.njit(cache=True, inline="always")
def footprint3(cfg, player, kind, pos, facing):
    """A piece's hexes (fp_cell): it covers at most 3; a missing one repeats the first."""
    n = fp_size(cfg, kind)
    a0 = fp_cell(cfg, player, kind, pos, facing, 0)
    a1 = fp_cell(cfg, player, kind, pos, facing, 1) if n > 1 else a0
    a2 = fp_cell(cfg, player, kind, pos, facing, 2) if n > 2 else a0
    return a0, a1, a2


@nb.njit(cache=True, inline="always")
def range_from(cfg, a0, a1, a2, tq, tkind, tpos, tface, colour):
    """fire_range from a firer covering the hexes a0, a1, a2 (footprint3)."""
    dist = cfg.fire_dist[colour]
    best = 999
    for m in range(fp_size(cfg, tkind)):
        t = fp_cell(cfg, tq, tkind, tpos, tface, m)
        best = min(best, dist[a0, t], dist[a1, t], dist[a2, t])
    return best


@nb.njit(cache=True, inline="always")
def to_hit(cfg, att_kind, tgt_kind, rng):
    """Seed 004 attack tables: lowest d6 result that hits, 0 if out of range."""
    if rng < 1 or rng >= cfg.hit_table.shape[2]:
        return 0
    return cfg.hit_table[att_kind, tgt_kind, rng]


# ----------------------------------------------------------------------------
# legality of each action family
# ----------------------------------------------------------------------------
@nb.njit(cache=True, forceinline=True)
def launch_reason(s, cfg, b, p, kind, ramp):
    """Seed 004 "Fasi del gioco": per turn 1 transport, or 1 cruiser, or 3 fighters, from the ramps."""
    if s.g[b, G_PHASE] != SELECT:
        return R_WRONG_PHASE
    if launch_limit_reached(s, b, kind):
        return R_LAUNCH_LIMIT
    if reserve_slot(s, cfg, b, p, kind) < 0:
        return R_NO_RESERVE
    return launch_place_reason(s, cfg, b, p, kind, ramp, colour_now(s, cfg, b))


@nb.njit(cache=True, inline="always")
def launch_place_reason(s, cfg, b, p, kind, ramp, colour):
    """launch_reason's condition on the ramp: the launched piece's hexes may be stood on."""
    pos, facing = launch_position(cfg, p, kind, ramp)
    if position_reason(s, cfg, b, p, kind, pos, facing, colour) != OK:
        return R_PLACEMENT
    return OK


@nb.njit(cache=True, inline="always")
def launch_limit_reached(s, b, kind):
    """Seed 004 "Fasi del gioco": per turn 1 transport, or 1 cruiser, or up to 3 fighters."""
    launched = s.g[b, G_LAUNCHED]
    return launched >= 0 and (launched != FIGHTER or kind != FIGHTER or s.g[b, G_LAUNCH_COUNT] >= 3)


@nb.njit(cache=True, forceinline=True)
def launch_position(cfg, p, kind, ramp):
    """A launched ship starts with its stern on the ramp, facing away from the planet (RULES.md)."""
    cell = cfg.ramps[p, ramp, 0]
    d = cfg.ramps[p, ramp, 1]
    if (kind == CRUISER or kind == TRANSPORT) and cfg.k[K_SHIP_LENGTH] == 2:
        return cfg.nbr[cell, d], d
    return cell, d


@nb.njit(cache=True, forceinline=True)
def reserve_slot(s, cfg, b, p, kind):
    for i in range(cfg.slot_kind.shape[0]):
        if cfg.slot_kind[i] == kind and s.pc[b, p, i, PC_STATUS] == RESERVE:
            return i
    return -1


@nb.njit(cache=True, forceinline=True)
def select_reason(s, cfg, b, p, i):
    """Seed 004 "Movimento": ships move and fire one at a time."""
    if s.g[b, G_PHASE] != SELECT:
        return R_WRONG_PHASE
    r = piece_ready_reason(s, b, p, i)
    if r != OK:
        return r
    if s.pc[b, p, i, PC_STATUS] == HYPER and not any_exit(s, cfg, b, p, i):
        return R_NO_EXIT
    return OK


@nb.njit(cache=True, inline="always")
def piece_ready_reason(s, b, p, i):
    """select_reason but the way out of hyperspace (which the mask asks once per kind)."""
    st = s.pc[b, p, i, PC_STATUS]
    if st != ON_MAP and st != HYPER:
        return R_PIECE_UNAVAILABLE
    if s.pc[b, p, i, PC_ACTIVATED]:
        return R_ALREADY_ACTIVATED
    if s.pc[b, p, i, PC_REPAIRED]:
        return R_UNDER_REPAIR  # Seed 004 "Riparazione navi": a ship under repair neither moves nor fires
    return OK


@nb.njit(cache=True, forceinline=True)
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


@nb.njit(cache=True, forceinline=True)
def exit_cell_ok(s, cfg, b, p, i, cell):
    n_face = 1 if cfg.slot_kind[i] == FIGHTER else 6
    for f in range(n_face):
        if exit_reason(s, cfg, b, p, i, cell, f) == OK:
            return True
    return False


@nb.njit(cache=True, forceinline=False)
def any_exit(s, cfg, b, p, i):
    """Is there a hex where piece ``i`` can leave hyperspace (exit_cell_ok)?"""
    return exit_hexes(state_view(s), config_view(cfg), b, p, i, local_i32(1)[:0]) > 0


@nb.njit(cache=True, forceinline=True)
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


@nb.njit(cache=True, forceinline=True)
def move_reason(s, cfg, b, p, d):
    if s.g[b, G_PHASE] != ACT:
        return R_WRONG_PHASE
    i = s.g[b, G_ACTIVE]
    r = move_piece_reason(s, cfg, b, i)
    if r != OK:
        return r
    return move_dir_reason(s, cfg, b, p, i, d, colour_now(s, cfg, b))


@nb.njit(cache=True, inline="always")
def move_piece_reason(s, cfg, b, i):
    """move_reason's conditions on the active piece i, whatever the direction."""
    if s.g[b, G_MOVE_DONE]:
        return R_MOVE_DONE
    if s.g[b, G_STEPS] >= cfg.kinds[cfg.slot_kind[i], KP_MAX_STEPS]:
        return R_MOVE_LIMIT
    return OK


@nb.njit(cache=True, inline="always")
def move_dir_reason(s, cfg, b, p, i, d, colour):
    """move_reason's conditions on the direction d."""
    kind = cfg.slot_kind[i]
    # Seed 004 "Astronavi": cruisers and transports move straight ahead only.
    if (kind == CRUISER or kind == TRANSPORT) and d != s.pc[b, p, i, PC_FACING]:
        return R_NOT_FORWARD
    nxt = cfg.nbr[s.pc[b, p, i, PC_POS], d]
    if nxt < 0:
        return R_OFF_MAP
    return position_reason(s, cfg, b, p, kind, nxt, s.pc[b, p, i, PC_FACING], colour)


@nb.njit(cache=True, forceinline=True)
def pivot_reason(s, cfg, b, p, f):
    """Seed 004 "Astronavi": a free pivot on the bow, once, at the end of the move."""
    if s.g[b, G_PHASE] == EXIT_FACE:
        i = s.g[b, G_ACTIVE]
        return exit_reason(s, cfg, b, p, i, s.g[b, G_EXIT_CELL], f)
    if s.g[b, G_PHASE] != ACT:
        return R_WRONG_PHASE
    i = s.g[b, G_ACTIVE]
    r = pivot_piece_reason(s, cfg, b, i)
    if r != OK:
        return r
    return pivot_dir_reason(s, cfg, b, p, i, f, colour_now(s, cfg, b))


@nb.njit(cache=True, inline="always")
def pivot_piece_reason(s, cfg, b, i):
    """pivot_reason's conditions on the active piece i, whatever the facing."""
    kind = cfg.slot_kind[i]
    if kind != CRUISER and kind != TRANSPORT:
        return R_CANNOT_PIVOT
    if s.g[b, G_MOVE_DONE]:
        return R_MOVE_DONE
    return OK


@nb.njit(cache=True, inline="always")
def pivot_dir_reason(s, cfg, b, p, i, f, colour):
    """pivot_reason's conditions on the facing f."""
    if f == s.pc[b, p, i, PC_FACING]:
        return R_SAME_FACING
    return position_reason(s, cfg, b, p, cfg.slot_kind[i], s.pc[b, p, i, PC_POS], f, colour)


@nb.njit(cache=True, forceinline=True)
def shots_left(s, cfg, b, kind):
    # Seed 004 "Astronavi": cruisers fire twice, fighters once, transports never;
    # mobile bases once at every target they reach (checked per target).
    if kind == BASE:
        return True
    return s.g[b, G_SHOTS] < cfg.kinds[kind, KP_SHOTS]


@nb.njit(cache=True, forceinline=True)
def space_shot_spent(s, cfg, b, kind):
    """Seed 004 "Astronavi" ("Spara su tutti i bersagli raggiungibili (1 volta su
    ciascuno)") with "Combattimento" ("E' permesso sparare un colpo 'a vuoto'"): the
    targets of a mobile base are the enemy pieces and fixed bases in reach, each once;
    into space it fires the one shot any ship may make, once per activation.  Option
    base_space_shots="each_hex" restores every empty hex as a target (RULES.md §3).
    True when the active piece may fire no (further) shot into space for that reason."""
    return kind == BASE and cfg.k[K_BASE_SPACE_EACH_HEX] == 0 and s.g[b, G_SPACE_SHOTS] > 0


@nb.njit(cache=True, forceinline=True)
def fire_common_reason(s, cfg, b):
    """What every shot needs: an activation, a piece that fights, a shot left."""
    i = s.g[b, G_ACTIVE]
    if s.g[b, G_PHASE] != ACT or i < 0:
        return R_WRONG_PHASE
    kind = cfg.slot_kind[i]
    if cfg.kinds[kind, KP_SHOTS] == 0:
        return R_NO_SHOTS
    if s.g[b, G_NO_FIRE]:
        return R_NO_FIRE_HYPER  # Seed 004 "Iperspazio": no firing in the entry/exit move
    if not shots_left(s, cfg, b, kind):
        return R_NO_SHOTS
    return OK


@nb.njit(cache=True, forceinline=True)
def fire_piece_reason(s, cfg, b, p, j):
    r = fire_common_reason(s, cfg, b)
    if r != OK:
        return r
    i = s.g[b, G_ACTIVE]
    kind = cfg.slot_kind[i]
    a0, a1, a2 = footprint3(cfg, p, kind, s.pc[b, p, i, PC_POS], s.pc[b, p, i, PC_FACING])
    return piece_target_reason(s, cfg, b, p, kind, a0, a1, a2, j, colour_now(s, cfg, b))


@nb.njit(cache=True, inline="always")
def piece_target_reason(s, cfg, b, p, kind, a0, a1, a2, j, colour):
    """fire_piece_reason once fire_common_reason holds: enemy piece j in reach of the active
    piece, of ``kind``, covering the hexes a0, a1, a2 (footprint3)."""
    q = 1 - p
    if s.pc[b, q, j, PC_STATUS] != ON_MAP:
        return R_NOT_TARGETABLE
    if kind == BASE and s.pc[b, q, j, PC_SHOT]:
        return R_ALREADY_SHOT  # Seed 004 "Astronavi": a mobile base fires once at each target
    tk = cfg.slot_kind[j]
    rng = range_from(cfg, a0, a1, a2, q, tk, s.pc[b, q, j, PC_POS], s.pc[b, q, j, PC_FACING], colour)
    if to_hit(cfg, kind, tk, rng) == 0:
        return R_OUT_OF_RANGE
    return OK


@nb.njit(cache=True, forceinline=True)
def fire_fixed_reason(s, cfg, b, p, f):
    r = fire_common_reason(s, cfg, b)
    if r != OK:
        return r
    i = s.g[b, G_ACTIVE]
    kind = cfg.slot_kind[i]
    a0, a1, a2 = footprint3(cfg, p, kind, s.pc[b, p, i, PC_POS], s.pc[b, p, i, PC_FACING])
    return fixed_target_reason(s, cfg, b, p, kind, a0, a1, a2, f, colour_now(s, cfg, b))


@nb.njit(cache=True, inline="always")
def fixed_target_reason(s, cfg, b, p, kind, a0, a1, a2, f, colour):
    """fire_fixed_reason once fire_common_reason holds: the enemy fixed base f in reach of the
    active piece (as in piece_target_reason)."""
    if s.fx[b, f, FX_OWNER] != 1 - p:
        return R_NOT_TARGETABLE
    if kind == BASE and s.fx[b, f, FX_SHOT]:
        return R_ALREADY_SHOT
    rng = range_from(cfg, a0, a1, a2, 0, FIGHTER, cfg.planetoids[f, PL_CELL], 0, colour)
    # Seed 004 "Distruzione Basi Fisse": fighters hit fixed bases only at range 1.
    if kind == FIGHTER and rng != 1:
        return R_FIGHTER_FIXED_RANGE
    if to_hit(cfg, kind, FIXED, rng) == 0:
        return R_OUT_OF_RANGE
    return OK


@nb.njit(cache=True, forceinline=True)
def fire_hex_reason(s, cfg, b, p, cell):
    """Seed 004 "Combattimento": a shot into empty space, as hard as firing at oneself."""
    r = fire_common_reason(s, cfg, b)
    if r != OK:
        return r
    i = s.g[b, G_ACTIVE]
    kind = cfg.slot_kind[i]
    if space_shot_spent(s, cfg, b, kind):
        return R_BASE_ONE_SPACE_SHOT
    colour = colour_now(s, cfg, b)
    if not open_space(cfg, colour, cell):
        return R_IMPASSABLE
    if s.cells[b, cell, C_OCC + 0] > 0 or s.cells[b, cell, C_OCC + 1] > 0:
        return R_HEX_NOT_EMPTY
    if s.cells[b, cell, C_BLOCKED] >= 0:
        return R_BLOCKED_HEX
    if kind == BASE and s.cells[b, cell, C_SHOT]:
        return R_ALREADY_SHOT  # option base_space_shots="each_hex": once at each hex
    if to_hit(cfg, kind, kind, fire_range(s, cfg, b, p, i, 0, FIGHTER, cell, 0, colour)) == 0:
        return R_OUT_OF_RANGE
    return OK


@nb.njit(cache=True, forceinline=True)
def hyper_reason(s, cfg, b, p, d):
    if s.g[b, G_PHASE] != ACT:
        return R_WRONG_PHASE
    i = s.g[b, G_ACTIVE]
    r = hyper_piece_reason(s, cfg, b, p, i)
    if r != OK:
        return r
    return hyper_dir_reason(s, cfg, b, p, i, d, colour_now(s, cfg, b))


@nb.njit(cache=True, inline="always")
def hyper_dir_reason(s, cfg, b, p, i, d, colour):
    """hyper_reason's conditions on the direction d."""
    if cfg.slot_kind[i] != FIGHTER and d != s.pc[b, p, i, PC_FACING]:
        return R_NOT_FORWARD  # only fighters may trace the corridor in any direction
    if not corridor_clear(s, cfg, b, p, s.pc[b, p, i, PC_POS], d, colour):
        return R_CORRIDOR
    return OK


@nb.njit(cache=True, inline="always")
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


@nb.njit(cache=True, forceinline=True)
def colonise_reason(s, cfg, b, p):
    """Seed 004 "Colonizzazione": an undamaged transport on a visible planetoid."""
    if s.g[b, G_PHASE] != ACT:
        return R_WRONG_PHASE
    i = s.g[b, G_ACTIVE]
    if cfg.slot_kind[i] != TRANSPORT:
        return R_NOT_TRANSPORT
    if s.pc[b, p, i, PC_DAMAGE] > 0:
        return R_DAMAGED
    cell = s.pc[b, p, i, PC_POS]
    if not visible(cfg, colour_now(s, cfg, b), cell):
        return R_NO_PLANETOID
    if s.fx[b, cfg.cell[cell, CI_PLANETOID], FX_OWNER] >= 0:
        return R_COLONISED
    return OK


@nb.njit(cache=True, forceinline=True)
def repair_targets(s, cfg, b, p, i, apply):
    """Seed 004 "Riparazione navi": every damaged friendly ship adjacent to the
    base that has not acted this turn.  Returns how many; repairs them if ``apply``."""
    count = 0
    for j in range(cfg.slot_kind.shape[0]):
        if j == i or s.pc[b, p, j, PC_STATUS] != ON_MAP or s.pc[b, p, j, PC_ACTIVATED] or s.pc[b, p, j, PC_REPAIRED]:
            continue
        if s.pc[b, p, j, PC_DAMAGE] == 0:
            continue
        kj = cfg.slot_kind[j]
        adjacent = False
        for x in range(fp_size(cfg, BASE)):
            ca = fp_cell(cfg, p, BASE, s.pc[b, p, i, PC_POS], 0, x)
            for y in range(fp_size(cfg, kj)):
                if cfg.dist[ca, fp_cell(cfg, p, kj, s.pc[b, p, j, PC_POS], s.pc[b, p, j, PC_FACING], y)] <= 1:
                    adjacent = True
        if not adjacent:
            continue
        count += 1
        if apply:
            s.pc[b, p, j, PC_REPAIRED] = True
            if cfg.slot_kind[j] == BASE:
                # Seed 004: two turns of repair per damage on a mobile base.
                s.pc[b, p, j, PC_REPAIR_PROGRESS] += 1
                if s.pc[b, p, j, PC_REPAIR_PROGRESS] >= 2:
                    s.pc[b, p, j, PC_REPAIR_PROGRESS] = 0
                    s.pc[b, p, j, PC_DAMAGE] -= 1
            else:
                s.pc[b, p, j, PC_DAMAGE] -= 1
    return count


@nb.njit(cache=True, forceinline=True)
def repair_reason(s, cfg, b, p):
    if s.g[b, G_PHASE] != ACT:
        return R_WRONG_PHASE
    i = s.g[b, G_ACTIVE]
    if cfg.slot_kind[i] != BASE:
        return R_NOT_BASE
    if s.g[b, G_STEPS] > 0 or s.g[b, G_MOVE_DONE]:
        return R_HAS_MOVED  # Seed 004: the repairing base does not move
    if repair_targets(s, cfg, b, p, i, False) == 0:
        return R_NOTHING_TO_REPAIR
    return OK


@nb.njit(cache=True, forceinline=True)
def setup_reason(s, cfg, b, p, cell):
    """Seed 004 "Fasi del gioco": each player places its 2 bases adjacent to its home planet."""
    colour = colour_now(s, cfg, b)
    r = position_reason(s, cfg, b, p, BASE, cell, 0, colour)
    if r != OK:
        return r
    for k in range(fp_size(cfg, BASE)):
        if cfg.cell[fp_cell(cfg, p, BASE, cell, 0, k), CI_HOME_DIST + p] == 1:
            return OK
    return R_NOT_NEAR_HOME


@nb.njit(cache=True, forceinline=False)
def action_reason(s, cfg, b, a):
    """Reason code why action ``a`` is illegal in game ``b`` now (0 = legal)."""
    return decide(s, cfg, b, a, np.bool_(False))  # np.bool_: one compiled decide, not one per literal


@nb.njit(cache=True, forceinline=False)
def decide(s0, cfg0, b, a, apply):
    """The reason code of action ``a`` in game ``b`` (0 = legal); with ``apply``,
    a legal action is also carried out.  The one compiled copy of the legality
    and state-change rules that the step kernels and ``action_reason`` share."""
    s, cfg = state_view(s0), config_view(cfg0)
    code = _reason(s, cfg, b, a)
    if code == OK and apply:
        _apply(s, cfg, b, a)
    return code


@nb.njit(inline="always")  # into decide (its one caller): no compiled copy of its own
def _reason(s, cfg, b, a):
    if s.g[b, G_DONE]:
        return R_GAME_OVER
    p = s.g[b, G_CURRENT]
    ph = s.g[b, G_PHASE]
    if a < cfg.k[K_A_TARGET]:
        return select_reason(s, cfg, b, p, a - cfg.k[K_A_PIECE])
    if a < cfg.k[K_A_FIXED]:
        return fire_piece_reason(s, cfg, b, p, a - cfg.k[K_A_TARGET])
    if a < cfg.k[K_A_HEX]:
        return fire_fixed_reason(s, cfg, b, p, a - cfg.k[K_A_FIXED])
    if a < cfg.k[K_A_MOVE]:
        cell = a - cfg.k[K_A_HEX]
        if not cfg.cell[cell, CI_VALID]:
            return R_OFF_MAP
        if ph == SETUP:
            return setup_reason(s, cfg, b, p, cell)
        if ph == EXIT_HEX:
            return OK if exit_cell_ok(s, cfg, b, p, s.g[b, G_ACTIVE], cell) else R_CORRIDOR
        return fire_hex_reason(s, cfg, b, p, cell)
    if a < cfg.k[K_A_FACE]:
        return move_reason(s, cfg, b, p, a - cfg.k[K_A_MOVE])
    if a < cfg.k[K_A_HYPER]:
        return pivot_reason(s, cfg, b, p, a - cfg.k[K_A_FACE])
    if a < cfg.k[K_A_LAUNCH]:
        return hyper_reason(s, cfg, b, p, a - cfg.k[K_A_HYPER])
    if a < cfg.k[K_A_COLONISE]:
        k = a - cfg.k[K_A_LAUNCH]
        return launch_reason(s, cfg, b, p, CRUISER + k // 3, k % 3)
    if a == cfg.k[K_A_COLONISE]:
        return colonise_reason(s, cfg, b, p)
    if a == cfg.k[K_A_REPAIR]:
        return repair_reason(s, cfg, b, p)
    if a == cfg.k[K_A_END_ACT]:
        return OK if ph == ACT else R_WRONG_PHASE
    if a == cfg.k[K_A_END_TURN]:
        return OK if ph == SELECT else R_WRONG_PHASE
    return R_WRONG_PHASE


# ----------------------------------------------------------------------------
# the legal-action mask
#
# The mask asks the legality functions above, each candidate action of the
# phase in turn, with the conditions that do not depend on the candidate asked
# once (fire_common_reason, the way out of hyperspace per kind).  What the map
# alone decides of a hex is read from the tables that fill_map_tables makes from
# map_reason and open_space.  One family is written out: the shots into space,
# tested for every hex of the map in one branch-free loop (_mask_space_shots).
# The mask-oracle test checks at every step of random play that mask[a] ==
# (action_reason(a) == OK) for every action a, and that both agree with an
# independent statement of the rules in plain Python.
# ----------------------------------------------------------------------------
@nb.njit(cache=True, forceinline=False)
def write_mask(s, cfg, b, mask):
    """Legal-action mask of the player to decide; only the action families the
    current phase allows are examined."""
    _mask(state_view(s), config_view(cfg), b, mask)


@nb.njit(cache=True, forceinline=True)
def _mask(s, cfg, b, mask):
    for a in range(mask.shape[0]):
        mask[a] = 0
    g = s.g
    if g[b, G_DONE]:
        return
    ph = g[b, G_PHASE]
    if ph == SELECT:
        _mask_select(s, cfg, b, mask)
    elif ph == ACT:
        _mask_act(s, cfg, b, mask)
    else:
        _mask_rare(s, cfg, b, mask)


@nb.njit(cache=True, forceinline=False)
def _mask_rare(s, cfg, b, mask):
    """Phases SETUP and EXIT_HEX (a hex: setup_reason, exit_cell_ok) and
    EXIT_FACE (a facing: exit_reason), each action as action_reason checks it."""
    ph = s.g[b, G_PHASE]
    p = s.g[b, G_CURRENT]
    i = s.g[b, G_ACTIVE]
    k = cfg.k
    if ph == SETUP:
        for cell in range(cfg.cell.shape[0]):
            if cfg.cell[cell, CI_VALID] and setup_reason(s, cfg, b, p, cell) == OK:
                mask[k[K_A_HEX] + cell] = 1
    elif ph == EXIT_HEX:
        exit_hexes(s, cfg, b, p, i, mask[k[K_A_HEX]:k[K_A_HEX] + cfg.cell.shape[0]])
    elif ph == EXIT_FACE:
        for f in range(6):
            if exit_reason(s, cfg, b, p, i, s.g[b, G_EXIT_CELL], f) == OK:
                mask[k[K_A_FACE] + f] = 1


@nb.njit(cache=True, forceinline=True)
def _mask_select(s, cfg, b, mask):
    """Phase SELECT: select a piece (select_reason, with the costly hyperspace-exit
    search done once per kind instead of once per ship), launch (launch_reason),
    end the turn."""
    pc, slot_kind, k = s.pc, cfg.slot_kind, cfg.k
    p = s.g[b, G_CURRENT]
    a_piece = k[K_A_PIECE]
    exit_known = 0  # bit per kind: exit search done ...
    exit_found = 0  # ... and found an exit
    for i in range(slot_kind.shape[0]):
        if piece_ready_reason(s, b, p, i) != OK:
            continue
        if pc[b, p, i, PC_STATUS] == HYPER:
            kind = slot_kind[i]
            if not exit_known & (1 << kind):
                exit_known |= 1 << kind
                if any_exit(s, cfg, b, p, i):   # the exits depend on the kind, not the piece
                    exit_found |= 1 << kind
            if not exit_found & (1 << kind):
                continue
        mask[a_piece + i] = 1
    a_launch = k[K_A_LAUNCH]
    colour = colour_now(s, cfg, b)
    for kind in range(CRUISER, FIGHTER + 1):
        if launch_limit_reached(s, b, kind) or reserve_slot(s, cfg, b, p, kind) < 0:
            continue    # launch_reason's conditions on the kind, asked once for its three ramps
        for ramp in range(3):
            if launch_place_reason(s, cfg, b, p, kind, ramp, colour) == OK:
                mask[a_launch + 3 * (kind - CRUISER) + ramp] = 1
    mask[k[K_A_END_TURN]] = 1


@nb.njit(cache=True, forceinline=True)
def _mask_act(s, cfg, b, mask):
    """Phase ACT: the active piece's shots (fire_common_reason once, then piece_target_reason,
    fixed_target_reason and the shots into space), moves (move_reason), pivots (pivot_reason),
    hyperspace (hyper_reason), colonising, repair, end of activation."""
    k = cfg.k
    p = s.g[b, G_CURRENT]
    i = s.g[b, G_ACTIVE]
    colour = colour_now(s, cfg, b)
    if fire_common_reason(s, cfg, b) == OK:
        kind = cfg.slot_kind[i]
        a0, a1, a2 = footprint3(cfg, p, kind, s.pc[b, p, i, PC_POS], s.pc[b, p, i, PC_FACING])
        for j in range(cfg.slot_kind.shape[0]):
            if piece_target_reason(s, cfg, b, p, kind, a0, a1, a2, j, colour) == OK:
                mask[k[K_A_TARGET] + j] = 1
        for f in range(cfg.planetoids.shape[0]):
            if fixed_target_reason(s, cfg, b, p, kind, a0, a1, a2, f, colour) == OK:
                mask[k[K_A_FIXED] + f] = 1
        _mask_space_shots(s, cfg, b, mask, p, i, colour)
    # the conditions on the piece once, then each direction's
    if move_piece_reason(s, cfg, b, i) == OK:
        for d in range(6):
            if move_dir_reason(s, cfg, b, p, i, d, colour) == OK:
                mask[k[K_A_MOVE] + d] = 1
    if pivot_piece_reason(s, cfg, b, i) == OK:
        for f in range(6):
            if pivot_dir_reason(s, cfg, b, p, i, f, colour) == OK:
                mask[k[K_A_FACE] + f] = 1
    if hyper_piece_reason(s, cfg, b, p, i) == OK:
        for d in range(6):
            if hyper_dir_reason(s, cfg, b, p, i, d, colour) == OK:
                mask[k[K_A_HYPER] + d] = 1
    if colonise_reason(s, cfg, b, p) == OK:
        mask[k[K_A_COLONISE]] = 1
    if repair_reason(s, cfg, b, p) == OK:
        mask[k[K_A_REPAIR]] = 1
    mask[k[K_A_END_ACT]] = 1


@nb.njit(cache=True, forceinline=True)
def _mask_space_shots(s, cfg, b, mask, p, i, colour):
    """fire_hex_reason for every hex at once (after fire_common_reason), the one family of the
    mask written out: a shot into space may go at any of the map's hexes, and this loop over all
    of them was the hottest of a step.  The mask-oracle test checks it against fire_hex_reason."""
    pc, fd, nbr, bfd, k = s.pc, cfg.fire_dist, cfg.nbr, cfg.base_fp_dirs, cfg.k
    cb = s.cells[b].reshape(-1)  # flat: hex c's column C_x at N_C * c + C_x
    kind = cfg.slot_kind[i]
    is_base = kind == BASE
    hit_table = cfg.hit_table
    max_rng = hit_table.shape[2]
    # the active piece's hexes f0, f1, f2 (fp_cell; unused slots repeat the bow/anchor)
    pos = pc[b, p, i, PC_POS]
    f0 = f1 = f2 = pos
    if pos >= 0 and kind == BASE:
        if bfd.shape[1] > 0:
            f1 = nbr[pos, bfd[p, 0]]
        if bfd.shape[1] > 1:
            f2 = nbr[pos, bfd[p, 1]]
    elif pos >= 0 and (kind == CRUISER or kind == TRANSPORT) and cfg.k[K_SHIP_LENGTH] == 2:
        f1 = nbr[pos, (pc[b, p, i, PC_FACING] + 3) % 6]
    # shots into space (fire_hex_reason): none once a base has fired its
    # one shot into space (space_shot_spent); else an open hex in reach
    # (hit at range d when bit d of ``hits`` is set; fire_dist is 0..999 and
    # the table has 11 columns) that is empty, not blocked and (for a base
    # under base_space_shots="each_hex") not yet shot at.  The loop is
    # branch-free over flat arrays so that it vectorises.
    hits = 0
    if not space_shot_spent(s, cfg, b, kind):
        for r in range(1, max_rng):
            if hit_table[kind, kind, r] > 0:
                hits |= 1 << r
    open_hex = cfg.open_hex
    not_base = not is_base
    a_hex = k[K_A_HEX]
    n_hex = open_hex.shape[1]
    # 1-D rows and a slice of the mask, indexed from 0: no negative-index
    # wrap-around to compute, so the loop vectorises
    mh = mask[a_hex:a_hex + n_hex]
    r0, r1, r2, oh = fd[colour, f0], fd[colour, f1], fd[colour, f2], open_hex[colour]
    for c in range(mh.shape[0]):
        d = max(0, min(r0[c], r1[c], r2[c], 63))
        x = N_C * c
        mh[c] = ((oh[c] != 0) & (((hits >> d) & 1) != 0)
                 & (cb[x + C_OCC] <= 0) & (cb[x + C_OCC + 1] <= 0) & (cb[x + C_BLOCKED] < 0)
                 & ((cb[x + C_SHOT] == 0) | not_base))


# ----------------------------------------------------------------------------
# state changes
# ----------------------------------------------------------------------------
@nb.njit(cache=True, forceinline=False)
def destroy_cascade(s, cfg, b, first_p, first_i, first_fixed):
    """Seed 004 "Combattimento": when a piece is destroyed, every piece that
    overlaps it, even partly, is destroyed too (and so on, RULES.md)."""
    P = cfg.slot_kind.shape[0]
    dead = s.cells[b, :, C_DEAD]
    dead[:] = 0
    if first_fixed >= 0:
        s.fx[b, first_fixed, FX_OWNER] = -1
        s.fx[b, first_fixed, FX_HITS] = 0
        dead[cfg.planetoids[first_fixed, PL_CELL]] = 1
    else:
        kind = cfg.slot_kind[first_i]
        s.pc[b, first_p, first_i, PC_STATUS] = DESTROYED
        for k in range(fp_size(cfg, kind)):
            dead[fp_cell(cfg, first_p, kind, s.pc[b, first_p, first_i, PC_POS], s.pc[b, first_p, first_i, PC_FACING], k)] = 1
    changed = True
    while changed:
        changed = False
        for p in range(2):
            for i in range(P):
                if s.pc[b, p, i, PC_STATUS] != ON_MAP:
                    continue
                kind = cfg.slot_kind[i]
                n = fp_size(cfg, kind)
                hit = False
                for k in range(n):
                    if dead[fp_cell(cfg, p, kind, s.pc[b, p, i, PC_POS], s.pc[b, p, i, PC_FACING], k)]:
                        hit = True
                if hit:
                    s.pc[b, p, i, PC_STATUS] = DESTROYED
                    for k in range(n):
                        dead[fp_cell(cfg, p, kind, s.pc[b, p, i, PC_POS], s.pc[b, p, i, PC_FACING], k)] = 1
                    changed = True
        for f in range(cfg.planetoids.shape[0]):
            if s.fx[b, f, FX_OWNER] >= 0 and dead[cfg.planetoids[f, PL_CELL]]:
                s.fx[b, f, FX_OWNER] = -1
                s.fx[b, f, FX_HITS] = 0
    _occupancy(s, cfg, b)


@nb.njit(cache=True, forceinline=True)
def resolve_shot(s, cfg, b, threshold):
    """One d6 against the table threshold, worsened by 1 per damage the firer has
    taken (Seed 004 "Combattimento")."""
    p = s.g[b, G_CURRENT]
    i = s.g[b, G_ACTIVE]
    die = roll_die(s.rng, s.dice_script, s.dice, b, 6)
    s.g[b, G_LAST_DIE] = die
    s.g[b, G_SHOTS] += 1
    return die >= threshold + s.pc[b, p, i, PC_DAMAGE]


@nb.njit(cache=True, forceinline=True)
def fire_at_piece(s, cfg, b, j):
    p = s.g[b, G_CURRENT]
    q = 1 - p
    i = s.g[b, G_ACTIVE]
    kind = cfg.slot_kind[i]
    tk = cfg.slot_kind[j]
    thr = to_hit(cfg, kind, tk, fire_range(s, cfg, b, p, i, q, tk, s.pc[b, q, j, PC_POS], s.pc[b, q, j, PC_FACING],
                                           colour_now(s, cfg, b)))
    s.pc[b, q, j, PC_SHOT] = True
    if resolve_shot(s, cfg, b, thr):
        # Seed 004: a fighter dies to 1 hit, other ships to the 5th.
        s.pc[b, q, j, PC_DAMAGE] += 1
        if tk == FIGHTER or s.pc[b, q, j, PC_DAMAGE] > MAX_HITS:
            destroy_cascade(s, cfg, b, q, j, np.int64(-1))


@nb.njit(cache=True, forceinline=True)
def fire_at_fixed(s, cfg, b, f):
    p = s.g[b, G_CURRENT]
    i = s.g[b, G_ACTIVE]
    thr = to_hit(cfg, cfg.slot_kind[i], FIXED,
                 fire_range(s, cfg, b, p, i, 0, FIGHTER, cfg.planetoids[f, PL_CELL], 0, colour_now(s, cfg, b)))
    s.fx[b, f, FX_SHOT] = True
    if resolve_shot(s, cfg, b, thr):
        s.fx[b, f, FX_HITS] += 1  # Seed 004 "Distruzione Basi Fisse": destroyed by the 5th hit
        if s.fx[b, f, FX_HITS] > MAX_HITS:
            destroy_cascade(s, cfg, b, np.int64(-1), np.int64(-1), f)


@nb.njit(cache=True, forceinline=True)
def fire_at_hex(s, cfg, b, cell):
    p = s.g[b, G_CURRENT]
    i = s.g[b, G_ACTIVE]
    kind = cfg.slot_kind[i]
    thr = to_hit(cfg, kind, kind, fire_range(s, cfg, b, p, i, 0, FIGHTER, cell, 0, colour_now(s, cfg, b)))
    s.cells[b, cell, C_SHOT] = True
    s.g[b, G_SPACE_SHOTS] += 1
    if resolve_shot(s, cfg, b, thr):
        s.cells[b, cell, C_BLOCKED] = p


@nb.njit(cache=True, forceinline=True)
def begin_activation(s, cfg, b, i):
    s.g[b, G_ACTIVE] = i
    s.g[b, G_STEPS] = 0
    s.g[b, G_SHOTS] = 0
    s.g[b, G_MOVE_DONE] = False
    s.g[b, G_NO_FIRE] = False
    s.g[b, G_COLONISED] = 0
    s.g[b, G_SPACE_SHOTS] = 0
    s.pc[b, :, :, PC_SHOT] = 0
    s.fx[b, :, FX_SHOT] = False
    s.cells[b, :, C_SHOT] = False
    s.pc[b, s.g[b, G_CURRENT], i, PC_ACTIVATED] = True


@nb.njit(cache=True, forceinline=True)
def end_activation(s, b):
    s.g[b, G_ACTIVE] = -1
    s.g[b, G_PHASE] = SELECT


@nb.njit(cache=True, forceinline=True)
def score(s, cfg, b, p):
    """Seed 004 "Punteggio": 4 points per fixed base, minus 1 per hit it took."""
    total = 0
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] == p:
            total += 4 - s.fx[b, f, FX_HITS]
    return total


@nb.njit(cache=True, forceinline=True)
def begin_move(s, cfg, b, p):
    """Start of player p's move inside the current colour turn."""
    s.g[b, G_CURRENT] = p
    s.g[b, G_PHASE] = SELECT
    s.g[b, G_ACTIVE] = -1
    s.g[b, G_LAUNCHED] = -1
    s.g[b, G_LAUNCH_COUNT] = 0
    P = cfg.slot_kind.shape[0]
    for i in range(P):
        s.pc[b, p, i, PC_ACTIVATED] = False
        s.pc[b, p, i, PC_REPAIRED] = False
    # Seed 004 "Combattimento": a blocked hex lasts the whole turn, the opponent's move
    # included; it clears when the player who blocked it moves again (RULES.md).
    for c in range(cfg.cell.shape[0]):
        if s.cells[b, c, C_BLOCKED] == p:
            s.cells[b, c, C_BLOCKED] = -1


@nb.njit(cache=True, forceinline=False)
def begin_colour_turn(s, cfg, b):
    """Seed 004 "Elementi del gioco": planetoids of the turn's colour appear and
    destroy any ship under them (transports may stand on them)."""
    colour = colour_now(s, cfg, b)
    P = cfg.slot_kind.shape[0]
    for p in range(2):
        for i in range(P):
            kind = cfg.slot_kind[i]
            if s.pc[b, p, i, PC_STATUS] != ON_MAP or kind == TRANSPORT:
                continue
            for k in range(fp_size(cfg, kind)):
                c = fp_cell(cfg, p, kind, s.pc[b, p, i, PC_POS], s.pc[b, p, i, PC_FACING], k)
                if visible(cfg, colour, c) and s.pc[b, p, i, PC_STATUS] == ON_MAP:
                    destroy_cascade(s, cfg, b, p, i, np.int64(-1))
    begin_move(s, cfg, b, 0)


@nb.njit(cache=True, forceinline=True)
def end_move(s, cfg, b):
    p = s.g[b, G_CURRENT]
    if p == 0:
        begin_move(s, cfg, b, 1)
        return
    # Seed 004 "Fasi del gioco": the game ends after 51 colour turns.
    s.g[b, G_TURN] += 1
    if s.g[b, G_TURN] >= cfg.colour_seq.shape[0]:
        s.g[b, G_DONE] = True
        s.g[b, G_PHASE] = OVER
        return
    begin_colour_turn(s, cfg, b)


@nb.njit(cache=True, forceinline=True)
def _apply(s, cfg, b, a):
    """Carry out a legal action (checked by the caller, see ``decide``).

    Occupancy is rebuilt after the actions that place, move, turn or remove a
    piece or found a fixed base; a destruction rebuilds it in destroy_cascade,
    and the other actions (shots that destroy nothing, selection, repair, end
    of activation or of the move) leave every input of it unchanged."""
    p = s.g[b, G_CURRENT]
    ph = s.g[b, G_PHASE]
    moved = False
    if a < cfg.k[K_A_TARGET]:
        i = a - cfg.k[K_A_PIECE]
        begin_activation(s, cfg, b, i)
        if s.pc[b, p, i, PC_STATUS] == HYPER:
            s.g[b, G_PHASE] = EXIT_HEX
            s.g[b, G_NO_FIRE] = True
        else:
            s.g[b, G_PHASE] = ACT
    elif a < cfg.k[K_A_FIXED]:
        fire_at_piece(s, cfg, b, a - cfg.k[K_A_TARGET])
    elif a < cfg.k[K_A_HEX]:
        fire_at_fixed(s, cfg, b, a - cfg.k[K_A_FIXED])
    elif a < cfg.k[K_A_MOVE]:
        cell = a - cfg.k[K_A_HEX]
        if ph == SETUP:
            slot = s.g[b, G_SETUP_COUNT] // 2
            s.pc[b, p, slot, PC_STATUS] = ON_MAP
            s.pc[b, p, slot, PC_POS] = cell
            moved = True
            s.g[b, G_SETUP_COUNT] += 1
            if s.g[b, G_SETUP_COUNT] >= 4:
                begin_colour_turn(s, cfg, b)
            else:
                s.g[b, G_CURRENT] = 1 - p
        elif ph == EXIT_HEX:
            i = s.g[b, G_ACTIVE]
            if cfg.slot_kind[i] == FIGHTER:
                s.pc[b, p, i, PC_STATUS] = ON_MAP
                s.pc[b, p, i, PC_POS] = cell
                moved = True
                end_activation(s, b)
            else:
                s.g[b, G_EXIT_CELL] = cell
                s.g[b, G_PHASE] = EXIT_FACE
        else:
            fire_at_hex(s, cfg, b, cell)
    elif a < cfg.k[K_A_FACE]:
        i = s.g[b, G_ACTIVE]
        s.pc[b, p, i, PC_POS] = cfg.nbr[s.pc[b, p, i, PC_POS], a - cfg.k[K_A_MOVE]]
        moved = True
        s.g[b, G_STEPS] += 1
    elif a < cfg.k[K_A_HYPER]:
        i = s.g[b, G_ACTIVE]
        moved = True
        if ph == EXIT_FACE:
            s.pc[b, p, i, PC_STATUS] = ON_MAP
            s.pc[b, p, i, PC_POS] = s.g[b, G_EXIT_CELL]
            s.pc[b, p, i, PC_FACING] = a - cfg.k[K_A_FACE]
            s.g[b, G_EXIT_CELL] = -1
            end_activation(s, b)
        else:
            s.pc[b, p, i, PC_FACING] = a - cfg.k[K_A_FACE]
            s.g[b, G_MOVE_DONE] = True
    elif a < cfg.k[K_A_LAUNCH]:
        i = s.g[b, G_ACTIVE]
        s.pc[b, p, i, PC_STATUS] = HYPER
        moved = True
        end_activation(s, b)
    elif a < cfg.k[K_A_COLONISE]:
        k = a - cfg.k[K_A_LAUNCH]
        kind = CRUISER + k // 3
        i = reserve_slot(s, cfg, b, p, kind)
        pos, facing = launch_position(cfg, p, kind, k % 3)
        s.pc[b, p, i, PC_STATUS] = ON_MAP
        s.pc[b, p, i, PC_POS] = pos
        s.pc[b, p, i, PC_FACING] = facing
        moved = True
        s.g[b, G_LAUNCHED] = kind
        s.g[b, G_LAUNCH_COUNT] += 1
    elif a == cfg.k[K_A_COLONISE]:
        i = s.g[b, G_ACTIVE]
        f = cfg.cell[s.pc[b, p, i, PC_POS], CI_PLANETOID]
        s.fx[b, f, FX_OWNER] = p
        s.fx[b, f, FX_HITS] = 0
        moved = True
        s.g[b, G_COLONISED] = 1
    elif a == cfg.k[K_A_REPAIR]:
        i = s.g[b, G_ACTIVE]
        repair_targets(s, cfg, b, p, i, True)
        s.g[b, G_MOVE_DONE] = True
    elif a == cfg.k[K_A_END_ACT]:
        end_activation(s, b)
    elif a == cfg.k[K_A_END_TURN]:
        end_move(s, cfg, b)
    if moved:
        _occupancy(s, cfg, b)


# ----------------------------------------------------------------------------
# observation
# ----------------------------------------------------------------------------
@nb.njit(cache=True, forceinline=False)
def write_obs(s, cfg, b, me, obs):
    """Observation planes of game ``b`` from player ``me``'s side, all written;
    channel list in ``game.OBS_CHANNELS`` (documented in RULES.md, "Observation")."""
    _obs(state_view(s), config_view(cfg), b, me, obs, np.zeros(OBS_KEY_LEN, np.int32))


# What obs_key records of a buffer (see VecGame.obs_key): whether the row is
# known, the viewer of the static planes, the colours of planes 7 and 8, the
# value of each scalar plane, and the nonzero entries of the sparse planes 9-25.
# Writing the ~9 KB of planes was two thirds to three quarters of a batched step
# once the buffers of 4096 games outgrow the caches, and a step changes few
# entries: the rest are compared here and left alone.
KEY_KNOWN = 0
KEY_VIEWER = 1
KEY_COLOUR = 2
KEY_NEXT_COLOUR = 3
KEY_SCALARS = 4      # + (channel - FIRST_SCALAR_CH)
FIRST_SCALAR_CH = 26
N_OBS_CH = 47
# scratch, not a record: the counts of the 12 counter planes (channels 32-43)
# while they are tallied, so an unchanged count leaves its plane untouched
KEY_TALLIES = KEY_SCALARS + N_OBS_CH - FIRST_SCALAR_CH
FIRST_TALLY_CH = 32
N_TALLIES = 12
# the pieces on the map as the observation last showed them, one signature per
# player and slot (0: not on the map), so that only the pieces that changed are
# taken off planes 10-21 and 24 and put back; then the hexes of plane 25
MAX_SLOTS = 128  # pieces per player; game.py refuses larger reserves
KEY_PIECES = KEY_TALLIES + N_TALLIES  # + MAX_SLOTS * player + slot
KEY_N_ACTIVE = KEY_PIECES + 2 * MAX_SLOTS
KEY_ACTIVE = KEY_N_ACTIVE + 1
MAX_ACTIVE = 4  # the active piece's hexes and the exit hex
OBS_KEY_LEN = KEY_ACTIVE + MAX_ACTIVE


@nb.njit(cache=True, inline="always")
def piece_signature(pos, face, dmg, done):
    """What planes 10-21 and 24 show of a piece on the map, in one nonzero int32."""
    return ((pos + 1) << 12) | (face << 9) | ((dmg & 127) << 2) | (done << 1) | 1


@nb.njit(cache=True, forceinline=True)
def _piece_planes(obs, cfg, p, side, kind, sig, sign):
    """Add (sign=1) or take off (sign=-1) the piece with signature ``sig`` on
    planes 10-17 (count by side and kind), 20-21 (damage) and 24 (done)."""
    pos = (sig >> 12) - 1
    face = (sig >> 9) & 7
    dmg = (sig >> 2) & 127
    done = (sig >> 1) & 1
    nbr, bfd = cfg.nbr, cfg.base_fp_dirs
    ship2 = cfg.k[K_SHIP_LENGTH] == 2
    # the piece's hexes (fp_size / fp_cell, see build_occupancy)
    n = 1 + bfd.shape[1] if kind == BASE else (2 if ship2 and (kind == CRUISER or kind == TRANSPORT) else 1)
    for kk in range(n):
        if kk == 0 or pos < 0:
            c = pos
        elif kind == BASE:
            c = nbr[pos, bfd[p, kk - 1]]
        else:
            c = nbr[pos, (face + 3) % 6]
        obs[10 + 4 * side + kind, c] += sign
        obs[20 + side, c] += sign * dmg
        if done:
            obs[24, c] += sign


@nb.njit(cache=True, forceinline=True)
def _face_planes(s, cfg, b, me, obs, side, pos):
    """Planes 18-19 at ``pos``: the facing (+1) of the side's last ship there, or 0."""
    pc, slot_kind = s.pc, cfg.slot_kind
    p = me if side == 0 else 1 - me
    v = 0
    for i in range(slot_kind.shape[0]):
        kind = slot_kind[i]
        if ((kind == CRUISER or kind == TRANSPORT) and pc[b, p, i, PC_STATUS] == ON_MAP
                and pc[b, p, i, PC_POS] == pos):
            v = pc[b, p, i, PC_FACING] + 1
    obs[18 + side, pos] = v


@nb.njit(cache=True, forceinline=True)
def _obs(s, cfg, b, me, obs, key):
    """write_obs on views.  Planes 0-8 and the scalar planes are rewritten only
    when ``key`` says they hold something else, and on planes 10-25 only the
    pieces that changed (``key`` is brought up to date)."""
    g, pc, fx = s.g, s.pc, s.fx
    en = 1 - me
    cs = cfg.colour_seq
    turn = g[b, G_TURN]
    colour = cs[min(turn, cs.shape[0] - 1)]
    nxt = cs[min(turn + 1, cs.shape[0] - 1)]
    N = obs.shape[1]
    known = key[KEY_KNOWN] != 0
    same_viewer = known and key[KEY_VIEWER] == me
    # channels 0-6 never change: copied from the per-viewer template; 7-8 by colour
    static_obs, visible_obs = cfg.static_obs, cfg.visible_obs
    if not same_viewer:
        for ch in range(N_STATIC_OBS):
            for c in range(N):
                obs[ch, c] = static_obs[me, ch, c]
        key[KEY_VIEWER] = me
    if not (known and key[KEY_COLOUR] == colour):
        for c in range(N):
            obs[7, c] = visible_obs[colour, c]
        key[KEY_COLOUR] = colour
    if not (known and key[KEY_NEXT_COLOUR] == nxt):
        for c in range(N):
            obs[8, c] = visible_obs[nxt, c]
        key[KEY_NEXT_COLOUR] = nxt
    cb = s.cells[b].reshape(-1)  # flat: hex c's column C_x at N_C * c + C_x
    for c in range(N):
        bl = cb[N_C * c + C_BLOCKED]
        obs[9, c] = 0 if bl < 0 else (1 if bl == me else 2)
    if not same_viewer:  # every piece changes side: planes 10-25 start afresh
        for ch in range(10, 26):
            for c in range(N):
                obs[ch, c] = 0
        for x in range(2 * MAX_SLOTS + 1):
            key[KEY_PIECES + x] = 0  # no piece shown, no active hex
    for j in range(N_TALLIES):
        key[KEY_TALLIES + j] = 0  # the counter planes' values, counted here
    planetoids = cfg.planetoids
    score_me = 0
    score_en = 0
    for f in range(planetoids.shape[0]):
        o = fx[b, f, FX_OWNER]
        c = planetoids[f, PL_CELL]
        obs[22, c] = fx[b, f, FX_HITS] + 1 if o == me else 0
        obs[23, c] = fx[b, f, FX_HITS] + 1 if o == en else 0
        # Seed 004 "Punteggio": 4 points per fixed base, minus 1 per hit it took (as score())
        if o == me:
            score_me += 4 - fx[b, f, FX_HITS]
        if o == en:
            score_en += 4 - fx[b, f, FX_HITS]
    slot_kind = cfg.slot_kind
    faces_at = scratch_i32(8)  # side * N + hex where a ship came or went: planes 18-19 to redo
    n_faces = 0
    for side in range(2):
        p = me if side == 0 else en
        for i in range(slot_kind.shape[0]):
            st = pc[b, p, i, PC_STATUS]
            kind = slot_kind[i]
            if st == HYPER:
                key[KEY_TALLIES + 6 + 3 * side + kind - 1] += 1
            elif st == RESERVE and kind != BASE:
                key[KEY_TALLIES + 3 * side + kind - 1] += 1
            sig = 0
            if st == ON_MAP:
                done = side == 0 and (pc[b, p, i, PC_ACTIVATED] != 0 or pc[b, p, i, PC_REPAIRED] != 0)
                sig = piece_signature(pc[b, p, i, PC_POS], pc[b, p, i, PC_FACING], pc[b, p, i, PC_DAMAGE], done)
            old = key[KEY_PIECES + MAX_SLOTS * p + i]
            if sig == old:
                continue
            if old != 0:
                _piece_planes(obs, cfg, p, side, kind, old, -1)
            if sig != 0:
                _piece_planes(obs, cfg, p, side, kind, sig, 1)
            key[KEY_PIECES + MAX_SLOTS * p + i] = sig
            if kind == CRUISER or kind == TRANSPORT:
                for k in range(2):
                    x = old if k == 0 else sig
                    if x != 0:
                        if n_faces < faces_at.shape[0]:
                            faces_at[n_faces] = side * N + (x >> 12) - 1
                        n_faces += 1
    if n_faces > faces_at.shape[0]:  # many ships changed: planes 18-19 anew, the last ship on a hex wins
        for side in range(2):
            p = me if side == 0 else en
            for c in range(N):
                obs[18 + side, c] = 0
            for i in range(slot_kind.shape[0]):
                kind = slot_kind[i]
                if (kind == CRUISER or kind == TRANSPORT) and pc[b, p, i, PC_STATUS] == ON_MAP:
                    obs[18 + side, pc[b, p, i, PC_POS]] = pc[b, p, i, PC_FACING] + 1
    else:
        for j in range(n_faces):
            _face_planes(s, cfg, b, me, obs, faces_at[j] // N, faces_at[j] % N)
    # plane 25: the active piece's hexes (2 on its bow or anchor), 3 on the exit hex
    for j in range(key[KEY_N_ACTIVE]):
        obs[25, key[KEY_ACTIVE + j]] = 0
    n_active = 0
    active = g[b, G_ACTIVE] if g[b, G_CURRENT] == me else -1
    if active >= 0 and pc[b, me, active, PC_STATUS] == ON_MAP:
        kind = slot_kind[active]
        pos = pc[b, me, active, PC_POS]
        face = pc[b, me, active, PC_FACING]
        bfd = cfg.base_fp_dirs
        two = cfg.k[K_SHIP_LENGTH] == 2 and (kind == CRUISER or kind == TRANSPORT)
        for kk in range(1 + bfd.shape[1] if kind == BASE else (2 if two else 1)):
            if kk == 0 or pos < 0:
                c = pos
            elif kind == BASE:
                c = cfg.nbr[pos, bfd[me, kk - 1]]
            else:
                c = cfg.nbr[pos, (face + 3) % 6]
            obs[25, c] = 1
            key[KEY_ACTIVE + n_active] = c
            n_active += 1
        obs[25, pos] = 2
    if g[b, G_PHASE] == EXIT_FACE and g[b, G_CURRENT] == me:
        obs[25, g[b, G_EXIT_CELL]] = 3
        key[KEY_ACTIVE + n_active] = g[b, G_EXIT_CELL]
        n_active += 1
    key[KEY_N_ACTIVE] = n_active
    # scalar channels: the value fills the whole plane
    for ch in range(FIRST_SCALAR_CH, N_OBS_CH):
        if ch == 26:
            v = turn
        elif ch == 27:
            v = g[b, G_PHASE]
        elif ch == 28:
            v = g[b, G_STEPS]
        elif ch == 29:
            v = g[b, G_SHOTS]
        elif ch == 30:
            v = g[b, G_LAUNCHED] + 1
        elif ch == 31:
            v = g[b, G_LAUNCH_COUNT]
        elif ch < 44:
            v = key[KEY_TALLIES + ch - FIRST_TALLY_CH]  # the counters above
        elif ch == 44:
            v = score_me
        elif ch == 45:
            v = score_en
        else:
            v = me
        v8 = np.int8(v)
        if known and key[KEY_SCALARS + ch - FIRST_SCALAR_CH] == v8:
            continue
        for c in range(N):
            obs[ch, c] = v8
        key[KEY_SCALARS + ch - FIRST_SCALAR_CH] = v8
    key[KEY_KNOWN] = 1
    if cfg.k[K_RELATIONS]:
        write_action_table(s, cfg, b, me, obs)


# ----------------------------------------------------------------------------
# the action table (option relations; RULES.md §12.4 "Action table")
#
# One row of values per action, written row-major into the channels after
# channel 46 (zero-padded to whole channels): what each action would lead to,
# measured with the rules' own tables (cfg.dist, cfg.nbr, to_hit, fire_range,
# visible, launch_position), so that a policy can score each action from its row.
# planetoids_v1 (relations=1) has the first N_AF_V1 values a row, planetoids_v2
# (relations=2) all N_AF: the same row with what an active piece's step gains.
# ----------------------------------------------------------------------------
AF_KNOWN = 0          # 1: the row describes this action
AF_HIT = 1            # a shot: faces of the d6 that hit (0-6, "Combattimento", the attacker's damage counted)
AF_KIND = 2           # the piece the action names, kind + 1 (a target, a piece to select or launch); 5 a fixed base
AF_PLANETOID = 3      # hexes from where the action leads to the nearest planetoid with no fixed base
AF_ENEMY_TRANSPORT = 4  # ... to the nearest enemy transport on the map (127 if none)
AF_ENEMY = 5          # ... to the nearest enemy piece on the map or enemy fixed base (127 if none)
AF_HERE = 6           # the hex it leads to: 1 a free planetoid there now, 2 free next turn, 3 free later,
                      # 4 colonised by me, 5 by the enemy
AF_DAMAGE = 7         # the named piece's damage (a target, a piece to select) or a fixed base's hits
N_AF_V1 = 8
# planetoids_v2: rows of the active piece (phase act) say how far it is and what a step gains
AF_FAMILY = 8         # 1 move, 2 pivot, 3 end of the activation, 4 colonise, 5 repair, 6 fire at a piece,
                      # 7 fire at a fixed base, 8 select a piece, 9 launch (0 other actions)
AF_ACTIVE_KIND = 9    # the active piece's kind + 1 (rows of phase act)
AF_OPEN = 10          # hexes from where it leads to the active piece's open planetoid (open_planetoid; 127 none)
AF_OPEN_GAIN = 11     # hexes nearer its open planetoid than the active piece stands now (negative: farther)
AF_HUNT_GAIN = 12     # hexes nearer its hunted target (hunt_target) than it stands now
N_AF = 13
FAR = 127
# families of AF_FAMILY
F_MOVE, F_PIVOT, F_END, F_COLONISE, F_REPAIR, F_SHOOT, F_SHOOT_FIXED, F_SELECT, F_LAUNCH = range(1, 10)


@nb.njit(cache=True)
def action_row_width(relations):
    """Values a row of the action table holds for option relations 0, 1 (planetoids_v1), 2 (v2)."""
    return 0 if relations == 0 else (N_AF_V1 if relations == 1 else N_AF)


@nb.njit(cache=True)
def n_action_channels(n_cells, n_actions, relations):
    return (n_actions * action_row_width(relations) + n_cells - 1) // n_cells


@nb.njit(cache=True)
def _put(obs, w, a, f, v):
    """Value ``f`` of action ``a``'s row, in a table of ``w`` values a row (planetoids_v1 keeps 8)."""
    if f >= w:
        return
    i = a * w + f
    n = obs.shape[1]
    obs[N_OBS_CH + i // n, i % n] = max(-127, min(127, v))


# What the active piece steers for: the scripted bot's goals (bot.py), which the v2 action table
# measures each step against, stated here once for both.
@nb.njit(cache=True)
def open_planetoid(s, cfg, b, p, i):
    """The hex of the nearest planetoid (from piece ``i``) without a fixed base that no other own
    transport stands on (-1: none)."""
    pos = s.pc[b, p, i, PC_POS]
    best, best_d = -1, 999
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] >= 0:
            continue
        c = cfg.planetoids[f, PL_CELL]
        taken = False
        for j in range(cfg.slot_kind.shape[0]):
            if j != i and cfg.slot_kind[j] == TRANSPORT and s.pc[b, p, j, PC_STATUS] == ON_MAP \
                    and s.pc[b, p, j, PC_POS] == c:
                taken = True
        if taken:
            continue
        d = cfg.dist[pos, c]
        if d < best_d:
            best, best_d = c, d
    return best


@nb.njit(cache=True)
def hunt_target(s, cfg, b, p, i):
    """The hex a hunter steers for: the nearest enemy transport, else the nearest enemy piece or
    fixed base (transports count 20 hexes nearer, fixed bases 10; -1: none)."""
    pos = s.pc[b, p, i, PC_POS]
    q = 1 - p
    best, best_d = -1, 999
    for j in range(cfg.slot_kind.shape[0]):
        if s.pc[b, q, j, PC_STATUS] != ON_MAP:
            continue
        d = cfg.dist[pos, s.pc[b, q, j, PC_POS]] - (20 if cfg.slot_kind[j] == TRANSPORT else 0)
        if d < best_d:
            best, best_d = s.pc[b, q, j, PC_POS], d
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] == q:
            d = cfg.dist[pos, cfg.planetoids[f, PL_CELL]] - 10
            if d < best_d:
                best, best_d = cfg.planetoids[f, PL_CELL], d
    return best


@nb.njit(cache=True)
def _nearest(s, cfg, b, me, cell):
    """(free planetoid, enemy transport, enemy piece or fixed base): hexes from ``cell`` to the nearest."""
    pl = FAR
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] < 0:
            pl = min(pl, cfg.dist[cell, cfg.planetoids[f, PL_CELL]])
    tr = FAR
    en = FAR
    q = 1 - me
    for j in range(cfg.slot_kind.shape[0]):
        if s.pc[b, q, j, PC_STATUS] == ON_MAP:
            d = cfg.dist[cell, s.pc[b, q, j, PC_POS]]
            en = min(en, d)
            if cfg.slot_kind[j] == TRANSPORT:
                tr = min(tr, d)
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] == q:
            en = min(en, cfg.dist[cell, cfg.planetoids[f, PL_CELL]])
    return pl, tr, en


@nb.njit(cache=True)
def _planetoid_here(s, cfg, b, me, cell):
    f = cfg.cell[cell, CI_PLANETOID]
    if f < 0:
        return 0
    owner = s.fx[b, f, FX_OWNER]
    if owner >= 0:
        return 4 if owner == me else 5
    turn = s.g[b, G_TURN]
    cs = cfg.colour_seq
    if visible(cfg, cs[min(turn, cs.shape[0] - 1)], cell):
        return 1
    if visible(cfg, cs[min(turn + 1, cs.shape[0] - 1)], cell):
        return 2
    return 3


@nb.njit(cache=True)
def _where_row(s, cfg, b, me, obs, w, a, cell, family):
    """The distances and the hex of a row whose action leads to ``cell``."""
    if cell < 0:
        return
    _put(obs, w, a, AF_KNOWN, 1)
    pl, tr, en = _nearest(s, cfg, b, me, cell)
    _put(obs, w, a, AF_PLANETOID, pl)
    _put(obs, w, a, AF_ENEMY_TRANSPORT, tr)
    _put(obs, w, a, AF_ENEMY, en)
    _put(obs, w, a, AF_HERE, _planetoid_here(s, cfg, b, me, cell))
    _put(obs, w, a, AF_FAMILY, family)


@nb.njit(cache=True)
def gain_toward(cfg, here, there, goal):
    """Hexes nearer ``goal`` at ``there`` than at ``here`` (0 without a goal or a hex): what a step
    brings, for the action table (planetoids_v2) and the scripted bot's moves alike."""
    if goal < 0 or there < 0:
        return 0
    return cfg.dist[here, goal] - cfg.dist[there, goal]


@nb.njit(cache=True)
def _active_row(s, cfg, b, me, obs, w, a, cell, family, i, open_goal, hunt_goal):
    """A row of the active piece ``i`` whose action leads its bow to ``cell`` (planetoids_v2 adds
    how far its open planetoid is from there and what the step gains toward its goals)."""
    if cell < 0:
        return
    _where_row(s, cfg, b, me, obs, w, a, cell, family)
    pos = s.pc[b, me, i, PC_POS]
    _put(obs, w, a, AF_ACTIVE_KIND, cfg.slot_kind[i] + 1)
    _put(obs, w, a, AF_OPEN, cfg.dist[cell, open_goal] if open_goal >= 0 else FAR)
    _put(obs, w, a, AF_OPEN_GAIN, gain_toward(cfg, pos, cell, open_goal))
    _put(obs, w, a, AF_HUNT_GAIN, gain_toward(cfg, pos, cell, hunt_goal))


@nb.njit(cache=True)
def _hit_faces(thr):
    return max(0, 7 - thr) if thr > 0 else 0


@nb.njit(cache=True)
def _shot_row(obs, w, a, family, thr, own_damage, active_kind, target_kind, target_damage):
    _put(obs, w, a, AF_KNOWN, 1)
    _put(obs, w, a, AF_HIT, _hit_faces(thr + own_damage if thr > 0 else 0))
    _put(obs, w, a, AF_KIND, target_kind + 1)
    _put(obs, w, a, AF_DAMAGE, target_damage)
    _put(obs, w, a, AF_FAMILY, family)
    _put(obs, w, a, AF_ACTIVE_KIND, active_kind + 1)


@nb.njit(inline="always")  # into _obs (its one caller): no compiled copy of its own
def write_action_table(s, cfg, b, me, obs):
    """The action table from player ``me``'s side into the channels after N_OBS_CH."""
    for ch in range(N_OBS_CH, obs.shape[0]):
        obs[ch, :] = 0
    w = action_row_width(cfg.k[K_RELATIONS])
    k = cfg.k
    P = cfg.slot_kind.shape[0]
    q = 1 - me
    # selecting one's pieces and launching (phase select)
    for i in range(P):
        if s.pc[b, me, i, PC_STATUS] == ON_MAP:
            a = k[K_A_PIECE] + i
            _where_row(s, cfg, b, me, obs, w, a, s.pc[b, me, i, PC_POS], F_SELECT)
            _put(obs, w, a, AF_KIND, cfg.slot_kind[i] + 1)
            _put(obs, w, a, AF_DAMAGE, s.pc[b, me, i, PC_DAMAGE])
    for kind in range(CRUISER, FIGHTER + 1):
        for ramp in range(3):
            a = k[K_A_LAUNCH] + 3 * (kind - CRUISER) + ramp
            _where_row(s, cfg, b, me, obs, w, a, launch_position(cfg, me, kind, ramp)[0], F_LAUNCH)
            _put(obs, w, a, AF_KIND, kind + 1)
    # what the active piece may do (phase act)
    if s.g[b, G_PHASE] != ACT or s.g[b, G_CURRENT] != me:
        return
    i = s.g[b, G_ACTIVE]
    kind = cfg.slot_kind[i]
    pos = s.pc[b, me, i, PC_POS]
    colour = colour_now(s, cfg, b)
    open_goal = open_planetoid(s, cfg, b, me, i)
    hunt_goal = hunt_target(s, cfg, b, me, i)
    for d in range(6):
        _active_row(s, cfg, b, me, obs, w, k[K_A_MOVE] + d, cfg.nbr[pos, d], F_MOVE, i, open_goal, hunt_goal)
        # the bow's next hex after a pivot
        _active_row(s, cfg, b, me, obs, w, k[K_A_FACE] + d, cfg.nbr[pos, d], F_PIVOT, i, open_goal, hunt_goal)
    _active_row(s, cfg, b, me, obs, w, k[K_A_END_ACT], pos, F_END, i, open_goal, hunt_goal)
    _active_row(s, cfg, b, me, obs, w, k[K_A_COLONISE], pos, F_COLONISE, i, open_goal, hunt_goal)
    _active_row(s, cfg, b, me, obs, w, k[K_A_REPAIR], pos, F_REPAIR, i, open_goal, hunt_goal)
    own_damage = s.pc[b, me, i, PC_DAMAGE]
    for j in range(P):
        if s.pc[b, q, j, PC_STATUS] != ON_MAP:
            continue
        tk = cfg.slot_kind[j]
        thr = to_hit(cfg, kind, tk, fire_range(s, cfg, b, me, i, q, tk, s.pc[b, q, j, PC_POS],
                                               s.pc[b, q, j, PC_FACING], colour))
        _shot_row(obs, w, k[K_A_TARGET] + j, F_SHOOT, thr, own_damage, kind, tk, s.pc[b, q, j, PC_DAMAGE])
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] != q:
            continue
        thr = to_hit(cfg, kind, FIXED, fire_range(s, cfg, b, me, i, 0, FIGHTER, cfg.planetoids[f, PL_CELL], 0, colour))
        _shot_row(obs, w, k[K_A_FIXED] + f, F_SHOOT_FIXED, thr, own_damage, kind, FIXED, s.fx[b, f, FX_HITS])


@nb.njit(inline="always")  # into reset_range (through reset_one)
def write_outputs(s, cfg, b, obs, mask, key):
    """The buffers of game ``b`` after a reset; ``key`` is its row of obs_key."""
    _obs(state_view(s), config_view(cfg), b, s.g[b, G_CURRENT], obs, key)
    write_mask(s, cfg, b, mask)


# ----------------------------------------------------------------------------
# reset, step, observe: the batched entry points
# ----------------------------------------------------------------------------
@nb.njit(cache=True, forceinline=False)
def reset_game(s0, cfg0, b, seed):
    s, cfg = state_view(s0), config_view(cfg0)
    s.rng[b] = seed_stream(seed)
    s.policy_rng[b] = seed_stream(seed ^ np.uint64(0x5EED))
    s.dice[b, :] = 0
    s.dice_script[b, :] = 0
    s.g[b, G_TURN] = 0
    s.g[b, G_CURRENT] = 0
    s.g[b, G_PHASE] = SETUP
    s.g[b, G_SETUP_COUNT] = 0
    s.pc[b, :, :, PC_STATUS] = RESERVE
    s.pc[b, :, :, PC_POS] = -1
    s.pc[b, :, :, PC_FACING] = 0
    s.pc[b, :, :, PC_DAMAGE] = 0
    s.pc[b, :, :, PC_REPAIR_PROGRESS] = 0
    s.pc[b, :, :, PC_ACTIVATED] = False
    s.pc[b, :, :, PC_REPAIRED] = False
    s.g[b, G_ACTIVE] = -1
    s.g[b, G_STEPS] = 0
    s.g[b, G_SHOTS] = 0
    s.g[b, G_MOVE_DONE] = False
    s.g[b, G_NO_FIRE] = False
    s.g[b, G_COLONISED] = 0
    s.g[b, G_SPACE_SHOTS] = 0
    s.pc[b, :, :, PC_SHOT] = 0
    s.fx[b, :, FX_SHOT] = False
    s.cells[b, :, C_SHOT] = False
    s.g[b, G_LAUNCHED] = -1
    s.g[b, G_LAUNCH_COUNT] = 0
    s.g[b, G_EXIT_CELL] = -1
    s.cells[b, :, C_BLOCKED] = -1
    s.fx[b, :, FX_OWNER] = -1
    s.fx[b, :, FX_HITS] = 0
    s.g[b, G_DECISIONS] = 0
    s.g[b, G_DONE] = False
    s.g[b, G_LAST_DIE] = 0
    if cfg.k[K_FIXED_SETUP]:
        # Option setup="fixed": bases go to the map's listed start hexes.
        for p in range(2):
            for k in range(2):
                s.pc[b, p, k, PC_STATUS] = ON_MAP
                s.pc[b, p, k, PC_POS] = cfg.start_cells[p, k]
        s.g[b, G_SETUP_COUNT] = 4
        _occupancy(s, cfg, b)
        begin_colour_turn(s, cfg, b)
    _occupancy(s, cfg, b)


@nb.njit(inline="always")  # into reset_range, its one compiled entry point
def _reset_one(s, cfg, out, b, seed):
    reset_game(s, cfg, b, seed)
    write_outputs(s, cfg, b, out.obs[b], out.mask[b], out.obs_key[b])
    out.player[b] = s.g[b, G_CURRENT]


@nb.njit(inline="always")  # Numba IR: no compiled copy of its own (see step_range)
def _step_one(s0, cfg0, s, cfg, o, b, a, auto_reset):
    """One decision in game ``b``: ``s``, ``cfg``, ``o`` are views (for the
    inlined code), ``s0``, ``cfg0`` the structs they view (for the calls that
    are not inlined: ``decide`` and the end-of-game path)."""
    o.rewards[b, :] = 0
    o.term[b] = False
    o.trunc[b] = False
    score_reward = cfg.k[K_REWARD_SCORE] != 0
    before = score(s, cfg, b, 0) - score(s, cfg, b, 1) if score_reward else 0
    code = R_NO_SUCH_ACTION if (a < 0 or a >= o.mask.shape[1]) else decide(s0, cfg0, b, a, np.bool_(True))
    o.illegal[b] = code
    if code != OK:
        return
    s.g[b, G_DECISIONS] += 1
    if score_reward:
        # Option reward="score": the change of the score difference, every step.
        d = (score(s, cfg, b, 0) - score(s, cfg, b, 1)) - before
        o.rewards[b, 0] = d
        o.rewards[b, 1] = -d
    if s.g[b, G_DONE]:
        o.term[b] = True
        if not score_reward:
            diff = score(s, cfg, b, 0) - score(s, cfg, b, 1)
            w = 1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0)
            o.rewards[b, 0] = w
            o.rewards[b, 1] = -w
    elif cfg.k[K_MAX_DECISIONS] > 0 and s.g[b, G_DECISIONS] >= cfg.k[K_MAX_DECISIONS]:
        o.trunc[b] = True
    if auto_reset and (o.term[b] or o.trunc[b]):
        for p in range(2):
            write_obs(s0, cfg0, b, p, o.final_obs[b, p])
        reset_game(s0, cfg0, b, next_seed(s, b))
    _obs(s, cfg, b, s.g[b, G_CURRENT], o.obs[b], o.obs_key[b])
    _mask(s, cfg, b, o.mask[b])
    o.player[b] = s.g[b, G_CURRENT]


@nb.njit(cache=True, forceinline=False)
def next_seed(s, b):
    return np.uint64(draw_int(s.rng, b, 2**62))


@nb.njit(cache=True, nogil=True)
def step_range(s0, cfg0, actions, active, out, auto_reset, lo, hi):
    """Games ``lo`` .. ``hi - 1`` of a batch step, in the calling thread (VecGame cuts a batch into
    one range per thread, core/threads.py; VecGame.step_one steps one game as a range of one).
    The step's one compiled entry point: each entry point compiles the whole step, obs and mask
    code once more, so ``_step_one`` and ``step_game`` are inlined, not compiled on their own."""
    s, cfg, o = state_view(s0), config_view(cfg0), outputs_view(out)
    for b in range(lo, hi):
        o.illegal[b] = 0
        if active[b]:
            _step_one(s0, cfg0, s, cfg, o, b, actions[b], auto_reset)


@nb.njit(cache=True, nogil=True)
def reset_range(s, cfg, seeds, idx, out, lo, hi):
    """New games ``idx[lo:hi]`` from ``seeds[lo:hi]``, in the calling thread (as step_range)."""
    for j in range(lo, hi):
        _reset_one(s, cfg, out, idx[j], seeds[j])


@nb.njit(inline="always")
def step_game(s0, cfg0, b, a, out, auto_reset):
    """One decision in game ``b`` (sets ``out.illegal[b]``, 0 if legal): the loops' step
    (core/loops.py), inlined into them."""
    _step_one(s0, cfg0, state_view(s0), config_view(cfg0), outputs_view(out), b, a, auto_reset)


@nb.njit(cache=True)
def observe_game(s, cfg, b, p, obs, mask):
    build_occupancy(s, cfg, b)
    write_obs(s, cfg, b, p, obs)
    mask[:] = 0
    if p == s.g[b, G_CURRENT] and not s.g[b, G_DONE]:
        write_mask(s, cfg, b, mask)
