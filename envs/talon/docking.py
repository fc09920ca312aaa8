"""Talon docking and landing (rulebook section 16).

In the movement step a player declares that a ship docks or lands (action family ``DOCK``: ship x
move, only with option ``docking``): the ship makes that move (7.1-7.3, as a move would be legal)
into the hex of a friendly carrier or base, or of a planet, and is removed from play (16.2
"la muove nello stesso esagono di una base o di un pianeta e la rimuove dal gioco"), without
collision damage (16.2) or the planet's destruction (17.2.1 does not apply to a landing).  It counts
as retreated and does not come back (16.1).

Who may dock where (16.1-16.3):
* a fighter squadron on a friendly carrier or base, at any speed ("atterraggi a caldo", 16.2), to
  retreat (16.3); always allowed;
* any other ship on a friendly carrier or base only when the scenario says so (field "docking",
  16.1 "consentito solo quando richiesto per raggiungere l'obiettivo di uno scenario");
* any ship on a planet only when the scenario says so (field "landing", 16.1);
* a carrier (``is_carrier``, not a base) docks or lands only at speed 1 (16.2).
A ship docked on a carrier or base leaves with it when it jumps to FTL (it is already retreated),
and is destroyed with it (16.3, ``ships.lose_docked``).
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (G_DOCK_SHIPS, G_LANDING, G_TILES, OK, R_DOCK_SPEED, R_NO_DOCK, SH_AB_LEFT, SH_AB_NOW, SH_CELL,
                     SH_DOCKED, SH_FACING, SH_MOVED, SS_RETREATED, TK_PLANET, config_view, G_IMPULSE)
from .ships import active, is_carrier, neighbour, is_squadron, leave_play, must_move, speed_of
from .bases import is_base
from .movement import move_heading, move_reason
from .terrain import tile_at


@kernel(cache=True, inline="always")
def move_destination(sh, cfg, b, p, k, m):
    """The hex ship ``k`` enters with move ``m`` (7.2.1 turn then advance, 7.3.1 side slip); -1 off the map."""
    _f, d, _arc = move_heading(sh[b, p, k, SH_FACING], m)
    return neighbour(cfg, sh[b, p, k, SH_CELL], d)


@kernel(cache=True, inline="always")
def dock_host(sh, cfg, b, p, k, cell, ships_may):
    """The friendly carrier or base in ``cell`` that ship ``k`` may dock on, or -1 (16.1-16.3)."""
    if not (is_squadron(sh, cfg, b, p, k) or ships_may):
        return -1
    for j in range(sh.shape[2]):
        if (j != k and active(sh, b, p, j) and sh[b, p, j, SH_CELL] == cell
                and (is_carrier(sh, cfg, b, p, j) or is_base(sh, cfg, b, p, j))):
            return j
    return -1


@kernel(cache=True)
def dock_reason(s, cfg, b, p, k, m):
    """May ship ``k`` declare docking or landing with move ``m`` (Talon 16.1-16.3)?"""
    r = move_reason(s, cfg, b, p, k, m)
    if r != OK:
        return r
    sh = borrow(s.sh)
    g = borrow(s.g)
    cell = move_destination(sh, cfg, b, p, k, m)
    if cell < 0:
        return R_NO_DOCK
    ok = dock_host(sh, cfg, b, p, k, cell, g[b, G_DOCK_SHIPS] != 0) >= 0
    if not ok and g[b, G_LANDING] and g[b, G_TILES] > 0:
        ok = tile_at(s, b, cell) == TK_PLANET
    if not ok:
        return R_NO_DOCK
    if is_carrier(sh, cfg, b, p, k) and not is_base(sh, cfg, b, p, k) and speed_of(sh, cfg, b, p, k) != 1:
        return R_DOCK_SPEED
    return OK


@kernel(cache=True)
def dock(s, cfg, b, p, k, m):
    """Ship ``k`` moves into the hex (an afterburner if it did not have to move, 10.2) and is removed
    from play, retreated, aboard the carrier or base there (16.2); no collision, no terrain effect."""
    sh = s.sh
    cview = config_view(cfg)
    if not must_move(sh, cview, b, p, k, s.g[b, G_IMPULSE]):
        sh[b, p, k, SH_AB_LEFT] -= 1
        sh[b, p, k, SH_AB_NOW] = 1
    sh[b, p, k, SH_MOVED] = 1
    cell = move_destination(sh, cview, b, p, k, m)
    host = dock_host(sh, cview, b, p, k, cell, s.g[b, G_DOCK_SHIPS] != 0)
    sh[b, p, k, SH_CELL] = cell
    leave_play(sh, b, p, k, SS_RETREATED)
    sh[b, p, k, SH_DOCKED] = host + 1
