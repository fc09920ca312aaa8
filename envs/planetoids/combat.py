"""Seed 004 "Combattimento" (RULES.md §6), "Distruzione Basi Fisse" (§9) and the attack tables (§11):
range and line of fire, the shots a piece has left, and each kind of shot (at a piece, at a fixed base, into
empty space) with its condition beside its effect; resolving a shot and the destructions it causes.
"""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from ..core.rng import roll_die
from .layout import (ACT, BASE, C_BLOCKED, C_DEAD, C_OCC, C_SHOT, DESTROYED, FIGHTER, FIXED, FX_HITS, FX_OWNER, FX_SHOT,
                     G_ACTIVE, G_DECIDER, G_LAST_DIE, G_NO_FIRE, G_PHASE, G_SHOTS, G_SPACE_SHOTS, KP_SHOTS,
                     K_BASE_SPACE_EACH_HEX, MAX_HITS, OK, ON_MAP, PC_DAMAGE, PC_FACING, PC_POS, PC_SHOT, PC_STATUS,
                     PL_CELL, R_ALREADY_SHOT, R_BASE_ONE_SPACE_SHOT, R_BLOCKED_HEX, R_FIGHTER_FIXED_RANGE,
                     R_HEX_NOT_EMPTY, R_IMPASSABLE, R_NOT_TARGETABLE, R_NO_FIRE_HYPER, R_NO_SHOTS, R_OUT_OF_RANGE,
                     R_WRONG_PHASE)
from .board import _occupancy, colour_now, fp_cell, fp_size


@kernel(cache=True, inline="always")
def to_hit(cfg, att_kind, tgt_kind, rng):
    """Seed 004 attack tables: lowest d6 result that hits, 0 if out of range."""
    if rng < 1 or rng >= cfg.hit_table.shape[2]:
        return 0
    return cfg.hit_table[att_kind, tgt_kind, rng]


@kernel(cache=True, forceinline=True)
def fire_range(s, cfg, b, player, i, tq, tkind, tpos, tface, colour):
    """Seed 004 "Combattimento": rockets fly any path, through ships but not
    through asteroid belts or planetoids; range is the shortest such path from
    the firer to the target (a single hex: pass tkind=FIGHTER)."""
    a0, a1, a2 = footprint3(cfg, player, cfg.slot_kind[i], s.pc[b, player, i, PC_POS], s.pc[b, player, i, PC_FACING])
    return range_from(cfg, a0, a1, a2, tq, tkind, tpos, tface, colour)


@kernel(cache=True, inline="always")
def footprint3(cfg, player, kind, pos, facing):
    """A piece's hexes (fp_cell): it covers at most 3; a missing one repeats the first."""
    n = fp_size(cfg, kind)
    a0 = fp_cell(cfg, player, kind, pos, facing, 0)
    a1 = fp_cell(cfg, player, kind, pos, facing, 1) if n > 1 else a0
    a2 = fp_cell(cfg, player, kind, pos, facing, 2) if n > 2 else a0
    return a0, a1, a2


@kernel(cache=True, inline="always")
def firer_footprint(s, cfg, b, p):
    """The active piece's kind and the hexes it fires from (footprint3)."""
    i = s.g[b, G_ACTIVE]
    kind = cfg.slot_kind[i]
    a0, a1, a2 = footprint3(cfg, p, kind, s.pc[b, p, i, PC_POS], s.pc[b, p, i, PC_FACING])
    return kind, a0, a1, a2


@kernel(cache=True, inline="always")
def range_from(cfg, a0, a1, a2, tq, tkind, tpos, tface, colour):
    """fire_range from a firer covering the hexes a0, a1, a2 (footprint3)."""
    dist = cfg.fire_dist[colour]
    best = 999
    for m in range(fp_size(cfg, tkind)):
        t = fp_cell(cfg, tq, tkind, tpos, tface, m)
        best = min(best, dist[a0, t], dist[a1, t], dist[a2, t])
    return best


@kernel(cache=True, forceinline=True)
def shots_left(s, cfg, b, kind):
    # Seed 004 "Astronavi": cruisers fire twice, fighters once, transports never;
    # mobile bases once at every target they reach (checked per target).
    if kind == BASE:
        return True
    return s.g[b, G_SHOTS] < cfg.kinds[kind, KP_SHOTS]


@kernel(cache=True, forceinline=True)
def space_shot_spent(s, cfg, b, kind):
    """Seed 004 "Astronavi" ("Spara su tutti i bersagli raggiungibili (1 volta su
    ciascuno)") with "Combattimento" ("E' permesso sparare un colpo 'a vuoto'"): the
    targets of a mobile base are the enemy pieces and fixed bases in reach, each once;
    into space it fires the one shot any ship may make, once per activation.  Option
    base_space_shots="each_hex" restores every empty hex as a target (RULES.md §3).
    True when the active piece may fire no (further) shot into space for that reason."""
    return kind == BASE and cfg.k[K_BASE_SPACE_EACH_HEX] == 0 and s.g[b, G_SPACE_SHOTS] > 0


@kernel(cache=True, forceinline=True)
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


@kernel(cache=True, forceinline=True)
def fire_piece_reason(s, cfg, b, p, j):
    r = fire_common_reason(s, cfg, b)
    if r != OK:
        return r
    kind, a0, a1, a2 = firer_footprint(s, cfg, b, p)
    return piece_target_reason(s, cfg, b, p, kind, a0, a1, a2, j, colour_now(s, cfg, b))


@kernel(cache=True, inline="always")
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


@kernel(cache=True, forceinline=True)
def fire_at_piece(s, cfg, b, j):
    p = s.g[b, G_DECIDER]
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


