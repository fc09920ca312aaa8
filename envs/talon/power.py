"""Talon power (rulebook sections 6, 9 and 10): spending action points and shield
reinforcement (6), the power phase's charging and speed changes (9), batteries (10.1)."""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (CL_BATTERY, CL_N_CURVES, CL_N_GROUPS, GR_COUNT, GR_RED, GR_YELLOW, G_DECIDER, G_IMPULSE, G_INIT,
                     G_PENDING_TURN, G_PP_TURN, G_SHIP, G_STAGE, K_EDITION, OK, R_AP_SPENT, R_ARC_DESTROYED,
                     R_BAR_FULL, R_BATTERY_AP, R_BATTERY_CHARGED, R_INIT_MARKED, R_NEGATIVE_POWER, R_NO_AP,
                     R_NO_BATTERY, R_NO_GROUP, R_NO_REINF, R_NO_SHIP, R_NO_SUCH_ACTION, R_NO_SUCH_SPEED,
                     R_NO_TURN_MARKER, R_POWER_LOSS, R_REINF_LIMIT, R_REINF_PLACED, R_SHIELDS_DOWN, R_SLIP_PLACED,
                     SH_AP_SPENT, SH_BATTERY, SH_CLASS, SH_CURVE, SH_C_PLOSS, SH_C_SHIELDS, SH_GROUP_DEAD,
                     SH_INIT_MARK, SH_POWER, SH_RED, SH_REINF, SH_SHIELD, SH_SLIP, SH_TURN_LEFT, SH_YEL, ST_POWER,
                     U_BATTERY, U_CHANGE, U_CHARGE, U_DEFEND, U_REINF, U_SLIP, U_TURN, config_view, other,
                     state_view)
from .ships import active, chart_ap, power_at_curve
from .fire import destroy
from .terrain import reinforce_terrain_reason
from .bases import base_move_reason


@kernel(cache=True, inline="always")
def reinforcements(sh, b, p, k):
    n = 0
    for a in range(4):
        if sh[b, p, k, SH_REINF + a] > 0:
            n += 1
    return n


