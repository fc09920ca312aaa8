"""Legality, put together: ``action_reason`` (one action: what the step checks and ``why_illegal``
reports), ``scan_legal`` (every candidate of the current stage, for the mask and ``settle``) and
``write_mask``.  Each condition they ask is one function of its chapter's module.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import scratch_i32
from .layout import (AK_MUTINY, AK_SHIP, CC_TYPE, CD_LOC, CD_WHO, CL_ATK, CL_DEF, CL_HAND, CL_RES, CL_SHIP, G_ACTIVE,
                     G_ATK_KIND, G_ATK_SHIP, G_DECIDER, G_DMG_SHIP, G_DONE, G_FORM_KIND, G_FORM_MOVES, G_PENDING,
                     G_REPAIRED, G_REP_SHIP, G_SDECK_N, G_SEL, G_STAGE, K_ADVANCED, K_A_CARD, K_A_KIND, K_A_LINE,
                     K_A_NAMED, K_A_NUM, K_A_RACE, K_A_SHIP, K_FTR, K_NC, K_NS, K_N_ACTIONS, K_SELECTION, LINES,
                     MAX_CARDS, MAX_SHIPS, N_ACTIVATE, N_CDC, N_DEACTIVATE, N_DONE, N_DRAW_DECK, N_DRAW_DISCARD,
                     N_FIGHTERS, N_FORMATION2, N_KEEP, N_NAMED, N_PT_ADD, N_PT_CANCEL, N_PT_CANCEL_WW, N_REDRAW,
                     N_TO_ALLY, N_TO_DISCARD, N_TO_RESERVE, N_WEAPONS, OK, PL_HAND, PL_RES, PT_MODE_ADD, PT_MODE_CANCEL,
                     PT_MODE_CANCEL_WW, R_CARD_USE, R_DECK_EMPTY, R_KIND, R_LINK, R_NEED_WEAPON, R_NOT_IN_HAND,
                     R_NOT_KLINGON, R_NOT_YOURS, R_NO_ACTION, R_NO_DAMAGE, R_NO_WEAPON, R_ONCE, R_ORDER, R_OVER,
                     R_RESERVE_FULL, R_SQUADRONS, R_STAGE, R_TARGET, SC_N, SEL_POINTS, SH_COV, ST_ATK_CARDS,
                     ST_ATTACK, ST_CARRIER, ST_CEASE_KEEP, ST_CLOAK_SETUP, ST_DEFENCE, ST_DISCARD, ST_DISC_DEST,
                     ST_DISC_ORDER, ST_DRAW, ST_DUEL_PICK, ST_FORMATION, ST_FORM_DEST, ST_FTR_DEF, ST_KEEP,
                     ST_LINE_SETUP, ST_LINK, ST_MUTINY_ATK, ST_MUTINY_DEF, ST_OVER, ST_PBF_MORE, ST_PF_FIRE, ST_PICK,
                     ST_PLACE, ST_PT_MODE, ST_RACE, ST_REACT, ST_REDRAW, ST_REPAIR, ST_REPAIR_SHIP, ST_RES_SETUP,
                     ST_SHIP_FOR, ST_SQUADRONS, ST_TARGET, ST_UNMARK, T_DC, T_LENG, T_PBF, T_PRIME, T_REINF)
from .ships import damage_of, fleet_size, own_ship, symbols
from .cards import order_card_ok
from .weapons import has_attack_card
from .attack_table import link_ok
from .formation import (activation_reason, deactivate_reason, device_reason, fleet_lines, formation_done_reason,
                        formation_ship_reason, move_reason, move_reason_lines, move_reason_ship)
from .mutiny import mutiny_target_ok
from .attack import (any_target, atk_cards_reason, attack_phase_card_reason, attack_targets, carrier_reason,
                     fleet_ships, hand_weapon_types, held_cards, own_fleet_ships, ship_attack_reason,
                     ship_attack_reason_given, target_reason)
from .sequence import (cdc_reason, draw_deck_reason, draw_discard_reason, formation2_reason, keep_reason, own_damaged,
                       redraw_done_reason, redraw_reason, to_ally_reason, to_discard_reason, to_reserve_reason)
from .defence import defence_card_reason, prime_mode_reason, react_card_reason
from .fighters import fighters_reason, fire_card_reason, fire_ship_ok
from .duel import duel_pick_ok
from .setup import pick_reason, race_reason, setup_line_reason


@kernel(cache=True)
def card_reason(s, cfg, b, p, c):
    """Reason code for the CARD action on card c by the decider p."""
    loc = s.cd[b, c, CD_LOC]
    st = s.g[b, G_STAGE]
    mine_hand = loc == CL_HAND and s.cd[b, c, CD_WHO] == p
    mine_res = loc == CL_RES and s.cd[b, c, CD_WHO] == p
    t = cfg.card[c, CC_TYPE]
    if st == ST_LINK:
        return OK if link_ok(s, cfg, b, s.g[b, G_PENDING], c) else R_LINK
    if st == ST_DISC_ORDER:
        return OK if order_card_ok(s, cfg, b, c) else R_ORDER
    if st == ST_DRAW:
        return OK if (mine_res and cfg.k[K_ADVANCED]) else R_NOT_IN_HAND
    # advanced: a player other than the active one with an empty hand may take a reserve card
    if mine_res and (st == ST_DEFENCE or st == ST_FTR_DEF or st == ST_PF_FIRE or st == ST_MUTINY_DEF):
        if cfg.k[K_ADVANCED] and s.pl[b, p, PL_HAND] == 0 and p != s.g[b, G_ACTIVE]:
            return OK
        return R_NOT_IN_HAND
    if not mine_hand:
        return R_NOT_IN_HAND
    if st == ST_RES_SETUP or st == ST_REDRAW or st == ST_DISCARD:
        return OK
    if st == ST_CEASE_KEEP:
        return OK if s.pl[b, p, PL_RES] < 3 else R_RESERVE_FULL
    if st == ST_REPAIR:
        if t != T_DC and t != T_LENG:
            return R_CARD_USE
        if s.g[b, G_REPAIRED]:
            return R_ONCE        # one repair card per turn (SFBF Sequenza di gioco 2)
        return OK if own_damaged(s, cfg, b, p) else R_NO_DAMAGE
    if st == ST_FORMATION:
        if t != T_REINF:
            return R_CARD_USE
        if s.g[b, G_FORM_KIND] != 1 or s.g[b, G_FORM_MOVES] > 0:
            return R_STAGE       # reinforcements come before the formation moves
        return OK if s.g[b, G_SDECK_N] > 0 else R_DECK_EMPTY
    if st == ST_ATTACK:
        return attack_phase_card_reason(s, cfg, b, p, c)
    if st == ST_PBF_MORE:
        return OK if t == T_PBF else R_CARD_USE
    if st == ST_ATK_CARDS:
        return atk_cards_reason(s, cfg, b, p, c)
    if st == ST_DEFENCE:
        return defence_card_reason(s, cfg, b, p, c)
    if st == ST_REACT:
        return react_card_reason(s, cfg, b, p, c)
    if st == ST_FTR_DEF or st == ST_PF_FIRE:
        return fire_card_reason(s, cfg, b, p, c)
    if st == ST_MUTINY_ATK or st == ST_MUTINY_DEF:
        return OK if t == T_PRIME else R_CARD_USE
    return R_STAGE


@kernel(cache=True, forceinline=True)
def ship_reason(s, cfg, b, p, i):
    st = s.g[b, G_STAGE]
    if st == ST_PICK:
        return pick_reason(s, cfg, b, p, i)
    if st == ST_DUEL_PICK:
        return OK if duel_pick_ok(s, cfg, b, p, i) else R_NOT_YOURS
    if st == ST_CLOAK_SETUP:
        return device_reason(s, cfg, b, p, i)
    if st == ST_REPAIR_SHIP:
        if not own_ship(s, b, p, i):
            return R_NOT_YOURS
        return OK if damage_of(s, b, i) > 0 else R_NO_DAMAGE
    if st == ST_FORMATION:
        return formation_ship_reason(s, cfg, b, p, i, fleet_lines(s, b, p))
    if st == ST_ATTACK:
        return ship_attack_reason(s, cfg, b, p, i)
    if st == ST_CARRIER:
        r = carrier_reason(s, cfg, b, p, i)
        if r == OK and not any_target(s, cfg, b, p):
            return R_TARGET
        return r
    if st == ST_TARGET:
        kind = s.g[b, G_ATK_KIND]
        if kind == AK_MUTINY:
            return OK if mutiny_target_ok(s, cfg, b, p, i) else R_NOT_KLINGON
        r = target_reason(s, cfg, b, p, i)
        if r != OK:
            return r
        if kind == AK_SHIP and not has_attack_card(s, cfg, b, p, s.g[b, G_ATK_SHIP], i):
            return R_NEED_WEAPON
        return OK
    if st == ST_SHIP_FOR:
        return OK if fire_ship_ok(s, cfg, b, p, s.g[b, G_PENDING], i) else R_NO_WEAPON
    return R_STAGE


@kernel(cache=True, forceinline=True)
def named_reason(s, cfg, b, p, n):
    st = s.g[b, G_STAGE]
    if n == N_DONE:
        if st == ST_PICK:
            return OK if (cfg.k[K_SELECTION] == SEL_POINTS and fleet_size(s, b, p) > 0) else R_STAGE
        if st == ST_CLOAK_SETUP or st == ST_REPAIR or st == ST_ATTACK or st == ST_PBF_MORE:
            return OK
        if st == ST_FORMATION:
            return formation_done_reason(s, cfg, b, p)
        if st == ST_ATK_CARDS:
            for c in range(cfg.k[K_NC]):
                if s.cd[b, c, CD_LOC] == CL_ATK and cfg.card[c, CC_TYPE] < N_WEAPONS:
                    return OK
            return R_NEED_WEAPON
        if st == ST_DEFENCE or st == ST_REACT or st == ST_FTR_DEF or st == ST_PF_FIRE:
            return OK
        if st == ST_MUTINY_ATK or st == ST_MUTINY_DEF or st == ST_CEASE_KEEP or st == ST_DISCARD:
            return OK
        if st == ST_REDRAW:
            return redraw_done_reason(s, cfg, b, p)
        return R_STAGE
    if n == N_DRAW_DECK:
        return draw_deck_reason(s, cfg, b, p)
    if n == N_DRAW_DISCARD:
        return draw_discard_reason(s, cfg, b, p)
    if n == N_KEEP:
        return keep_reason(s, cfg, b, p)
    if n == N_TO_RESERVE:
        return to_reserve_reason(s, cfg, b, p)
    if n == N_TO_DISCARD:
        return to_discard_reason(s, cfg, b, p)
    if n == N_TO_ALLY:
        return to_ally_reason(s, cfg, b, p)
    if n == N_FIGHTERS:
        return fighters_reason(s, cfg, b, p)
    if n == N_REDRAW:
        return redraw_reason(s, cfg, b, p)
    if n == N_FORMATION2:
        return formation2_reason(s, cfg, b, p)
    if n == N_CDC:
        return cdc_reason(s, cfg, b, p)
    if n == N_PT_ADD:
        return prime_mode_reason(s, cfg, b, PT_MODE_ADD)
    if n == N_PT_CANCEL:
        return prime_mode_reason(s, cfg, b, PT_MODE_CANCEL)
    if n == N_PT_CANCEL_WW:
        return prime_mode_reason(s, cfg, b, PT_MODE_CANCEL_WW)
    if n == N_ACTIVATE:
        if st != ST_FORM_DEST:
            return R_STAGE
        return activation_reason(s, cfg, b, p, s.g[b, G_SEL])
    if n == N_DEACTIVATE:
        return deactivate_reason(s, cfg, b, p)
    return R_NO_ACTION


F_CARDS, F_SHIPS, F_LINES, F_KINDS, F_NUMS, F_RACES, F_NAMED = 1, 2, 4, 8, 16, 32, 64


@kernel(cache=True, forceinline=True)
def stage_families(st):
    """The action families that can be legal at a stage: the one table of them, which
    action_reason asks first and scan_legal (the mask, settle) walks."""
    if st == ST_PICK or st == ST_CLOAK_SETUP:
        return F_SHIPS | F_NAMED
    if st == ST_RACE:
        return F_RACES
    if st == ST_RES_SETUP or st == ST_LINK:
        return F_CARDS
    if st == ST_LINE_SETUP:
        return F_LINES
    if st == ST_KEEP or st == ST_PT_MODE or st == ST_DISC_DEST:
        return F_NAMED
    if st == ST_REPAIR_SHIP or st == ST_CARRIER or st == ST_TARGET or st == ST_SHIP_FOR or st == ST_DUEL_PICK:
        return F_SHIPS
    if st == ST_UNMARK or st == ST_PLACE:
        return F_KINDS
    if st == ST_FORMATION or st == ST_ATTACK:
        return F_CARDS | F_SHIPS | F_NAMED
    if st == ST_FORM_DEST:
        return F_LINES | F_NAMED
    if st == ST_SQUADRONS:
        return F_NUMS
    if st == ST_OVER:
        return 0
    return F_CARDS | F_NAMED


@kernel(cache=True, inline="always")
def family_of(k, a):
    """The family bit (F_*) of action ``a`` (in range)."""
    if a < k[K_A_SHIP]:
        return F_CARDS
    if a < k[K_A_LINE]:
        return F_SHIPS
    if a < k[K_A_KIND]:
        return F_LINES
    if a < k[K_A_NUM]:
        return F_KINDS
    if a < k[K_A_RACE]:
        return F_NUMS
    if a < k[K_A_NAMED]:
        return F_RACES
    return F_NAMED


@kernel(cache=True)
def action_reason(s, cfg, b, a):
    """0 if action a is legal for the player to decide in game b, else the reason code."""
    if s.g[b, G_DONE]:
        return R_OVER
    k = cfg.k
    if a < 0 or a >= k[K_N_ACTIONS]:
        return R_NO_ACTION
    p = s.g[b, G_DECIDER]
    st = s.g[b, G_STAGE]
    family = family_of(k, a)
    if not stage_families(st) & family:
        return R_STAGE
    if family == F_CARDS:
        return card_reason(s, cfg, b, p, a - k[K_A_CARD])
    if family == F_SHIPS:
        return ship_reason(s, cfg, b, p, a - k[K_A_SHIP])
    if family == F_LINES:      # ST_LINE_SETUP or ST_FORM_DEST
        line = a - k[K_A_LINE]
        if st == ST_LINE_SETUP:
            return setup_line_reason(s, cfg, b, p, line)
        return move_reason(s, cfg, b, p, s.g[b, G_SEL], line)
    if family == F_KINDS:      # ST_PLACE or ST_UNMARK
        kind = a - k[K_A_KIND]
        if st == ST_PLACE:
            i = s.g[b, G_DMG_SHIP]
            return OK if s.sh[b, i, SH_COV + kind] < cfg.ship[i, SC_N + kind] else R_KIND
        return OK if s.sh[b, s.g[b, G_REP_SHIP], SH_COV + kind] > 0 else R_KIND
    if family == F_NUMS:       # ST_SQUADRONS
        n = a - k[K_A_NUM] + 1
        return OK if n <= symbols(s, cfg, b, s.g[b, G_ATK_SHIP], K_FTR) else R_SQUADRONS
    if family == F_RACES:      # ST_RACE
        return race_reason(s, cfg, b, a - k[K_A_RACE])
    return named_reason(s, cfg, b, p, a - k[K_A_NAMED])


@kernel(cache=True, forceinline=True)
def mark_legal(mask, a, n, first):
    """Mark action a legal: the running (count, first legal action) of scan_legal."""
    mask[a] = 1
    return n + 1, (first if first >= 0 else a)


@kernel(cache=True)
def scan_legal(s, cfg, b, mask):
    """Legal actions of the player to decide, marked in ``mask`` (zeroed by the caller):
    (count, first).  Cards are only looked at where they can matter: the decider's hand and
    reserve, or the table and ships when linking a card.  Ships and named actions go straight
    to their family's reason, as action_reason would (the game is not over when this runs);
    one loop per family, so that each loop's body holds only the rules of its family."""
    k = cfg.k
    cd = s.cd
    st = s.g[b, G_STAGE]
    fam = stage_families(st)
    p = s.g[b, G_DECIDER]
    n = 0
    first = -1
    if fam & F_CARDS:
        a0 = k[K_A_CARD]
        if st == ST_LINK or st == ST_DISC_ORDER:
            for c in range(k[K_NC]):
                loc = cd[b, c, CD_LOC]
                if (loc == CL_ATK or loc == CL_DEF or loc == CL_SHIP) and card_reason(s, cfg, b, p, c) == OK:
                    n, first = mark_legal(mask, a0 + c, n, first)
        else:
            cards = scratch_i32(MAX_CARDS)
            for j in range(held_cards(s, cfg, b, p, cards)):
                if card_reason(s, cfg, b, p, cards[j]) == OK:
                    n, first = mark_legal(mask, a0 + cards[j], n, first)
    if fam & F_SHIPS:
        a0 = k[K_A_SHIP]
        ships = scratch_i32(MAX_SHIPS)
        if st == ST_FORMATION or st == ST_ATTACK or st == ST_REPAIR_SHIP or st == ST_CARRIER \
                or st == ST_CLOAK_SETUP or st == ST_SHIP_FOR:
            # these stages' reasons refuse any ship but p's own (ships.own_ship, the one predicate they
            # ask): only those are asked; the mask oracle test checks the list against action_reason
            ns = own_fleet_ships(s, b, p, ships)
        elif st == ST_TARGET:
            ns = fleet_ships(s, b, ships)          # and this one only ships in play
        else:
            ns = k[K_NS]
            for i in range(ns):
                ships[i] = i
        if st == ST_FORMATION:
            lines = fleet_lines(s, b, p)        # every ship's formation rules need p's line counts
            for j in range(ns):
                if formation_ship_reason(s, cfg, b, p, ships[j], lines) == OK:
                    n, first = mark_legal(mask, a0 + ships[j], n, first)
        elif st == ST_ATTACK:
            hand_types = hand_weapon_types(s, cfg, b, p)   # and its attack rules p's weapons and targets
            targets = scratch_i32(MAX_SHIPS)
            nt = attack_targets(s, cfg, b, p, targets)
            for j in range(ns):
                if ship_attack_reason_given(s, cfg, b, p, ships[j], hand_types, targets, nt) == OK:
                    n, first = mark_legal(mask, a0 + ships[j], n, first)
        else:
            for j in range(ns):
                if ship_reason(s, cfg, b, p, ships[j]) == OK:
                    n, first = mark_legal(mask, a0 + ships[j], n, first)
    if st == ST_FORM_DEST:
        # the destination line of the ship chosen: the line counts once for the three lines
        lines = fleet_lines(s, b, p)
        i = s.g[b, G_SEL]
        for line in range(LINES):
            if move_reason_ship(s, cfg, b, p, i, line) == OK and move_reason_lines(s, b, i, line, lines) == OK:
                n, first = mark_legal(mask, k[K_A_LINE] + line, n, first)
    for f, lo, hi in ((F_LINES, k[K_A_LINE], k[K_A_KIND]), (F_KINDS, k[K_A_KIND], k[K_A_NUM]),
                      (F_NUMS, k[K_A_NUM], k[K_A_RACE]), (F_RACES, k[K_A_RACE], k[K_A_NAMED])):
        if fam & f and not (f == F_LINES and st == ST_FORM_DEST):
            for a in range(lo, hi):
                if action_reason(s, cfg, b, a) == OK:
                    n, first = mark_legal(mask, a, n, first)
    if fam & F_NAMED:
        a0 = k[K_A_NAMED]
        for x in range(N_NAMED):
            if named_reason(s, cfg, b, p, x) == OK:
                n, first = mark_legal(mask, a0 + x, n, first)
    return n, first


@kernel(cache=True)
def write_mask(s, cfg, b, mask):
    mask[:] = 0
    if s.g[b, G_DONE]:
        return
    scan_legal(s, cfg, b, mask)
