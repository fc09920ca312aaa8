"""Applying an action: each action family's effect at the current stage, dispatched to the chapter
modules, and ``settle``, which takes every step with a single legal action (and the solitaire
automaton's) until a player has a real decision to make.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (AK_MUTINY, AK_PBF, AK_PF, AK_SHIP, AUTO, CC_TYPE, CC_VALUE, CD_LOC, CD_SHIP, CL_ATK, CL_DEF,
                     CL_HAND, CL_RES, G_ACTIVE, G_ATK_KIND, G_ATK_SHIP, G_ATTACKS, G_CDC_NEXT, G_DECIDER, G_DEFENDER, G_DMG_LEFT,
                     G_DMG_SHIP, G_DONE, G_FIRST_ATTACKER, G_FORM_KIND, G_FORM_MOVES, G_HELPER, G_MOVED,
                     G_NO_MORE_ATTACKS, G_PENDING, G_PF_FIRER, G_PF_SHOTS, G_PICK_PHASE, G_PT_ADD, G_PT_SUB, G_REPAIRED,
                     G_REP_LEFT, G_REP_SHIP, G_RETURN, G_SDECK_N, G_SEL, G_SQUADRONS, G_STAGE, G_TARGET, G_TRUNC,
                     K_A_CARD, K_A_KIND, K_A_LINE, K_A_NAMED, K_A_NUM, K_A_RACE, K_A_SHIP, K_P, K_SELECTION,
                     K_SOLITAIRE, L_RESERVE, L_SCREEN, N_ACTIVATE, N_CDC, N_DEACTIVATE, N_DONE, N_DRAW_DECK,
                     N_DRAW_DISCARD, N_FIGHTERS, N_FORMATION2, N_KEEP, N_PT_ADD, N_PT_CANCEL, N_PT_CANCEL_WW, N_REDRAW,
                     N_TO_ALLY, N_TO_DISCARD, N_TO_RESERVE, N_WEAPONS, PL_OUT, PL_PASSED, PL_RACE, PT_MODE_ADD,
                     PT_MODE_CANCEL, PT_MODE_CANCEL_WW, SEL_CORE, SH_COV, SH_LINE, SH_LOC, SH_OWNER, SH_SHOTS, SL_POOL,
                     ST_ATK_CARDS, ST_ATTACK, ST_CARRIER, ST_CEASE_KEEP, ST_CLOAK_SETUP, ST_DEFENCE, ST_DISCARD,
                     ST_DISC_DEST, ST_DISC_ORDER, ST_DRAW, ST_DUEL_PICK, ST_FORMATION, ST_FORM_DEST, ST_FTR_DEF,
                     ST_LINE_SETUP, ST_LINK, ST_MUTINY_ATK, ST_MUTINY_DEF, ST_OVER, ST_PBF_MORE, ST_PF_FIRE, ST_PICK,
                     ST_PLACE, ST_REACT, ST_REDRAW, ST_REPAIR, ST_REPAIR_SHIP, ST_RES_SETUP, ST_SHIP_FOR, ST_SQUADRONS,
                     ST_TARGET, T_LENG, T_MUTINY, T_PBF, T_PF, T_PRIME)
from .players import set_stage
from .ships import uses_formation
from .cards import refill_empty_hand, set_card, to_discard
from .attack_table import is_multiplier
from .formation import activate_device, activate_selected, deactivate_selected, forced_advance, place_ship, set_line
from .solitaire import auto_action
from .sequence import (after_unmark, continue_draw, discard_chosen, draw_from_deck, draw_from_discard, end_turn,
                       enter_attack, enter_discard, enter_formation, finish_redraw, keep_drawn, redraw_discard,
                       start_cdc, start_formation2, start_redraw, start_repair, to_ally, to_reserve)
from .resolution import attack_end, begin_damage, order_next
from .defence import (after_pending, apply_link, apply_prime, choose_target, open_windows, play_defence, play_to_table,
                      start_link, start_prime, window_pass)
from .fighters import end_fighter_defence, next_pf_firer, start_fighters
from .mutiny import resolve_mutiny
from .ceasefire import next_cease_keeper, start_ceasefire
from .duel import begin_duel
from .setup import advance_pick, after_cloak_setup, after_race_pick, after_reserve_pick, next_line_setup
from .legality import scan_legal


@kernel(cache=True)
def apply_card(s, cfg, b, p, c):
    st = s.g[b, G_STAGE]
    t = cfg.card[c, CC_TYPE]
    if st == ST_LINK:
        apply_link(s, cfg, b, c)
    elif st == ST_DISC_ORDER:
        order_next(s, cfg, b, c)
    elif st == ST_DRAW:
        set_card(s, b, c, CL_HAND, p)
        continue_draw(s, cfg, b)
    elif st == ST_RES_SETUP:
        set_card(s, b, c, CL_RES, p)
        after_reserve_pick(s, cfg, b)
    elif st == ST_REPAIR:
        to_discard(s, b, c)
        s.g[b, G_REPAIRED] = 1
        s.g[b, G_PENDING] = c
        s.g[b, G_CDC_NEXT] = -1
        set_stage(s, b, ST_REPAIR_SHIP, p)
    elif st == ST_FORMATION:
        # SFBF Sequenza di gioco 3: Reinforcements draws a ship card into the fleet
        to_discard(s, b, c)
        n = s.g[b, G_SDECK_N] - 1
        i = s.sdeck[b, n]
        s.g[b, G_SDECK_N] = n
        # (advanced: into the reserve; if it is the only ship, formation_done_reason makes the
        # player bring one forward)
        place_ship(s, cfg, b, i, p, L_RESERVE if uses_formation(cfg) else L_SCREEN)
    elif st == ST_ATTACK:
        play_to_table(s, b, c, CL_ATK, p)
        if t == T_PBF:
            s.g[b, G_ATK_KIND] = AK_PBF
            set_stage(s, b, ST_PBF_MORE, p)
        elif t == T_PF:
            s.g[b, G_ATK_KIND] = AK_PF
            s.g[b, G_NO_MORE_ATTACKS] = 1
            s.g[b, G_PF_FIRER] = p
            next_pf_firer(s, cfg, b)
        elif t == T_MUTINY:
            s.g[b, G_ATK_KIND] = AK_MUTINY
            s.g[b, G_NO_MORE_ATTACKS] = 1
            set_stage(s, b, ST_TARGET, p)
        else:
            s.g[b, G_NO_MORE_ATTACKS] = 1
            start_ceasefire(s, cfg, b)
    elif st == ST_PBF_MORE:
        play_to_table(s, b, c, CL_ATK, p)
    elif st == ST_ATK_CARDS:
        play_to_table(s, b, c, CL_ATK, p)
        if t < N_WEAPONS:
            s.cd[b, c, CD_SHIP] = s.g[b, G_ATK_SHIP]
        elif is_multiplier(t):
            start_link(s, cfg, b, c, ST_ATK_CARDS)
        else:
            start_prime(s, cfg, b, c, ST_ATK_CARDS)
    elif st == ST_DEFENCE:
        play_defence(s, cfg, b, p, c)
    elif st == ST_REACT:
        play_to_table(s, b, c, CL_ATK, p)
        if t == T_PRIME:
            start_prime(s, cfg, b, c, ST_REACT)
        else:
            start_link(s, cfg, b, c, ST_REACT)
    elif st == ST_FTR_DEF or st == ST_PF_FIRE:
        if s.cd[b, c, CD_LOC] == CL_RES:
            set_card(s, b, c, CL_HAND, p)
            return
        play_to_table(s, b, c, CL_DEF, p)
        refill_empty_hand(s, cfg, b, p)
        s.g[b, G_PENDING] = c
        s.g[b, G_RETURN] = st
        if t < N_WEAPONS:
            set_stage(s, b, ST_SHIP_FOR, p)
        else:
            set_stage(s, b, ST_LINK, p)
    elif st == ST_MUTINY_ATK:
        play_to_table(s, b, c, CL_ATK, p)
        s.g[b, G_PT_ADD] += 1
    elif st == ST_MUTINY_DEF:
        if s.cd[b, c, CD_LOC] == CL_RES:
            set_card(s, b, c, CL_HAND, p)
            return
        play_to_table(s, b, c, CL_DEF, p)
        s.g[b, G_PT_SUB] += 1    # the Klingon owner's Prime Team: -1 to the mutiny roll
    elif st == ST_REDRAW:
        redraw_discard(s, b, c)
    elif st == ST_CEASE_KEEP:
        set_card(s, b, c, CL_RES, p)
    elif st == ST_DISCARD:
        s.g[b, G_PENDING] = c
        set_stage(s, b, ST_DISC_DEST, p)


@kernel(cache=True)
def apply_ship(s, cfg, b, p, i):
    st = s.g[b, G_STAGE]
    if st == ST_PICK:
        place_ship(s, cfg, b, i, p, -1 if uses_formation(cfg) else L_SCREEN)
        if cfg.k[K_SELECTION] == SEL_CORE and s.g[b, G_PICK_PHASE] < 2:
            s.pl[b, p, PL_PASSED] = 1
        advance_pick(s, cfg, b)
    elif st == ST_DUEL_PICK:
        s.sh[b, i, SH_LOC] = SL_POOL
        s.sh[b, i, SH_OWNER] = p
        s.pl[b, p, PL_PASSED] = 1
        nxt = -1
        for q in range(cfg.k[K_P]):
            if not s.pl[b, q, PL_OUT] and not s.pl[b, q, PL_PASSED]:
                nxt = q
                break
        if nxt >= 0:
            set_stage(s, b, ST_DUEL_PICK, nxt)
        else:
            begin_duel(s, cfg, b)
    elif st == ST_CLOAK_SETUP:
        activate_device(s, cfg, b, i)
        after_cloak_setup(s, cfg, b)
    elif st == ST_REPAIR_SHIP:
        c = s.g[b, G_PENDING]
        s.g[b, G_PENDING] = -1
        if cfg.card[c, CC_TYPE] == T_LENG:
            start_repair(s, cfg, b, i, 1000)   # Legendary Engineer: all damage
        else:
            start_repair(s, cfg, b, i, cfg.card[c, CC_VALUE])
    elif st == ST_FORMATION:
        s.g[b, G_SEL] = i
        set_stage(s, b, ST_FORM_DEST, p)
    elif st == ST_ATTACK:
        s.g[b, G_ATK_KIND] = AK_SHIP
        s.g[b, G_ATK_SHIP] = i
        if s.g[b, G_ATTACKS] == 0:
            s.g[b, G_FIRST_ATTACKER] = i
        set_stage(s, b, ST_TARGET, p)
    elif st == ST_CARRIER:
        s.g[b, G_ATK_SHIP] = i
        if s.g[b, G_ATTACKS] == 0:
            s.g[b, G_FIRST_ATTACKER] = i
        set_stage(s, b, ST_SQUADRONS, p)
    elif st == ST_TARGET:
        choose_target(s, cfg, b, p, i)
    elif st == ST_SHIP_FOR:
        c = s.g[b, G_PENDING]
        s.cd[b, c, CD_SHIP] = i
        s.sh[b, i, SH_SHOTS] += 1
        if s.g[b, G_ATK_KIND] == AK_PF:
            s.g[b, G_PF_SHOTS] += 1
        elif i != s.g[b, G_TARGET]:
            s.g[b, G_HELPER] = i
        after_pending(s, cfg, b)


@kernel(cache=True)
def apply_named(s, cfg, b, p, n):
    st = s.g[b, G_STAGE]
    if n == N_DONE:
        if st == ST_PICK:
            s.pl[b, p, PL_PASSED] = 1
            advance_pick(s, cfg, b)
        elif st == ST_CLOAK_SETUP:
            after_cloak_setup(s, cfg, b)
        elif st == ST_REPAIR:
            enter_formation(s, cfg, b, 1)
        elif st == ST_FORMATION:
            if s.g[b, G_FORM_KIND] == 1:
                enter_attack(s, cfg, b)
            else:
                s.g[b, G_ATTACKS] = 0
                enter_discard(s, cfg, b)
        elif st == ST_ATTACK:
            enter_discard(s, cfg, b)
        elif st == ST_PBF_MORE:
            set_stage(s, b, ST_TARGET, p)
        elif st == ST_ATK_CARDS:
            open_windows(s, cfg, b)
        elif st == ST_DEFENCE or st == ST_REACT:
            window_pass(s, cfg, b)
        elif st == ST_FTR_DEF:
            end_fighter_defence(s, cfg, b)
        elif st == ST_PF_FIRE:
            next_pf_firer(s, cfg, b)
        elif st == ST_MUTINY_ATK:
            set_stage(s, b, ST_MUTINY_DEF, s.g[b, G_DEFENDER])
        elif st == ST_MUTINY_DEF:
            damage = resolve_mutiny(s, cfg, b)
            if damage > 0:
                begin_damage(s, cfg, b, s.g[b, G_TARGET], damage, s.g[b, G_ACTIVE], False)
            else:
                attack_end(s, cfg, b)
        elif st == ST_REDRAW:
            finish_redraw(s, cfg, b, p)
        elif st == ST_CEASE_KEEP:
            next_cease_keeper(s, cfg, b)
        elif st == ST_DISCARD:
            end_turn(s, cfg, b)
    elif n == N_DRAW_DECK:
        draw_from_deck(s, cfg, b, p)
    elif n == N_DRAW_DISCARD:
        draw_from_discard(s, cfg, b, p)
    elif n == N_KEEP:
        keep_drawn(s, cfg, b, p)
    elif n == N_TO_RESERVE:
        to_reserve(s, cfg, b, p)
    elif n == N_TO_DISCARD:
        discard_chosen(s, cfg, b, p)
    elif n == N_TO_ALLY:
        to_ally(s, cfg, b, p)
    elif n == N_FIGHTERS:
        start_fighters(s, cfg, b, p)
    elif n == N_REDRAW:
        start_redraw(s, cfg, b, p)
    elif n == N_FORMATION2:
        start_formation2(s, cfg, b, p)
    elif n == N_CDC:
        start_cdc(s, cfg, b, p)
    elif n == N_PT_ADD:
        apply_prime(s, cfg, b, PT_MODE_ADD)
    elif n == N_PT_CANCEL:
        apply_prime(s, cfg, b, PT_MODE_CANCEL)
    elif n == N_PT_CANCEL_WW:
        apply_prime(s, cfg, b, PT_MODE_CANCEL_WW)
    elif n == N_ACTIVATE:
        activate_selected(s, cfg, b, p)
    elif n == N_DEACTIVATE:
        deactivate_selected(s, cfg, b, p)


@kernel(cache=True)
def apply_action(s, cfg, b, a, mask):
    """Perform legal action a (checked by the caller), then settle the game; ``mask`` gets the
    legal actions of the next decision."""
    dispatch(s, cfg, b, a)
    settle(s, cfg, b, mask)


@kernel(cache=True)
def dispatch(s, cfg, b, a):
    k = cfg.k
    p = s.g[b, G_DECIDER]
    if a < k[K_A_SHIP]:
        apply_card(s, cfg, b, p, a - k[K_A_CARD])
    elif a < k[K_A_LINE]:
        apply_ship(s, cfg, b, p, a - k[K_A_SHIP])
    else:
        apply_other(s, cfg, b, a)


@kernel(cache=True)
def settle(s, cfg, b, mask):
    """Take every step that involves no choice (a single legal action) until a real decision,
    whose legal actions are left in ``mask`` (all zero once the game is over).  A forced step
    is only known to be forced after every action was looked at, so writing the mask as it is
    scanned costs nothing, and the mask of the real decision needs no second scan."""
    for it in range(100000):
        mask[:] = 0
        if s.g[b, G_DONE]:
            if cfg.k[K_SOLITAIRE]:
                s.g[b, G_DECIDER] = 0    # the agent's seat (the only agent) sees the end
            return
        n, first = scan_legal(s, cfg, b, mask)
        if n == 1:
            dispatch(s, cfg, b, first)
            continue
        if n == 0:
            # no legal action: a rules bug; end the game as truncated so tests see it
            s.g[b, G_TRUNC] = 1
            s.g[b, G_DONE] = 1
            s.g[b, G_STAGE] = ST_OVER
            mask[:] = 0
            if cfg.k[K_SOLITAIRE]:
                s.g[b, G_DECIDER] = 0
            return
        if cfg.k[K_SOLITAIRE] and s.g[b, G_DECIDER] == AUTO:
            # SFBF Gioco in solitario: the automaton's decisions are taken here, by its rules
            dispatch(s, cfg, b, auto_action(s, cfg, b, mask))
            continue
        return


@kernel(cache=True)
def apply_other(s, cfg, b, a):
    """Actions of the LINE, KIND, NUM, RACE and named families."""
    k = cfg.k
    p = s.g[b, G_DECIDER]
    st = s.g[b, G_STAGE]
    if a < k[K_A_KIND]:
        line = a - k[K_A_LINE]
        i = s.g[b, G_SEL]
        if st == ST_LINE_SETUP:
            set_line(s, cfg, b, i, line)
            next_line_setup(s, cfg, b)
        else:
            s.g[b, G_MOVED] |= 1 << s.sh[b, i, SH_LINE]
            s.g[b, G_FORM_MOVES] += 1
            set_line(s, cfg, b, i, line)
            forced_advance(s, cfg, b, p)
            set_stage(s, b, ST_FORMATION, p)
    elif a < k[K_A_NUM]:
        kind = a - k[K_A_KIND]
        if st == ST_PLACE:
            i = s.g[b, G_DMG_SHIP]
            s.sh[b, i, SH_COV + kind] += 1
            s.g[b, G_DMG_LEFT] -= 1
            if s.g[b, G_DMG_LEFT] == 0:
                attack_end(s, cfg, b)
        else:
            i = s.g[b, G_REP_SHIP]
            s.sh[b, i, SH_COV + kind] -= 1
            s.g[b, G_REP_LEFT] -= 1
            after_unmark(s, cfg, b)
    elif a < k[K_A_RACE]:
        s.g[b, G_SQUADRONS] = a - k[K_A_NUM] + 1
        set_stage(s, b, ST_TARGET, p)
    elif a < k[K_A_NAMED]:
        s.pl[b, p, PL_RACE] = a - k[K_A_RACE]
        after_race_pick(s, cfg, b)
    else:
        apply_named(s, cfg, b, p, a - k[K_A_NAMED])