@kernel(cache=True, inline="always")
def reinforce_limit(sh, cfg, b, p, k):
    """2nd ed. 6.2.2: two per ship.  1st ed. 6.2.2: half the Power, rounded down, at least 1."""
    if borrow(cfg.k)[K_EDITION] == 1:
        return max(1, sh[b, p, k, SH_POWER] // 2)
    return 2


# ---------------------------------------------------------------------------------
# Legality of spending AP (Talon 6.1, 6.2, 10.1) and of the speed choice (9.3)
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def ap_source(s, cfg, b, p, k):
    """1: AP from the impulse chart, 2: from the battery (Talon 10.1.2), 0: none."""
    sh = borrow(s.sh)
    g = borrow(s.g)
    if chart_ap(sh, cfg, b, p, k, g[b, G_IMPULSE]):
        return 1
    if sh[b, p, k, SH_BATTERY]:
        return 2
    return 0


@kernel(cache=True, inline="always")
def ap_ship_reason(s, cfg, b, p, k):
    """May ship ``k`` spend an AP now at all (Talon 5.1, 6.1, 10.1.2)?"""
    sh = borrow(s.sh)
    if not active(sh, b, p, k):
        return R_NO_SHIP
    if ap_source(s, cfg, b, p, k) == 0:
        return R_NO_AP
    if sh[b, p, k, SH_AP_SPENT]:
        return R_AP_SPENT
    return OK


@kernel(cache=True)
def ap_use_reason(s, cfg, b, p, k, u):
    """May ship ``k``, which has an AP to spend (ap_ship_reason), spend it on use ``u`` (Talon 6.1)?"""
    sh = borrow(s.sh)
    cls = borrow(cfg.cls)
    grp = borrow(cfg.grp)
    k_ = borrow(cfg.k)
    c = sh[b, p, k, SH_CLASS]
    if u == U_SLIP:
        r = base_move_reason(sh, cfg, b, p, k)        # Talon 14 a base does not move: no side slip
        if r != OK:
            return r
        return R_SLIP_PLACED if sh[b, p, k, SH_SLIP] else OK
    if u == U_TURN:
        return OK if sh[b, p, k, SH_TURN_LEFT] > 0 else R_NO_TURN_MARKER
    if U_CHARGE <= u < U_CHARGE + 3:
        gi = u - U_CHARGE
        if gi >= cls[c, CL_N_GROUPS] or (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1:
            return R_NO_GROUP
        return OK if sh[b, p, k, SH_YEL + gi] < grp[c, gi, GR_YELLOW] else R_BAR_FULL
    if u == U_BATTERY:
        if not cls[c, CL_BATTERY]:
            return R_NO_BATTERY
        if sh[b, p, k, SH_BATTERY]:
            return R_BATTERY_CHARGED
        return OK if ap_source(s, cfg, b, p, k) == 1 else R_BATTERY_AP   # 10.1.3 not from itself
    if U_REINF <= u < U_REINF + 4:
        a = u - U_REINF
        if sh[b, p, k, SH_REINF + a] > 0:
            return R_REINF_PLACED
        if sh[b, p, k, SH_C_SHIELDS] > 0:
            return R_SHIELDS_DOWN
        r = reinforce_terrain_reason(s, cfg, b, p, k)     # 17.4.1 not in a nebula
        if r != OK:
            return r
        if k_[K_EDITION] == 1 and sh[b, p, k, SH_SHIELD + a] == 0:
            return R_ARC_DESTROYED
        if reinforcements(sh, b, p, k) >= reinforce_limit(sh, cfg, b, p, k):
            return R_REINF_LIMIT
        return OK
    if u == U_CHANGE or u == U_DEFEND:
        return R_INIT_MARKED if sh[b, p, k, SH_INIT_MARK] else OK
    return R_NO_SUCH_ACTION


@kernel(cache=True)
def ap_reason(s, cfg, b, p, k, u):
    """May ship ``k`` spend its AP of this impulse on use ``u`` (Talon 6.1)?"""
    r = ap_ship_reason(s, cfg, b, p, k)
    if r != OK:
        return r
    return ap_use_reason(s, cfg, b, p, k, u)


@kernel(cache=True, inline="always")
def unreinforce_reason(s, cfg, b, p, k, a):
    """The owner may remove a reinforcement before it expires (Talon 6.2.3)."""
    sh = borrow(s.sh)
    if not active(sh, b, p, k):
        return R_NO_SHIP
    return OK if sh[b, p, k, SH_REINF + a] > 0 else R_NO_REINF


@kernel(cache=True, inline="always")
def speed_reason(s, cfg, b, p, d):
    """Speed choice ``d`` (0 slower, 1 same, 2 faster) for the ship in the power phase (Talon 5.4.3, 9.3)."""
    sh = borrow(s.sh)
    cls = borrow(cfg.cls)
    k = borrow(s.g)[b, G_SHIP]
    c = sh[b, p, k, SH_CLASS]
    if sh[b, p, k, SH_C_PLOSS] > 0 and d != 1:
        return R_POWER_LOSS
    # curves are listed from fastest to slowest: slower = next row
    curve = sh[b, p, k, SH_CURVE] + (1 - d)
    if curve < 0 or curve >= cls[c, CL_N_CURVES]:
        return R_NO_SUCH_SPEED
    if power_at_curve(sh, cfg, b, p, k, curve) < 0:
        return R_NEGATIVE_POWER
    return OK


# ---------------------------------------------------------------------------------
# Spending AP (Talon 6.1); the power phase (Talon 9)
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def apply_ap(s, cfg, b, p, k, u):
    """Spend the ship's AP of this impulse (Talon 6.1); from the battery if the chart gives none (10.1.2)."""
    g = borrow(s.g)
    sh = borrow(s.sh)
    if ap_source(state_view(s), config_view(cfg), b, p, k) == 2:   # views: see layout.py
        sh[b, p, k, SH_BATTERY] = 0
    sh[b, p, k, SH_AP_SPENT] = 1
    if u == U_SLIP:
        sh[b, p, k, SH_SLIP] = 1                      # 6.1 enable a side slip
    elif u == U_TURN:
        sh[b, p, k, SH_TURN_LEFT] -= 1                # 6.1 power through a turn
    elif U_CHARGE <= u < U_CHARGE + 3:
        sh[b, p, k, SH_YEL + u - U_CHARGE] += 1       # 6.1 active charging, 8.1.2
    elif u == U_BATTERY:
        sh[b, p, k, SH_BATTERY] = 1                   # 10.1.3
    elif U_REINF <= u < U_REINF + 4:
        sh[b, p, k, SH_REINF + u - U_REINF] = g[b, G_IMPULSE] + 1   # 6.2, letter of this impulse
    elif u == U_CHANGE:
        sh[b, p, k, SH_INIT_MARK] = 1                 # 4.2
    elif u == U_DEFEND:
        sh[b, p, k, SH_INIT_MARK] = 2


@kernel(cache=True)
def passive_charge(s, cfg, b, p):
    """Power phase charging (Talon 9.2): one red box per group while red boxes are missing,
    else as many yellow boxes as the group has weapons.  Blocked by Power Loss (9.3)."""
    cls = borrow(cfg.cls)
    grp = borrow(cfg.grp)
    sh = borrow(s.sh)
    for k in range(sh.shape[2]):
        if not active(sh, b, p, k) or sh[b, p, k, SH_C_PLOSS] > 0:
            continue
        c = sh[b, p, k, SH_CLASS]
        for gi in range(cls[c, CL_N_GROUPS]):
            if (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1:
                continue
            if sh[b, p, k, SH_RED + gi] < grp[c, gi, GR_RED]:
                sh[b, p, k, SH_RED + gi] += 1
            else:
                y = sh[b, p, k, SH_YEL + gi] + grp[c, gi, GR_COUNT]
                sh[b, p, k, SH_YEL + gi] = min(y, grp[c, gi, GR_YELLOW])


@kernel(cache=True)
def set_curve(s, cfg, b, p, k, curve):
    """Write the new curve and the Power it gives with the hull modifier (Talon 9.3)."""
    sh = borrow(s.sh)
    sh[b, p, k, SH_CURVE] = curve
    sh[b, p, k, SH_POWER] = power_at_curve(sh, config_view(cfg), b, p, k, curve)


@kernel(cache=True)
def next_power_ship(s, cfg, b):
    """Find the next ship that has a speed to choose; ships with one option are set directly."""
    s_view = state_view(s)
    cfg_view = config_view(cfg)
    g = borrow(s.g)
    cls = borrow(cfg.cls)
    sh = borrow(s.sh)
    S = sh.shape[2]
    while g[b, G_PP_TURN] < 2:
        p = g[b, G_INIT] if g[b, G_PP_TURN] == 0 else other(g[b, G_INIT])
        g[b, G_DECIDER] = p
        k = g[b, G_SHIP]
        while k < S:
            if active(sh, b, p, k):
                g[b, G_SHIP] = k
                n_ok = 0
                last = 1
                for d in range(3):
                    if speed_reason(s_view, cfg_view, b, p, d) == OK:
                        n_ok += 1
                        last = d
                if n_ok > 1:
                    return True
                # one or no legal speed: keep/take it; the modifiers still apply (9.3)
                c = sh[b, p, k, SH_CLASS]
                curve = sh[b, p, k, SH_CURVE] + (1 - last)
                if n_ok == 0:
                    curve = sh[b, p, k, SH_CURVE]
                curve = min(max(curve, 0), cls[c, CL_N_CURVES] - 1)
                set_curve(s, cfg, b, p, k, curve)
            k += 1
        g[b, G_PP_TURN] += 1
        g[b, G_SHIP] = 0
        if g[b, G_PP_TURN] == 1:
            passive_charge(s, cfg, b, other(g[b, G_INIT]))
    return False


@kernel(cache=True)
def begin_power_phase(s, cfg, b):
    """After impulse F (Talon 9.1): the initiative player first."""
    g = borrow(s.g)
    g[b, G_IMPULSE] = 6
    g[b, G_STAGE] = ST_POWER
    g[b, G_PP_TURN] = 0
    g[b, G_SHIP] = 0
    passive_charge(s, cfg, b, g[b, G_INIT])


@kernel(cache=True)
def end_power_phase(s, cfg, b):
    """Ships with Power below zero break apart (Talon 5.4.5); the round ends (9.4)."""
    g = borrow(s.g)
    sh = borrow(s.sh)
    g[b, G_PENDING_TURN] = g[b, G_INIT]
    for p in range(2):
        for k in range(sh.shape[2]):
            if active(sh, b, p, k) and sh[b, p, k, SH_POWER] < 0:
                destroy(s, cfg, b, p, k)
