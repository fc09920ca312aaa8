"""Seed 004 "Movimento" (RULES.md §2) and "Astronavi" (§3): a step of the active piece and the
cruisers' and transports' pivot on the bow, each condition beside its effect.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (ACT, CRUISER, EXIT_FACE, G_ACTIVE, G_EXIT_CELL, G_MOVE_DONE, G_PHASE, G_STEPS, KP_MAX_STEPS, OK,
                     PC_FACING, PC_POS, R_CANNOT_PIVOT, R_MOVE_DONE, R_MOVE_LIMIT, R_NOT_FORWARD, R_OFF_MAP,
                     R_SAME_FACING, R_WRONG_PHASE, TRANSPORT)
from .board import colour_now, position_reason
from .hyperspace import exit_reason


@kernel(cache=True, forceinline=True)
def move_reason(s, cfg, b, p, d):
    if s.g[b, G_PHASE] != ACT:
        return R_WRONG_PHASE
    i = s.g[b, G_ACTIVE]
    r = move_piece_reason(s, cfg, b, i)
    if r != OK:
        return r
    return move_dir_reason(s, cfg, b, p, i, d, colour_now(s, cfg, b))


@kernel(cache=True, inline="always")
def move_piece_reason(s, cfg, b, i):
    """move_reason's conditions on the active piece i, whatever the direction."""
    if s.g[b, G_MOVE_DONE]:
        return R_MOVE_DONE
    if s.g[b, G_STEPS] >= cfg.kinds[cfg.slot_kind[i], KP_MAX_STEPS]:
        return R_MOVE_LIMIT
    return OK


@kernel(cache=True, inline="always")
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


@kernel(cache=True, forceinline=True)
def move_step(s, cfg, b, p, d):
    """Seed 004 "Movimento": one hex in direction d."""
    i = s.g[b, G_ACTIVE]
    s.pc[b, p, i, PC_POS] = cfg.nbr[s.pc[b, p, i, PC_POS], d]
    s.g[b, G_STEPS] += 1


@kernel(cache=True, forceinline=True)
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


@kernel(cache=True, inline="always")
def pivot_piece_reason(s, cfg, b, i):
    """pivot_reason's conditions on the active piece i, whatever the facing."""
    kind = cfg.slot_kind[i]
    if kind != CRUISER and kind != TRANSPORT:
        return R_CANNOT_PIVOT
    if s.g[b, G_MOVE_DONE]:
        return R_MOVE_DONE
    return OK


@kernel(cache=True, inline="always")
def pivot_dir_reason(s, cfg, b, p, i, f, colour):
    """pivot_reason's conditions on the facing f."""
    if f == s.pc[b, p, i, PC_FACING]:
        return R_SAME_FACING
    return position_reason(s, cfg, b, p, cfg.slot_kind[i], s.pc[b, p, i, PC_POS], f, colour)


@kernel(cache=True, forceinline=True)
def pivot(s, cfg, b, p, f):
    """Seed 004 "Astronavi": the pivot on the bow ends the piece's move."""
    i = s.g[b, G_ACTIVE]
    s.pc[b, p, i, PC_FACING] = f
    s.g[b, G_MOVE_DONE] = True
