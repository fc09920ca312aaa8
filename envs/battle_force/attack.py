"""The attack (SFBF 4.1-4.2 and Sequenza di gioco 4): which ship may lead an attack, which ships it may
attack, the attack cards it may play with the target chosen, the cards played instead of an attack
(PF Flotilla, Planet-Based Fighters, Klingon Mutiny, Organian Ceasefire), and the lists of ships and
cards the mask walks.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import local_i32, scratch_i32
from .layout import (CC_TYPE, CD_LOC, CD_WHO, CL_HAND, CL_RES, G_ATK_SHIP, G_ATTACKS, G_FIRST_ATTACKER, G_TARGET,
                     K_FIGHTERS, K_FTR, K_NC, K_NS, L_MAIN, L_RESERVE, MAX_SHIPS, N_WEAPONS, OK, R_ALLY,
                     R_CARD_USE, R_CLOAKED, R_LINK, R_NEED_WEAPON, R_NOT_FIRST_ATTACK, R_NOT_YOURS, R_NO_FIGHTERS,
                     R_ONCE, R_RANGE, R_SHIP_STATE, R_TARGET, SH_DIS, SH_EM, SH_LINE, SH_LOC, SH_OWNER, SH_WW,
                     SL_FLEET, ST_ATK_CARDS, T_CEASE, T_MUTINY, T_OVERLOAD, T_PBF, T_PF, T_PRIME)
from .players import enemies
from .ships import cloaked, in_fleet, own_ship, symbols, uses_formation, webbed
from .cards import is_phaser
from .weapons import attack_card_reason, attack_limits_reason, ship_fires
from .attack_table import any_link_for, is_multiplier
from .mutiny import mutiny_target_ok


@kernel(cache=True, forceinline=True)
def attacker_state_reason(s, cfg, b, p, i):
    """Can ship i of player p lead an attack this turn (SFBF 4.1, Sequenza di Attacco 4.1)?"""
    if not own_ship(s, b, p, i):
        return R_NOT_YOURS
    if uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE:
        return R_SHIP_STATE      # reserve ships do not attack
    if s.sh[b, i, SH_EM] or s.sh[b, i, SH_WW] or s.sh[b, i, SH_DIS]:
        return R_SHIP_STATE      # Erratic Maneuvers, Wild Weasel, Disengage: no attack until removed
    if cloaked(s, b, i):
        return R_CLOAKED         # a cloaked ship fires no weapon
    if s.g[b, G_ATTACKS] > 0 and i == s.g[b, G_FIRST_ATTACKER]:
        return R_ONCE            # optional second attack: from another ship
    return OK


@kernel(cache=True, forceinline=True)
def target_reason(s, cfg, b, p, i):
    """Can player p attack ship i (SFBF 4.2)?"""
    if not in_fleet(s, b, i):
        return R_TARGET
    q = s.sh[b, i, SH_OWNER]
    if q == p:
        return R_TARGET
    if not enemies(s, cfg, b, p, q):
        return R_ALLY
    if uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE:
        return R_TARGET
    if s.sh[b, i, SH_DIS]:
        return R_SHIP_STATE      # a disengaged ship cannot be attacked until its owner's next turn ends
    return OK


@kernel(cache=True, forceinline=True)
def carrier_reason(s, cfg, b, p, i):
    r = attacker_state_reason(s, cfg, b, p, i)
    if r != OK:
        return r
    if symbols(s, cfg, b, i, K_FTR) <= 0:
        return R_NO_FIGHTERS
    return OK


@kernel(cache=True)
def any_target(s, cfg, b, p):
    for i in range(cfg.k[K_NS]):
        if target_reason(s, cfg, b, p, i) == OK:
            return True
    return False


# -- lists for the mask ------------------------------------------------------------------------
# A mask looks at every card and ship, and whether a card is in the decider's hand or a ship
# in its fleet looks random to the branch predictor: filtering them with an ``if`` mispredicted
# on most of them.  These write each index and advance the list length by the condition, with
# no branch, so that the rules then run on the few cards and ships that can matter.
@kernel(cache=True, forceinline=True)
def held_cards(s, cfg, b, p, out):
    """Cards in player p's hand or reserve, in index order, into ``out``: their number."""
    cd = s.cd
    n = 0
    for c in range(cfg.k[K_NC]):
        loc = cd[b, c, CD_LOC]
        out[n] = c
        n += ((loc == CL_HAND) | (loc == CL_RES)) & (cd[b, c, CD_WHO] == p)
    return n


