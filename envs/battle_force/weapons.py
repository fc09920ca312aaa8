"""Which weapon cards a ship can fire (SFBF 4.3, Armi opzionali di Orione): one card per weapon symbol,
Ph-1 fires as Ph-2/3 and Plasma-R as S/F, Orion WPN symbols, and the range limits of the formation
rules (SFBF Regole sulla Formazione) on an attack card.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import local_i32
from .layout import (CC_TYPE, CD_LOC, CD_SHIP, CD_WHO, CL_ATK, CL_DEF, CL_HAND, CX_CLOAK, G_CANCELS, G_TABLE_N, K_NC,
                     K_WPN, L_MAIN, N_KIND, N_WEAPONS, OK, R_NO_WEAPON, R_RANGE, R_SEEKING, R_SHIP_STATE, SH_LINE,
                     T_DISR, T_DRONE, T_PH1, T_PH2, T_PH3, T_PHOTON, T_PLF, T_PLR, T_PLS)
from .ships import cloaked, symbols, uses_formation, webbed
from .cards import is_phaser, is_seeking


@kernel(cache=True)
def wpn_needed(avail, cnt):
    """WPN symbols an Orion ship needs to fire the weapon cards ``cnt`` (by type) when its own
    symbols ``avail`` (by kind) are used first; -1 if impossible.

    Phaser-1 symbols also fire Phaser-2 and -3 cards, Phaser-2 symbols Phaser-3; Plasma-R
    symbols fire S and F, Plasma-S symbols F; a WPN symbol fires any card but Plasma-R, a
    Plasma-S card needs two WPN; at most one card per symbol (SFBF 4.3 example: a D7 plays at
    most five attack cards).  Using the most specific symbol first is optimal for these
    nested capabilities, so the greedy count is exact."""
    need = 0
    # phasers
    f1 = avail[T_PH1] - cnt[T_PH1]
    if f1 < 0:
        need -= f1
        f1 = 0
    f2 = avail[T_PH2] - cnt[T_PH2]
    if f2 < 0:
        u = min(-f2, f1)
        f1 -= u
        f2 += u
        if f2 < 0:
            need -= f2
            f2 = 0
    f3 = avail[T_PH3] - cnt[T_PH3]
    if f3 < 0:
        u = min(-f3, f2)
        f2 -= u
        f3 += u
        u = min(-f3, f1)
        f1 -= u
        f3 += u
        if f3 < 0:
            need -= f3
    # plasma: R only on R symbols; S on S, then spare R, then two WPN; F on F, spare S, spare R
    r = avail[T_PLR] - cnt[T_PLR]
    if r < 0:
        return -1
    ps = avail[T_PLS] - cnt[T_PLS]
    if ps < 0:
        u = min(-ps, r)
        r -= u
        ps += u
        if ps < 0:
            need -= 2 * ps
            ps = 0
    pf = avail[T_PLF] - cnt[T_PLF]
    if pf < 0:
        u = min(-pf, ps)
        ps -= u
        pf += u
        u = min(-pf, r)
        r -= u
        pf += u
        if pf < 0:
            need -= pf
    for t in (T_PHOTON, T_DISR, T_DRONE):
        d = avail[t] - cnt[t]
        if d < 0:
            need -= d
    return need


@kernel(cache=True)
def ship_fires(s, cfg, b, i, extra):
    """Can ship i fire every weapon card it has fired in the current attack plus card type
    ``extra`` (-1: none)?  Counts the cards on the table fired by ship i."""
    avail = local_i32(N_KIND)
    for k in range(N_KIND):
        avail[k] = symbols(s, cfg, b, i, k)
    cnt = local_i32(N_WEAPONS)
    NC = cfg.k[K_NC] if s.g[b, G_TABLE_N] > 0 else 0
    for c in range(NC):
        loc = s.cd[b, c, CD_LOC]
        if (loc == CL_ATK or loc == CL_DEF) and s.cd[b, c, CD_SHIP] == i:
            t = cfg.card[c, CC_TYPE]
            if t < N_WEAPONS:
                cnt[t] += 1
    if extra >= 0:
        cnt[extra] += 1
    need = wpn_needed(avail, cnt)
    return need >= 0 and need <= avail[K_WPN]


@kernel(cache=True)
def range_limited(t):
    # SFBF Regole sulla Formazione, Raggio di Azione: Phaser-3 and Plasma-F (and overloads)
    return t == T_PH3 or t == T_PLF


@kernel(cache=True)
def attack_card_reason(s, cfg, b, ship, target, t):
    """May ``ship`` fire a weapon card of type t at ``target`` in a normal attack?"""
    if not ship_fires(s, cfg, b, ship, t):
        return R_NO_WEAPON
    return attack_limits_reason(s, cfg, b, ship, target, t)


@kernel(cache=True)
def attack_limits_reason(s, cfg, b, ship, target, t):
    """The conditions of attack_card_reason other than a free weapon (cheap, checked first)."""
    if webbed(s, b, ship) and is_phaser(t):
        return R_SHIP_STATE      # SFBF Ragnatela: a webbed ship cannot fire phasers
    if uses_formation(cfg) and range_limited(t) and (s.sh[b, ship, SH_LINE] == L_MAIN
                                                    or s.sh[b, target, SH_LINE] == L_MAIN):
        return R_RANGE           # SFBF Regole sulla Formazione, Seconda Linea
    if is_seeking(t) and cloaked(s, b, target) and not (s.g[b, G_CANCELS] & CX_CLOAK):
        return R_SEEKING         # SFBF Occultamento: no drones or plasma at a cloaked ship
    return OK


@kernel(cache=True)
def has_attack_card(s, cfg, b, p, ship, target):
    NC = cfg.k[K_NC]
    for c in range(NC):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == p:
            t = cfg.card[c, CC_TYPE]
            if t < N_WEAPONS and attack_limits_reason(s, cfg, b, ship, target, t) == OK \
                    and ship_fires(s, cfg, b, ship, t):
                return True
    return False
