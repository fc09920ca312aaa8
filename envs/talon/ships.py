"""Talon ships and the map (rulebook sections 2.2, 4.1 and 5): hex geometry, the
impulse chart, a ship's power curve, speed and turn radius, and taking a ship out of play."""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (CL_N_HULL, K_COLS, K_ROWS, SH_CLASS, SH_CURVE, SH_C_POWER, SH_C_TURN, SH_HULL_HITS, SH_INIT_MARK, SH_POWER,
                     SH_STATUS, SS_ACTIVE)


# ---------------------------------------------------------------------------------
# Geometry on the odd-r hex grid (shared conventions: envs/core/hexgrid.py)
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def to_axial(cell, cols):
    r = cell // cols
    c = cell % cols
    return c - (r - (r & 1)) // 2, r


@kernel(cache=True, inline="always")
def from_axial(q, r, rows, cols):
    """Cell of axial (q, r), or -1 off the map."""
    if r < 0 or r >= rows:
        return -1
    c = q + (r - (r & 1)) // 2
    if c < 0 or c >= cols:
        return -1
    return r * cols + c


# axial step per direction E, NE, NW, W, SW, SE
DQ = np.array([1, 1, 0, -1, -1, 0], dtype=np.int64)
DR = np.array([0, -1, -1, 0, 1, 1], dtype=np.int64)


@kernel(cache=True, inline="always")
def neighbour(cfg, cell, d):
    """The hex next to ``cell`` in direction ``d``, -1 off the map."""
    cols = borrow(cfg.k)[K_COLS]
    q, r = to_axial(cell, cols)
    return from_axial(q + DQ[d], r + DR[d], borrow(cfg.k)[K_ROWS], cols)


@kernel(cache=True, inline="always")
def axial_distance(q1, r1, q2, r2):
    dq = q1 - q2
    dr = r1 - r2
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


# ---------------------------------------------------------------------------------
# Ship helpers
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def active(sh, b, p, k):
    return sh[b, p, k, SH_STATUS] == SS_ACTIVE


@kernel(cache=True, inline="always")
def hull_worn(sh, cfg, b, p, k):
    """The share of a ship's hull boxes marked (8.4): 0 intact, 1 the last box gone."""
    return sh[b, p, k, SH_HULL_HITS] / max(1, cfg.cls[sh[b, p, k, SH_CLASS], CL_N_HULL])


@kernel(cache=True, inline="always")
def hull_modifier(sh, cfg, b, p, k):
    """Power modifier in the left-most unmarked hull box (Talon 8.4.2)."""
    c = sh[b, p, k, SH_CLASS]
    h = sh[b, p, k, SH_HULL_HITS]
    if h >= borrow(cfg.cls)[c, CL_N_HULL]:
        return 0
    return borrow(cfg.hull)[c, h, 0]


@kernel(cache=True, inline="always")
def power_at_curve(sh, cfg, b, p, k, curve):
    """Power a ship would have on ``curve`` with its damage (Talon 5.4.4, 8.4.2, critical 8)."""
    c = sh[b, p, k, SH_CLASS]
    return borrow(cfg.curve)[c, curve, 0] + hull_modifier(sh, cfg, b, p, k) - sh[b, p, k, SH_C_POWER]


@kernel(cache=True, inline="always")
def speed_of(sh, cfg, b, p, k):
    return borrow(cfg.curve)[sh[b, p, k, SH_CLASS], sh[b, p, k, SH_CURVE], 1]


@kernel(cache=True, inline="always")
def turn_radius(sh, cfg, b, p, k):
    """Turn radius of the curve plus the Turn +1/+2 critical marker (Talon 5.4, critical 6)."""
    return cfg.curve[sh[b, p, k, SH_CLASS], sh[b, p, k, SH_CURVE], 2] + sh[b, p, k, SH_C_TURN]


@kernel(cache=True, inline="always")
def in_chart(cfg, impulse, value):
    """Is ``value`` printed in the box of ``impulse`` (Talon 4.1)?"""
    if value < 1 or value > 6 or impulse > 5:
        return False
    return borrow(cfg.chart)[impulse, value] != 0


@kernel(cache=True, inline="always")
def chart_ap(sh, cfg, b, p, k, impulse):
    return in_chart(cfg, impulse, sh[b, p, k, SH_POWER])


@kernel(cache=True, inline="always")
def must_move(sh, cfg, b, p, k, impulse):
    return in_chart(cfg, impulse, speed_of(sh, cfg, b, p, k))


@kernel(cache=True, inline="always")
def leave_play(sh, b, p, k, status):
    """The ship's counter leaves the map: destroyed (Talon 8.6.1 "la nave è immediatamente
    distrutta. Rimuovere il segnalino") or retreated (7.5.2 "viene rimossa dal gioco").
    The markers on it leave with it: its initiative marker no longer counts (4.2), and
    nothing collides with it any more (7.4, next_collision)."""
    sh[b, p, k, SH_STATUS] = status
    sh[b, p, k, SH_INIT_MARK] = 0


# --- Talon 12 fighters, 16 docking ---
from .layout import CL_CARRIER, CL_FIGHTER, CL_POINTS, G_SP0, K_FIGHTERS, SH_DOCKED, SS_DESTROYED, SS_RETREATED  # noqa: E402


@kernel(cache=True, inline="always")
def is_squadron(sh, cfg, b, p, k):
    """Ship ``k`` is a fighter squadron (Talon 12.1; the basic game reads one flag)."""
    return borrow(cfg.k)[K_FIGHTERS] != 0 and borrow(cfg.cls)[sh[b, p, k, SH_CLASS], CL_FIGHTER] != 0


@kernel(cache=True, inline="always")
def is_carrier(sh, cfg, b, p, k):
    """Ship ``k`` can send AP to fighters: a carrier or a base (Talon 12.2.1)."""
    return borrow(cfg.cls)[sh[b, p, k, SH_CLASS], CL_CARRIER] != 0


# --- Talon 16 docking ---
@kernel(cache=True, inline="always")
def host_of(sh, b, p, k):
    """The friendly carrier or base ship ``k`` is docked aboard (16.2: removed from play, "retreated",
    aboard its host), or -1."""
    if sh[b, p, k, SH_STATUS] == SS_RETREATED:
        return sh[b, p, k, SH_DOCKED] - 1
    return -1


@kernel(cache=True)
def lose_docked(s, cfg, b, p, k):
    """Talon 16.3 "Se un trasporto con caccia atterrati viene distrutto, si considerano distrutti anche
    tutti i caccia a bordo": the ships docked on ship ``k`` are destroyed with it (the enemy scores
    them; they are off the map, so they do not explode)."""
    sh = s.sh
    for j in range(sh.shape[2]):
        if sh[b, p, j, SH_STATUS] == SS_RETREATED and sh[b, p, j, SH_DOCKED] == k + 1:
            sh[b, p, j, SH_STATUS] = SS_DESTROYED
            s.g[b, G_SP0 + 1 - p] += borrow(cfg.cls)[sh[b, p, j, SH_CLASS], CL_POINTS]
