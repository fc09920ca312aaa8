"""Talon retreat (rulebook section 11): the FTL drive winding up, which ships may jump to
FTL in the retreat phase, and the jump itself; the retreat phase's place in the round is
in ``sequence`` (3.2: after the power phase, the pull of black holes and the supply phase)."""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (CL_NO_FTL, CL_N_HULL, G_ROUND, OK, R_NO_FTL, R_NO_SHIP, SH_CLASS, SH_C_FTL, SS_RETREATED)
from .ships import active, leave_play
from .terrain import retreat_terrain_reason


@kernel(cache=True, inline="always")
def ftl_reason(s, cfg, b, p, k):
    """Is ship ``k``'s FTL drive active (Talon 11.1.3)?  It winds up in the power phase of
    the round whose number equals the ship's hull boxes (a Terran CA, 6 boxes: round 6),
    so from the retreat phase of that round on; a base has none (11.1.4); an "FTL offline"
    critical marker (8.5, result 10) keeps it off until repaired."""
    sh = borrow(s.sh)
    c = sh[b, p, k, SH_CLASS]
    cls = borrow(cfg.cls)
    if cls[c, CL_NO_FTL]:
        return R_NO_FTL
    if borrow(s.g)[b, G_ROUND] < cls[c, CL_N_HULL]:
        return R_NO_FTL
    if sh[b, p, k, SH_C_FTL] > 0:
        return R_NO_FTL
    return OK


@kernel(cache=True, inline="always")
def retreat_reason(s, cfg, b, p, k):
    """May ship ``k`` jump to FTL in this retreat phase (Talon 11.1.2-11.1.4)?"""
    if not active(borrow(s.sh), b, p, k):
        return R_NO_SHIP
    r = ftl_reason(s, cfg, b, p, k)
    if r != OK:
        return r
    return retreat_terrain_reason(s, cfg, b, p, k)     # 11.1.4 not from a nebula or asteroids


@kernel(cache=True)
def jump_to_ftl(s, b, p, k):
    """The ship leaves normal space, whatever is in front of it (11.1.2); set aside as
    retreated, it scores nothing for the enemy (RULES.md 'End of the game')."""
    leave_play(s.sh, b, p, k, SS_RETREATED)
