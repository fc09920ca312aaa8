"""Fighters and PF Flotillas (SFBF I caccia sulle navi, Attacco dei caccia F1-F5, Flotta di Caccia
Veloci): cards fired at attacking fighters or at a PF Flotilla, the squadrons' dice, and the other
players' fire at a PF Flotilla.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.rng import roll_die
from .layout import (AK_FIGHTERS, AK_PF, CC_DEF, CC_FTRS, CC_TYPE, CD_LOC, CL_ATK, D_FIGHTER, D_PF, G_ACTIVE,
                     G_ATK_KIND, G_DEFENDER, G_DEF_FIRE, G_DIE1, G_DIE2, G_HELPER, G_PF_FIRER, G_PF_SHOTS, G_ROLL,
                     G_SQUADRONS, G_STAGE, G_TARGET, K_ADVANCED, K_FIGHTERS, K_NC, K_NS, K_P, K_PBF_MODE, L_MAIN,
                     L_RESERVE, L_SCREEN, N_WEAPONS, OK, R_CARD_USE, R_DEF_SYMBOL, R_LINK, R_NO_FIGHTERS, R_NO_WEAPON,
                     R_STAGE, R_TARGET, SH_LINE, SH_SHOTS, SH_WEB, ST_ATTACK, ST_CARRIER, ST_PF_FIRE,
                     ST_TARGET, T_LGUNNER, T_PBF, T_SCATTER)
from .players import enemies, next_clockwise, set_stage
from .ships import own_ship, uses_formation
from .attack_table import any_link_for, defence_fire_total, defender_can_fire, pf_fire_total
from .attack import any_target, carrier_reason
from .resolution import attack_end
from .defence import open_windows


@kernel(cache=True)
def fire_ship_ok(s, cfg, b, p, m, i):
    """May ship i fire pending weapon card m at fighters (F3) or at a PF Flotilla?"""
    t = cfg.card[m, CC_TYPE]
    if not own_ship(s, b, p, i):
        return False
    kind = s.g[b, G_ATK_KIND]
    if kind == AK_PF:
        if uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE:
            return False
        if cfg.k[K_P] != 2 and s.sh[b, i, SH_SHOTS] > 0:
            return False         # one fire card per ship
        if cfg.k[K_P] == 2 and s.g[b, G_PF_SHOTS] >= 2:
            return False         # two players: the defender fires twice in all (RULES.md)
        return defender_can_fire(s, cfg, b, i, t, False)
    target = s.g[b, G_TARGET]
    if i != target:
        # SFBF F3 (X): a screen ship may fire for a target in the main body
        if not (uses_formation(cfg) and s.sh[b, target, SH_LINE] == L_MAIN and s.sh[b, i, SH_LINE] == L_SCREEN):
            return False
        h = s.g[b, G_HELPER]
        if h >= 0 and h != i:
            return False
    return defender_can_fire(s, cfg, b, i, t, True)


@kernel(cache=True)
def any_fire_ship(s, cfg, b, p, m):
    for i in range(cfg.k[K_NS]):
        if fire_ship_ok(s, cfg, b, p, m, i):
            return True
    return False


@kernel(cache=True)
def fire_card_reason(s, cfg, b, p, c):
    """Cards fired at attacking fighters (F3) or at a PF Flotilla."""
    t = cfg.card[c, CC_TYPE]
    kind = s.g[b, G_ATK_KIND]
    if t < N_WEAPONS:
        need = D_PF if kind == AK_PF else D_FIGHTER
        if not (cfg.card[c, CC_DEF] & need):
            return R_DEF_SYMBOL
        return OK if any_fire_ship(s, cfg, b, p, c) else R_NO_WEAPON
    if t == T_SCATTER or (t == T_LGUNNER and (cfg.k[K_ADVANCED] or kind == AK_PF)):
        ret = s.g[b, G_STAGE]
        return OK if any_link_for(s, cfg, b, c, ret) else R_LINK
    return R_CARD_USE


@kernel(cache=True)
def next_pf_firer(s, cfg, b):
    """SFBF Flotta di Caccia Veloci: the other players, clockwise, may fire one card per ship."""
    act = s.g[b, G_ACTIVE]
    q = s.g[b, G_PF_FIRER]
    P = cfg.k[K_P]
    for d in range(P):
        q = next_clockwise(s, cfg, b, q)
        if q == act:
            break
        if enemies(s, cfg, b, act, q):
            s.g[b, G_PF_FIRER] = q
            s.g[b, G_PF_SHOTS] = 0
            for i in range(cfg.k[K_NS]):
                s.sh[b, i, SH_SHOTS] = 0
            set_stage(s, b, ST_PF_FIRE, q)
            return
    # everyone has fired
    s.g[b, G_DEF_FIRE] = pf_fire_total(s, cfg, b)
    if s.g[b, G_DEF_FIRE] >= 12:
        attack_end(s, cfg, b)    # the flotilla is destroyed and the attack ends
        return
    s.g[b, G_DEFENDER] = -1
    set_stage(s, b, ST_TARGET, act)


@kernel(cache=True)
def fighter_dice(s, cfg, b):
    """SFBF Attacco dei caccia F4: one die per squadron; Planet-Based Fighters two dice per card
    (option pbf_damage='fighters_plus_1d6': the card table's fighters + 1d6)."""
    tot = 0
    d1 = 0
    d2 = 0
    if s.g[b, G_ATK_KIND] == AK_FIGHTERS:
        for k in range(s.g[b, G_SQUADRONS]):
            d = roll_die(s.rng, s.dice_script, s.dice, b, 6)
            tot += d
            if k == 0:
                d1 = d
            elif k == 1:
                d2 = d
    else:
        for c in range(cfg.k[K_NC]):
            if s.cd[b, c, CD_LOC] == CL_ATK and cfg.card[c, CC_TYPE] == T_PBF:
                if cfg.k[K_PBF_MODE] == 0:
                    a = roll_die(s.rng, s.dice_script, s.dice, b, 6)
                    a2 = roll_die(s.rng, s.dice_script, s.dice, b, 6)
                    tot += a + a2
                    d1 = a
                    d2 = a2
                else:
                    a = roll_die(s.rng, s.dice_script, s.dice, b, 6)
                    tot += a + cfg.card[c, CC_FTRS]
                    d1 = a
    s.g[b, G_DIE1] = d1
    s.g[b, G_DIE2] = d2
    s.g[b, G_ROLL] = tot


@kernel(cache=True)
def end_fighter_defence(s, cfg, b):
    d = s.g[b, G_DEFENDER]
    fire = defence_fire_total(s, cfg, b, d)
    t = s.g[b, G_TARGET]
    if s.sh[b, t, SH_WEB]:
        fire = fire // 2         # F4 (X): a webbed ship's fire is halved like its other defences
    s.g[b, G_DEF_FIRE] = fire
    fighter_dice(s, cfg, b)
    open_windows(s, cfg, b)


@kernel(cache=True, inline="always")
def fighters_reason(s, cfg, b, p):
    """SFBF I caccia sulle navi: a fighter attack from a carrier, instead of a normal attack."""
    if s.g[b, G_STAGE] != ST_ATTACK:
        return R_STAGE
    if not cfg.k[K_FIGHTERS]:
        return R_NO_FIGHTERS
    for i in range(cfg.k[K_NS]):
        if carrier_reason(s, cfg, b, p, i) == OK:
            return OK if any_target(s, cfg, b, p) else R_TARGET
    return R_NO_FIGHTERS


@kernel(cache=True, inline="always")
def start_fighters(s, cfg, b, p):
    s.g[b, G_ATK_KIND] = AK_FIGHTERS
    set_stage(s, b, ST_CARRIER, p)
