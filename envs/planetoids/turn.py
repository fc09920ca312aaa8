"""Seed 004 "Fasi del gioco" (RULES.md §5, turn structure and the end of the game): a colour turn and
the two players' moves in it, a piece's activation, the end after the last colour turn, and the score.
"""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from .layout import (C_BLOCKED, C_SHOT, FX_HITS, FX_OWNER, FX_SHOT, G_ACTIVE, G_COLONISED, G_DECIDER, G_DONE,
                     G_LAUNCHED, G_LAUNCH_COUNT, G_MOVE_DONE, G_NO_FIRE, G_PHASE, G_SHOTS, G_SPACE_SHOTS, G_STEPS,
                     G_TURN, ON_MAP, OVER, PC_ACTIVATED, PC_FACING, PC_POS, PC_REPAIRED, PC_SHOT, PC_STATUS, SELECT,
                     TRANSPORT)
from .board import colour_now, fp_cell, fp_size, visible
from .combat import destroy_cascade


@kernel(cache=True, forceinline=False)
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


@kernel(cache=True, forceinline=True)
def begin_move(s, cfg, b, p):
    """Start of player p's move inside the current colour turn."""
    s.g[b, G_DECIDER] = p
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


@kernel(cache=True, forceinline=True)
def begin_activation(s, cfg, b, i):
    """Seed 004 "Movimento": piece i of the player to move acts (moves, turns, fires) now."""
    s.g[b, G_ACTIVE] = i
    clear_activation(s, b)
    s.pc[b, s.g[b, G_DECIDER], i, PC_ACTIVATED] = True


@kernel(cache=True, forceinline=True)
def clear_activation(s, b):
    """What an activation has done, cleared (a new activation, a new game): its steps, shots and
    shots into space, whether its move is over, fire forbidden, a colonisation, and which pieces,
    fixed bases and hexes it has shot at."""
    s.g[b, G_STEPS] = 0
    s.g[b, G_SHOTS] = 0
    s.g[b, G_MOVE_DONE] = False
    s.g[b, G_NO_FIRE] = False
    s.g[b, G_COLONISED] = 0
    s.g[b, G_SPACE_SHOTS] = 0
    s.pc[b, :, :, PC_SHOT] = 0
    s.fx[b, :, FX_SHOT] = False
    s.cells[b, :, C_SHOT] = False


@kernel(cache=True, forceinline=True)
def end_activation(s, b):
    s.g[b, G_ACTIVE] = -1
    s.g[b, G_PHASE] = SELECT


@kernel(cache=True, forceinline=True)
def end_move(s, cfg, b):
    p = s.g[b, G_DECIDER]
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


@kernel(cache=True, forceinline=True)
def score(s, cfg, b, p):
    """Seed 004 "Punteggio": 4 points per fixed base, minus 1 per hit it took."""
    total = 0
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] == p:
            total += 4 - s.fx[b, f, FX_HITS]
    return total