@kernel(cache=True, forceinline=True)
def fleet_ships(s, b, out):
    """Ships in play (any player's fleet), in index order, into ``out``: their number."""
    sh = s.sh
    n = 0
    for i in range(sh.shape[1]):
        out[n] = i
        n += sh[b, i, SH_LOC] == SL_FLEET
    return n


@kernel(cache=True, forceinline=True)
def own_fleet_ships(s, b, p, out):
    """Ships in player p's fleet, in index order, into ``out``: their number."""
    sh = s.sh
    n = 0
    for i in range(sh.shape[1]):
        out[n] = i
        n += own_ship(s, b, p, i)
    return n


@kernel(cache=True, forceinline=True)
def attack_targets(s, cfg, b, p, out):
    """Ships player p may attack (target_reason OK), in index order, into ``out``: their number."""
    fleet = scratch_i32(MAX_SHIPS)
    nf = fleet_ships(s, b, fleet)
    n = 0
    for j in range(nf):
        out[n] = fleet[j]
        n += target_reason(s, cfg, b, p, fleet[j]) == OK
    return n


@kernel(cache=True)
def hand_weapon_types(s, cfg, b, p):
    """The weapon card types in player p's hand, as bits (1 << type)."""
    types = 0
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == p:
            t = cfg.card[c, CC_TYPE]
            if t < N_WEAPONS:
                types |= 1 << t
    return types


@kernel(cache=True)
def ship_attack_reason(s, cfg, b, p, i):
    """Can ship i open a normal attack: a weapon card in hand it can fire at some target."""
    r = attacker_state_reason(s, cfg, b, p, i)
    if r != OK:
        return r
    targets = scratch_i32(MAX_SHIPS)
    nt = attack_targets(s, cfg, b, p, targets)
    return ship_attack_reason_given(s, cfg, b, p, i, hand_weapon_types(s, cfg, b, p), targets, nt)


@kernel(cache=True)
def ship_attack_reason_given(s, cfg, b, p, i, hand_types, targets, nt):
    """ship_attack_reason given p's ``hand_weapon_types`` and its ``attack_targets`` (the
    attack mask asks it of every ship, so the hand and the targets are looked at once)."""
    r = attacker_state_reason(s, cfg, b, p, i)
    if r != OK:
        return r
    # the weapon types in p's hand that ship i can fire
    fires = local_i32(N_WEAPONS)
    anyw = False
    for t in range(N_WEAPONS):
        if (hand_types >> t) & 1 and not (webbed(s, b, i) and is_phaser(t)) and ship_fires(s, cfg, b, i, t):
            fires[t] = 1
            anyw = True
    if not anyw:
        return R_NEED_WEAPON
    for j in range(nt):
        for t in range(N_WEAPONS):
            if fires[t] and attack_limits_reason(s, cfg, b, i, targets[j], t) == OK:
                return OK
    return R_NEED_WEAPON


@kernel(cache=True)
def attack_phase_card_reason(s, cfg, b, p, c):
    t = cfg.card[c, CC_TYPE]
    first = s.g[b, G_ATTACKS] == 0
    if t == T_PBF:
        if not cfg.k[K_FIGHTERS]:
            return R_CARD_USE
        return OK if any_target(s, cfg, b, p) else R_TARGET
    if t == T_PF or t == T_MUTINY or t == T_CEASE:
        if not first:
            return R_NOT_FIRST_ATTACK    # not in a turn in which an attack is made
        if t == T_CEASE:
            return OK
        for i in range(cfg.k[K_NS]):
            if t == T_PF and target_reason(s, cfg, b, p, i) == OK:
                return OK
            if t == T_MUTINY and mutiny_target_ok(s, cfg, b, p, i):
                return OK
        return R_TARGET
    return R_CARD_USE


@kernel(cache=True)
def atk_cards_reason(s, cfg, b, p, c):
    t = cfg.card[c, CC_TYPE]
    ship = s.g[b, G_ATK_SHIP]
    tg = s.g[b, G_TARGET]
    if t < N_WEAPONS:
        return attack_card_reason(s, cfg, b, ship, tg, t)
    if is_multiplier(t):
        if t == T_OVERLOAD and uses_formation(cfg) and (s.sh[b, ship, SH_LINE] == L_MAIN
                                                       or s.sh[b, tg, SH_LINE] == L_MAIN):
            return R_RANGE       # no overloads from or at the main body
        return OK if any_link_for(s, cfg, b, c, ST_ATK_CARDS) else R_LINK
    if t == T_PRIME:
        return OK
    return R_CARD_USE
