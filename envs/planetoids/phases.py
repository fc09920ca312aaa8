"""Seed 004 "Fasi del gioco" (RULES.md §5, setup and launching): placing the bases, choosing the piece
that acts, and launching a piece of the reserve from a ramp, each condition beside its effect.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (ACT, BASE, CI_HOME_DIST, CRUISER, EXIT_HEX, FIGHTER, G_DECIDER, G_LAUNCHED, G_LAUNCH_COUNT,
                     G_NO_FIRE, G_PHASE, G_SETUP_COUNT, HYPER, K_SHIP_LENGTH, OK, ON_MAP, PC_ACTIVATED, PC_FACING,
                     PC_POS, PC_REPAIRED, PC_STATUS, RESERVE, R_ALREADY_ACTIVATED, R_LAUNCH_LIMIT, R_NOT_NEAR_HOME,
                     R_NO_EXIT, R_NO_RESERVE, R_PIECE_UNAVAILABLE, R_PLACEMENT, R_UNDER_REPAIR, R_WRONG_PHASE, SELECT,
                     TRANSPORT)
from .board import colour_now, fp_cell, fp_size, position_reason
from .turn import begin_activation, begin_colour_turn
from .hyperspace import any_exit


@kernel(cache=True, forceinline=True)
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


@kernel(cache=True, forceinline=True)
def place_base(s, cfg, b, p, cell):
    """Seed 004 "Fasi del gioco": the players place their 2 bases in turn; then the first turn begins."""
    slot = s.g[b, G_SETUP_COUNT] // 2
    s.pc[b, p, slot, PC_STATUS] = ON_MAP
    s.pc[b, p, slot, PC_POS] = cell
    s.g[b, G_SETUP_COUNT] += 1
    if s.g[b, G_SETUP_COUNT] >= 4:
        begin_colour_turn(s, cfg, b)
    else:
        s.g[b, G_DECIDER] = 1 - p


@kernel(cache=True, forceinline=True)
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


@kernel(cache=True, inline="always")
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


@kernel(cache=True, forceinline=True)
def select_piece(s, cfg, b, p, i):
    """Seed 004 "Movimento": the selected piece acts; a piece in hyperspace first chooses where it
    comes out ("Iperspazio"), and fires no more in that move."""
    begin_activation(s, cfg, b, i)
    if s.pc[b, p, i, PC_STATUS] == HYPER:
        s.g[b, G_PHASE] = EXIT_HEX
        s.g[b, G_NO_FIRE] = True
    else:
        s.g[b, G_PHASE] = ACT


@kernel(cache=True, forceinline=True)
def launch_reason(s, cfg, b, p, kind, ramp):
    """Seed 004 "Fasi del gioco": per turn 1 transport, or 1 cruiser, or 3 fighters, from the ramps."""
    if s.g[b, G_PHASE] != SELECT:
        return R_WRONG_PHASE
    if launch_limit_reached(s, b, kind):
        return R_LAUNCH_LIMIT
    if reserve_slot(s, cfg, b, p, kind) < 0:
        return R_NO_RESERVE
    return launch_place_reason(s, cfg, b, p, kind, ramp, colour_now(s, cfg, b))


@kernel(cache=True, inline="always")
def launch_limit_reached(s, b, kind):
    """Seed 004 "Fasi del gioco": per turn 1 transport, or 1 cruiser, or up to 3 fighters."""
    launched = s.g[b, G_LAUNCHED]
    return launched >= 0 and (launched != FIGHTER or kind != FIGHTER or s.g[b, G_LAUNCH_COUNT] >= 3)


@kernel(cache=True, forceinline=True)
def reserve_slot(s, cfg, b, p, kind):
    for i in range(cfg.slot_kind.shape[0]):
        if cfg.slot_kind[i] == kind and s.pc[b, p, i, PC_STATUS] == RESERVE:
            return i
    return -1


@kernel(cache=True, forceinline=True)
def launch_position(cfg, p, kind, ramp):
    """A launched ship starts with its stern on the ramp, facing away from the planet (RULES.md)."""
    cell = cfg.ramps[p, ramp, 0]
    d = cfg.ramps[p, ramp, 1]
    if (kind == CRUISER or kind == TRANSPORT) and cfg.k[K_SHIP_LENGTH] == 2:
        return cfg.nbr[cell, d], d
    return cell, d


@kernel(cache=True, inline="always")
def launch_place_reason(s, cfg, b, p, kind, ramp, colour):
    """launch_reason's condition on the ramp: the launched piece's hexes may be stood on."""
    pos, facing = launch_position(cfg, p, kind, ramp)
    if position_reason(s, cfg, b, p, kind, pos, facing, colour) != OK:
        return R_PLACEMENT
    return OK


@kernel(cache=True, forceinline=True)
def launch(s, cfg, b, p, kind, ramp):
    """Seed 004 "Fasi del gioco": a piece of the reserve enters on a ramp (launch_position)."""
    i = reserve_slot(s, cfg, b, p, kind)
    pos, facing = launch_position(cfg, p, kind, ramp)
    s.pc[b, p, i, PC_STATUS] = ON_MAP
    s.pc[b, p, i, PC_POS] = pos
    s.pc[b, p, i, PC_FACING] = facing
    s.g[b, G_LAUNCHED] = kind
    s.g[b, G_LAUNCH_COUNT] += 1