@kernel(cache=True, forceinline=True)
def fire_fixed_reason(s, cfg, b, p, f):
    r = fire_common_reason(s, cfg, b)
    if r != OK:
        return r
    kind, a0, a1, a2 = firer_footprint(s, cfg, b, p)
    return fixed_target_reason(s, cfg, b, p, kind, a0, a1, a2, f, colour_now(s, cfg, b))


@kernel(cache=True, inline="always")
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


@kernel(cache=True, forceinline=True)
def fire_at_fixed(s, cfg, b, f):
    p = s.g[b, G_DECIDER]
    i = s.g[b, G_ACTIVE]
    thr = to_hit(cfg, cfg.slot_kind[i], FIXED,
                 fire_range(s, cfg, b, p, i, 0, FIGHTER, cfg.planetoids[f, PL_CELL], 0, colour_now(s, cfg, b)))
    s.fx[b, f, FX_SHOT] = True
    if resolve_shot(s, cfg, b, thr):
        s.fx[b, f, FX_HITS] += 1  # Seed 004 "Distruzione Basi Fisse": destroyed by the 5th hit
        if s.fx[b, f, FX_HITS] > MAX_HITS:
            destroy_cascade(s, cfg, b, np.int64(-1), np.int64(-1), f)


# The conditions of a shot into a hex, one bit each when it fails (space_hex_failures)
SF_IMPASSABLE, SF_NOT_EMPTY, SF_BLOCKED, SF_SHOT, SF_RANGE = 1, 2, 4, 8, 16


@kernel(cache=True, inline="always")
def space_reach(s, cfg, b, kind):
    """The ranges at which a shot into space by a piece of ``kind`` can hit, bit r for range r: "as hard
    as firing at oneself" (to_hit against its own kind); none once a base has spent its one shot into
    space (space_shot_spent)."""
    reach = 0
    if not space_shot_spent(s, cfg, b, kind):
        for r in range(1, cfg.hit_table.shape[2]):   # 11 columns (game._hit_table): bit 63 stays 0
            if to_hit(cfg, kind, kind, r) > 0:
                reach |= 1 << r
    return reach


@kernel(cache=True, inline="always")
def space_hex_failures(open_, occ0, occ1, blocked, shot, is_base, reach, rng):
    """Seed 004 "Combattimento": the conditions of a shot into empty space at one hex, stated once, a bit
    (SF_*) for each that fails: the hex is open space (open_hex, from open_space), no piece of either side
    on it, not yet blocked, not already shot at by a base (option base_space_shots="each_hex"), in reach
    (bit ``rng`` of space_reach).  Branch-free, so that the mask's loop over every hex vectorises."""
    d = max(0, min(rng, 63))
    return (SF_IMPASSABLE * (open_ == 0) | SF_NOT_EMPTY * ((occ0 > 0) | (occ1 > 0)) | SF_BLOCKED * (blocked >= 0)
            | SF_SHOT * ((shot != 0) & is_base) | SF_RANGE * (((reach >> d) & 1) == 0))


@kernel(cache=True, forceinline=True)
def fire_hex_reason(s, cfg, b, p, cell):
    """Seed 004 "Combattimento": a shot into empty space, as hard as firing at oneself."""
    r = fire_common_reason(s, cfg, b)
    if r != OK:
        return r
    kind, a0, a1, a2 = firer_footprint(s, cfg, b, p)
    if space_shot_spent(s, cfg, b, kind):
        return R_BASE_ONE_SPACE_SHOT
    colour = colour_now(s, cfg, b)
    c = s.cells[b, cell]
    fails = space_hex_failures(cfg.open_hex[colour, cell], c[C_OCC], c[C_OCC + 1], c[C_BLOCKED], c[C_SHOT],
                               kind == BASE, space_reach(s, cfg, b, kind),
                               range_from(cfg, a0, a1, a2, 0, FIGHTER, cell, 0, colour))
    if fails & SF_IMPASSABLE:
        return R_IMPASSABLE
    if fails & SF_NOT_EMPTY:
        return R_HEX_NOT_EMPTY
    if fails & SF_BLOCKED:
        return R_BLOCKED_HEX
    if fails & SF_SHOT:
        return R_ALREADY_SHOT
    if fails & SF_RANGE:
        return R_OUT_OF_RANGE
    return OK


@kernel(cache=True, forceinline=True)
def fire_at_hex(s, cfg, b, cell):
    p = s.g[b, G_DECIDER]
    i = s.g[b, G_ACTIVE]
    kind = cfg.slot_kind[i]
    thr = to_hit(cfg, kind, kind, fire_range(s, cfg, b, p, i, 0, FIGHTER, cell, 0, colour_now(s, cfg, b)))
    s.cells[b, cell, C_SHOT] = True
    s.g[b, G_SPACE_SHOTS] += 1
    if resolve_shot(s, cfg, b, thr):
        s.cells[b, cell, C_BLOCKED] = p


@kernel(cache=True, forceinline=True)
def resolve_shot(s, cfg, b, threshold):
    """One d6 against the table threshold, worsened by 1 per damage the firer has
    taken (Seed 004 "Combattimento")."""
    p = s.g[b, G_DECIDER]
    i = s.g[b, G_ACTIVE]
    die = roll_die(s.rng, s.dice_script, s.dice, b, 6)
    s.g[b, G_LAST_DIE] = die
    s.g[b, G_SHOTS] += 1
    return die >= threshold + s.pc[b, p, i, PC_DAMAGE]


@kernel(cache=True, forceinline=False)
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
