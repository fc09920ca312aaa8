"""Which actions are legal (RULES.md §12.3, §12.6): ``_reason`` picks each action family's condition
from the chapter modules, and the mask asks the same conditions of every candidate.

The mask asks the conditions that do not depend on the candidate once (fire_common_reason, the way out of
hyperspace per kind), then each candidate's.  What the map alone decides of a hex is read from the tables
that fill_map_tables makes from map_reason and open_space.  The shots into space ask space_hex_failures of
every hex of the map in one branch-free loop (_mask_space_shots).  The mask-oracle test checks at
every step of random play that mask[a] == (action_reason(a) == OK) for every action a, and that both agree
with an independent statement of the rules in plain Python.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (ACT, BASE, CI_VALID, CRUISER, C_BLOCKED, C_OCC, C_SHOT, EXIT_FACE, EXIT_HEX, FIGHTER, G_ACTIVE,
                     G_DECIDER, G_DONE, G_EXIT_CELL, G_PHASE, HYPER, K_A_COLONISE, K_A_END_ACT, K_A_END_TURN, K_A_FACE,
                     K_A_FIXED, K_A_HEX, K_A_HYPER, K_A_LAUNCH, K_A_MOVE, K_A_PIECE, K_A_REPAIR, K_A_TARGET,
                     N_C, OK, PC_STATUS, R_CORRIDOR, R_GAME_OVER, R_OFF_MAP,
                     R_WRONG_PHASE, SELECT, SETUP, config_view, state_view)
from .board import colour_now
from .combat import (fire_common_reason, fire_fixed_reason, fire_hex_reason, fire_piece_reason, firer_footprint,
                     fixed_target_reason, piece_target_reason, space_hex_failures, space_reach)
from .hyperspace import (any_exit, exit_cell_ok, exit_hexes, exit_reason, hyper_dir_reason, hyper_piece_reason,
                         hyper_reason)
from .phases import (launch_limit_reached, launch_place_reason, launch_reason, piece_ready_reason, reserve_slot,
                     select_reason, setup_reason)
from .movement import (move_dir_reason, move_piece_reason, move_reason, pivot_dir_reason, pivot_piece_reason,
                       pivot_reason)
from .repair import repair_reason
from .colonisation import colonise_reason


@kernel(inline="always")  # into decide (its one caller): no compiled copy of its own
def _reason(s, cfg, b, a):
    if s.g[b, G_DONE]:
        return R_GAME_OVER
    p = s.g[b, G_DECIDER]
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


#
# The mask asks the legality functions above, each candidate action of the
# phase in turn, with the conditions that do not depend on the candidate asked
# once (fire_common_reason, the way out of hyperspace per kind).  What the map
# alone decides of a hex is read from the tables that fill_map_tables makes from
# map_reason and open_space.  The shots into space ask space_hex_failures of
# every hex of the map in one branch-free loop (_mask_space_shots).
# The mask-oracle test checks at every step of random play that mask[a] ==
# (action_reason(a) == OK) for every action a, and that both agree with an
# independent statement of the rules in plain Python.
@kernel(cache=True, forceinline=False)
def write_mask(s, cfg, b, mask):
    """Legal-action mask of the player to decide; only the action families the
    current phase allows are examined."""
    _mask(state_view(s), config_view(cfg), b, mask)


@kernel(cache=True, forceinline=True)
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


@kernel(cache=True, forceinline=False)
def _mask_rare(s, cfg, b, mask):
    """Phases SETUP and EXIT_HEX (a hex: setup_reason, exit_cell_ok) and
    EXIT_FACE (a facing: exit_reason), each action as action_reason checks it."""
    ph = s.g[b, G_PHASE]
    p = s.g[b, G_DECIDER]
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


@kernel(cache=True, forceinline=True)
def _mask_select(s, cfg, b, mask):
    """Phase SELECT: select a piece (select_reason, with the costly hyperspace-exit
    search done once per kind instead of once per ship), launch (launch_reason),
    end the turn."""
    pc, slot_kind, k = s.pc, cfg.slot_kind, cfg.k
    p = s.g[b, G_DECIDER]
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


@kernel(cache=True, forceinline=True)
def _mask_act(s, cfg, b, mask):
    """Phase ACT: the active piece's shots (fire_common_reason once, then piece_target_reason,
    fixed_target_reason and the shots into space), moves (move_reason), pivots (pivot_reason),
    hyperspace (hyper_reason), colonising, repair, end of activation."""
    k = cfg.k
    p = s.g[b, G_DECIDER]
    i = s.g[b, G_ACTIVE]
    colour = colour_now(s, cfg, b)
    if fire_common_reason(s, cfg, b) == OK:
        kind, a0, a1, a2 = firer_footprint(s, cfg, b, p)
        for j in range(cfg.slot_kind.shape[0]):
            if piece_target_reason(s, cfg, b, p, kind, a0, a1, a2, j, colour) == OK:
                mask[k[K_A_TARGET] + j] = 1
        for f in range(cfg.planetoids.shape[0]):
            if fixed_target_reason(s, cfg, b, p, kind, a0, a1, a2, f, colour) == OK:
                mask[k[K_A_FIXED] + f] = 1
        _mask_space_shots(s, cfg, b, mask, p, colour)
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


@kernel(cache=True, forceinline=True)
def _mask_space_shots(s, cfg, b, mask, p, colour):
    """fire_hex_reason for every hex at once (after fire_common_reason): space_hex_failures asked of
    each of the map's hexes in one loop over flat arrays, without branches, so that it vectorises (a
    shot into space may go at any hex, and this loop was the hottest of a step)."""
    kind, a0, a1, a2 = firer_footprint(s, cfg, b, p)
    reach = space_reach(s, cfg, b, kind)
    is_base = kind == BASE
    cb = s.cells[b].reshape(-1)  # flat: hex c's column C_x at N_C * c + C_x
    fd = cfg.fire_dist
    a_hex = cfg.k[K_A_HEX]
    oh = cfg.open_hex[colour]
    # 1-D rows and a slice of the mask, indexed from 0: no negative-index wrap-around to compute
    mh = mask[a_hex:a_hex + oh.shape[0]]
    r0, r1, r2 = fd[colour, a0], fd[colour, a1], fd[colour, a2]   # range_from for a one-hex target
    for c in range(mh.shape[0]):
        x = N_C * c
        mh[c] = space_hex_failures(oh[c], cb[x + C_OCC], cb[x + C_OCC + 1], cb[x + C_BLOCKED], cb[x + C_SHOT],
                                   is_base, reach, min(r0[c], r1[c], r2[c])) == 0
