"""Talon fighters (rulebook section 12): squadrons of three fighters, and the AP that carriers and
bases send them through space (12.2).

A squadron is one ship slot of a fighter class (``CL_FIGHTER``, the Terran FTR).  Its three
fighters are its three hull boxes, one each (12.1.2 "I danni sono applicati direttamente all'unica
casella di scafo"; the class's boxes are set to 3 in ``game.build_config``): the hull boxes left
are the fighters left, the squadron is destroyed with its last fighter.  It has no shields (the
class's shields are 0), no FTL (``CL_NO_FTL``, 11.1.4), no AP of its own (its Power is 0), a
minimum speed of 5 (its curve has speeds 6 and 5 only), and no explosion damage (explosion 0,
12.1.2, 8.6.4).  It collides with friendly ships and squadrons as ships do (7.4); the three
fighters of one counter share a slot, so they never collide with each other.

Damage: a weapon "targets one fighter of the squadron" (12.1.3), and so do a collision, an
explosion (8.6.4 "solo uno dei tre caccia ... verrebbe danneggiato"): each such damage event marks the single hull box of one fighter, whatever the damage (the rest is
lost).  The fighters of a counter are alike (the squadron's weapon group, charge bar and markers
belong to the counter), so which fighter the firer picks changes nothing and is not asked.  The
fusion cannon does not harm fighters (12.1.2, 15.2.2), nor do asteroids (17.3 "ECCEZIONE: Caccia
e missili non prendono *mai* danni dagli asteroidi", movement.enter_hex).

AP (12.2): a friendly carrier or base with an AP to spend may spend it on a squadron instead of
itself (action family ``FTR_AP``: carrier x squadron x use): charge a yellow box of the squadron's
weapon group, bring its turn marker one hex closer, or place its side-slip marker (6.1); one AP per
squadron per impulse (12.2.3); the squadron within 6 hexes of the carrier, and the line from the
carrier to it (the line of fire's, ``terrain.line_reason``) crossing no planet or black hole hex
(17.2.2) and no asteroid or nebula hex, the squadron's and the carrier's own included (12.2.3
"queste bloccano la ricezione degli AP così come bloccano o interferiscono con il fuoco"; 17.5
"Asteroidi e nebulose bloccano la trasmissione di potenza ... nello stesso modo in cui un pianeta
blocca il fuoco").
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (OK, R_FIGHTER_FAR, R_NOT_CARRIER, R_NOT_SQUADRON, R_SQUADRON_POWERED, SH_AP_SPENT,
                     SH_BATTERY, SH_CELL, U_CHARGE, U_SLIP, U_TURN, config_view, state_view)
from .ships import active, is_carrier, is_squadron
from .terrain import line_reason
from .power import ap_ship_reason, ap_source, ap_use_reason, apply_ap

FIGHTER_RANGE = 6           # Talon 12.2.3 "a non più di sei esagoni"
N_FTR_USES = 3              # charge the group's yellow box, power through a turn, enable a side slip
FTR_USES = (U_CHARGE, U_TURN, U_SLIP)


@kernel(cache=True, inline="always")
def ftr_use(i):
    """The 6.1 use of FTR_AP use number ``i`` (0 charge group 0, 1 turn, 2 side slip)."""
    if i == 0:
        return U_CHARGE
    if i == 1:
        return U_TURN
    return U_SLIP


@kernel(cache=True)
def fighter_link_reason(s, cfg, b, p, k, j):
    """May carrier or base ``k`` (which has an AP to spend) send it to squadron ``j`` this impulse
    (Talon 12.2.1-12.2.3)?  The use itself is asked of the squadron as for a ship's own AP (6.1)."""
    sh = borrow(s.sh)
    if not is_carrier(sh, cfg, b, p, k):
        return R_NOT_CARRIER
    if not active(sh, b, p, j) or not is_squadron(sh, cfg, b, p, j):
        return R_NOT_SQUADRON
    if sh[b, p, j, SH_AP_SPENT]:
        return R_SQUADRON_POWERED
    fc = sh[b, p, k, SH_CELL]
    tc = sh[b, p, j, SH_CELL]
    if borrow(cfg.dist)[fc, tc] > FIGHTER_RANGE:
        return R_FIGHTER_FAR
    # 12.2.3 with 17.5: asteroids and nebulae, in the squadron's hex or on the line from the
    # carrier, block the AP as planets and black holes block fire (the same line function)
    return line_reason(s, cfg, b, fc, tc, True)


@kernel(cache=True)
def send_fighter_ap(s, cfg, b, p, k, j, i):
    """Carrier ``k`` spends its AP of this impulse (from its battery if the chart gives none,
    10.1.2) on squadron ``j``'s use ``i`` (12.2.2): the squadron takes it as its own AP (6.1),
    which also marks it powered for this impulse (12.2.3)."""
    sh = s.sh
    if ap_source(state_view(s), config_view(cfg), b, p, k) == 2:
        sh[b, p, k, SH_BATTERY] = 0
    sh[b, p, k, SH_AP_SPENT] = 1
    apply_ap(s, cfg, b, p, j, ftr_use(i))


@kernel(cache=True)
def fighter_ap_reason(s, cfg, b, p, k, j, i):
    """May carrier or base ``k`` spend its AP of this impulse on squadron ``j``'s use ``i``
    (Talon 12.2.2-12.2.3 with 6.1)?  (action family FTR_AP)"""
    r = ap_ship_reason(s, cfg, b, p, k)
    if r != OK:
        return r
    r = fighter_link_reason(s, cfg, b, p, k, j)
    if r != OK:
        return r
    return ap_use_reason(s, cfg, b, p, j, ftr_use(i))


@kernel(cache=True)
def fighter_ap_any(s, cfg, b, p, k):
    """Ship ``k`` may send its AP to some squadron on some use (stage ST_AP has a choice)."""
    if ap_ship_reason(s, cfg, b, p, k) != OK:
        return False
    for j in range(borrow(s.sh).shape[2]):
        if fighter_link_reason(s, cfg, b, p, k, j) == OK:
            for i in range(N_FTR_USES):
                if ap_use_reason(s, cfg, b, p, j, ftr_use(i)) == OK:
                    return True
    return False


@kernel(cache=True)
def write_fighter_ap_mask(s, cfg, b, p, k, mask, o):
    """Mark the FTR_AP actions of ship ``k`` (which has an AP to spend: ap_ship_reason) from ``o``."""
    for j in range(borrow(s.sh).shape[2]):
        if fighter_link_reason(s, cfg, b, p, k, j) == OK:
            for i in range(N_FTR_USES):
                if ap_use_reason(s, cfg, b, p, j, ftr_use(i)) == OK:
                    mask[o + N_FTR_USES * j + i] = 1
