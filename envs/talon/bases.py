"""Talon bases (rulebook section 14): a base has the characteristics of a ship except that it
does not move.  The speed of its power curve is its rotation rate: in the impulses where a ship
of that speed would move, the base turns one hexside clockwise instead (automatic, no decision:
"la base deve ruotare di un lato di esagono alla volta in senso orario").  Its speed changes by
one in the power phase as a ship's (9.3, the existing speed choice); its curve's Power is the same
at every speed (data/ships.json), so its AP do not depend on it.  A base and a friendly ship in
one hex do not collide (no damage).  It has no FTL drive (11.1.4, ``CL_NO_FTL``).  Critical
results 4 (helm down) and 6 (turn radius +1) do not affect it (8.5); 12 (FTL core breach)
destroys it as any ship.

Everything here is asked only for classes marked ``CL_BASE``, which a game holds only with
option ``bases`` on (``K_BASES``); the basic game never meets a base.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import CL_BASE, G_IMPULSE, K_BASES, OK, R_BASE_FIXED, SH_CLASS, SH_FACING, SH_MOVED
from .ships import active, must_move


@kernel(cache=True, inline="always")
def is_base(sh, cfg, b, p, k):
    """Ship ``k`` is a base (asked only when option bases is on: the basic game reads one flag)."""
    return borrow(cfg.k)[K_BASES] != 0 and borrow(cfg.cls)[sh[b, p, k, SH_CLASS], CL_BASE] != 0


@kernel(cache=True, inline="always")
def base_move_reason(sh, cfg, b, p, k):
    """Talon 14: a base does not move (so it neither moves, side slips nor burns an afterburner)."""
    return R_BASE_FIXED if is_base(sh, cfg, b, p, k) else OK


@kernel(cache=True, inline="always")
def base_collision_free(sh, cfg, b, p, k, j):
    """Talon 14 "Se una base ed una nave amica occupano lo stesso esagono non si assegna nessun
    danno": ships ``k`` and ``j`` of one side in one hex do not collide when either is a base."""
    return is_base(sh, cfg, b, p, k) or is_base(sh, cfg, b, p, j)


@kernel(cache=True, inline="always")
def base_ignores_critical(sh, cfg, b, p, k, helm_or_turn):
    """Talon 8.5: bases are not affected by results 4 (helm down) and 6 (turn radius +1)."""
    return helm_or_turn and is_base(sh, cfg, b, p, k)


@kernel(cache=True)
def rotate_bases(s, cfg, b, p):
    """Talon 14: player ``p``'s bases whose speed is in this impulse's box turn one hexside
    clockwise, once, at the start of the player's movement step (marked as moved, so nothing
    else asks them to move).  Facings run E, NE, NW, W, SW, SE anticlockwise: clockwise is -1."""
    sh = s.sh
    imp = s.g[b, G_IMPULSE]
    for k in range(sh.shape[2]):
        if (active(sh, b, p, k) and is_base(sh, cfg, b, p, k) and not sh[b, p, k, SH_MOVED]
                and must_move(sh, cfg, b, p, k, imp)):
            sh[b, p, k, SH_FACING] = (sh[b, p, k, SH_FACING] + 5) % 6
            sh[b, p, k, SH_MOVED] = 1
