"""The sequence of play (SFBF Sequenza di gioco 1-5): the active player's five phases, drawing to the
hand limit, damage control and continuous damage control, entering formation and attack, the
discard phase, and the end of a turn.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (AK_NONE, CD_LOC, CD_WHO, CL_HAND, CL_RES, CL_SHIP, G_ACTIVE, G_ATK_KIND, G_ATK_SHIP, G_ATTACKS,
                     G_CDC, G_CDC_NEXT, G_DECK_N, G_DISC_N, G_DRAWN, G_DREW_DISCARD, G_DUEL, G_END_AT_TURN_END,
                     G_FIRST_ATTACKER, G_FORM_KIND, G_FORM_MOVES, G_MOVED, G_NO_MORE_ATTACKS, G_ORDER_KIND, G_PENDING,
                     G_REDRAW_N, G_REPAIRED, G_REP_LEFT, G_REP_SHIP, G_ROUND, G_STAGE, G_TARGET, G_TURN, K_ADVANCED,
                     K_ALLIES, K_DRAW_DISCARD, K_END_TURNS, K_NC, K_NS, K_ORDER_CARDS, K_P, N_KIND, OK, ORD_SHIPS,
                     PL_HAND, PL_ORDER, PL_OUT, PL_RES, R_DECK_EMPTY, R_NOT_ADVANCED, R_NOT_FIRST_ATTACK, R_NOT_IN_HAND,
                     R_NO_DAMAGE, R_ONCE, R_RESERVE_FULL, R_STAGE, SH_COV, SH_DIS, SH_EM, SH_OWNER, SH_WEB, SH_WW,
                     ST_ATTACK, ST_DISCARD, ST_DISC_DEST, ST_DISC_ORDER, ST_DRAW, ST_FORMATION, ST_KEEP, ST_REDRAW,
                     ST_REPAIR, ST_UNMARK)
from .players import ally_of, automaton, first_player, player_in_place, set_stage, shuffle_order
from .ships import damage_of, fleet_size, own_ship
from .cards import clear_ship_cards, draw_to_hand, hand_limit, set_card, to_discard
from .victory import finish, game_should_end
from .solitaire import auto_prepare_attack


@kernel(cache=True)
def begin_turn(s, cfg, b, p):
    """SFBF Sequenza di gioco: the active player's five phases."""
    s.g[b, G_ACTIVE] = p
    s.g[b, G_TURN] += 1
    s.g[b, G_REPAIRED] = 0
    s.g[b, G_CDC] = 0
    s.g[b, G_ATTACKS] = 0
    s.g[b, G_FIRST_ATTACKER] = -1
    s.g[b, G_DREW_DISCARD] = 0
    s.g[b, G_NO_MORE_ATTACKS] = 0
    s.g[b, G_ATK_KIND] = AK_NONE
    s.g[b, G_ATK_SHIP] = -1
    s.g[b, G_TARGET] = -1
    continue_draw(s, cfg, b)


@kernel(cache=True)
def can_draw_any(s, cfg, b, p):
    if s.g[b, G_DECK_N] + s.g[b, G_DISC_N] > 0:
        return True
    return cfg.k[K_ADVANCED] != 0 and s.pl[b, p, PL_RES] > 0


@kernel(cache=True)
def continue_draw(s, cfg, b):
    """Phase 1: draw up to the hand limit, one card at a time (SFBF Sequenza di gioco 1)."""
    p = s.g[b, G_ACTIVE]
    # a player who has lost all its ships draws no cards (SFBF Come Vincere)
    # the solitaire automaton draws only in its attack phase (SFBF Gioco in solitario)
    if fleet_size(s, b, p) == 0 or s.pl[b, p, PL_HAND] >= hand_limit(cfg) or not can_draw_any(s, cfg, b, p) \
            or automaton(cfg, p):
        enter_repair(s, cfg, b)
        return
    set_stage(s, b, ST_DRAW, p)


@kernel(cache=True)
def enter_repair(s, cfg, b):
    set_stage(s, b, ST_REPAIR, s.g[b, G_ACTIVE])


@kernel(cache=True, forceinline=True)
def own_damaged(s, cfg, b, p):
    for i in range(cfg.k[K_NS]):
        if own_ship(s, b, p, i) and damage_of(s, b, i) > 0:
            return True
    return False


@kernel(cache=True)
def next_cdc_ship(s, cfg, b):
    """Advanced continuous damage control: one damage off every damaged own ship, the reserve
    included (SFBF Sequenza di gioco 2 (X)); the owner picks which marker when it matters."""
    p = s.g[b, G_ACTIVE]
    for i in range(s.g[b, G_CDC_NEXT], cfg.k[K_NS]):
        if own_ship(s, b, p, i) and damage_of(s, b, i) > 0:
            s.g[b, G_CDC_NEXT] = i + 1
            s.g[b, G_REP_SHIP] = i
            s.g[b, G_REP_LEFT] = 1
            set_stage(s, b, ST_UNMARK, p)
            return
    s.g[b, G_CDC_NEXT] = -1
    enter_repair(s, cfg, b)


@kernel(cache=True)
def after_unmark(s, cfg, b):
    i = s.g[b, G_REP_SHIP]
    if s.g[b, G_REP_LEFT] > 0 and damage_of(s, b, i) > 0:
        return
    if s.g[b, G_CDC_NEXT] >= 0:
        next_cdc_ship(s, cfg, b)
    else:
        enter_repair(s, cfg, b)


@kernel(cache=True)
def start_repair(s, cfg, b, i, amount):
    """Damage Control removes ``amount`` markers (the owner picks which), Legendary Engineer all."""
    if amount >= damage_of(s, b, i):
        for k in range(N_KIND):
            s.sh[b, i, SH_COV + k] = 0
        after_unmark(s, cfg, b)
        return
    s.g[b, G_REP_SHIP] = i
    s.g[b, G_REP_LEFT] = amount
    set_stage(s, b, ST_UNMARK, s.g[b, G_ACTIVE])


@kernel(cache=True)
def enter_formation(s, cfg, b, kind):
    """Phase 3 (kind 1) or the advanced second formation change instead of an attack (kind 2)."""
    p = s.g[b, G_ACTIVE]
    s.g[b, G_FORM_KIND] = kind
    s.g[b, G_MOVED] = 0
    s.g[b, G_FORM_MOVES] = 0
    if kind == 1 and cfg.k[K_ADVANCED]:
        # SFBF Sequenza di gioco 3 (X): the active player removes its web markers
        for i in range(cfg.k[K_NS]):
            if own_ship(s, b, p, i):
                s.sh[b, i, SH_WEB] = 0
    set_stage(s, b, ST_FORMATION, p)


@kernel(cache=True)
def enter_attack(s, cfg, b):
    s.g[b, G_ATK_KIND] = AK_NONE
    if automaton(cfg, s.g[b, G_ACTIVE]) and s.g[b, G_ATTACKS] == 0:
        auto_prepare_attack(s, cfg, b)
    set_stage(s, b, ST_ATTACK, s.g[b, G_ACTIVE])


@kernel(cache=True)
def enter_discard(s, cfg, b):
    """Phase 5: Erratic Maneuvers, Disengage and Wild Weasel leave the active player's ships;
    then it may discard one card (SFBF Sequenza di gioco 5)."""
    p = s.g[b, G_ACTIVE]
    if cfg.k[K_DRAW_DISCARD]:
        # SFBF Regole Opzionali, Pescare: the active player orders the cards going to the pile
        n = 0
        for c in range(cfg.k[K_NC]):
            if s.cd[b, c, CD_LOC] == CL_SHIP and s.sh[b, s.cd[b, c, CD_WHO], SH_OWNER] == p:
                n += 1
        if n >= 2:
            for i in range(cfg.k[K_NS]):
                if own_ship(s, b, p, i):
                    for col in (SH_EM, SH_WW, SH_DIS):
                        s.sh[b, i, col] = 0
            s.g[b, G_ORDER_KIND] = ORD_SHIPS
            set_stage(s, b, ST_DISC_ORDER, p)
            return
    for i in range(cfg.k[K_NS]):
        if own_ship(s, b, p, i) and (s.sh[b, i, SH_EM] or s.sh[b, i, SH_WW]
                                                                or s.sh[b, i, SH_DIS]):
            clear_ship_cards(s, cfg, b, i)
    set_stage(s, b, ST_DISCARD, p)


@kernel(cache=True)
def end_turn(s, cfg, b):
    if game_should_end(s, cfg, b) or s.g[b, G_END_AT_TURN_END]:
        finish(s, cfg, b)
        return
    p = s.g[b, G_ACTIVE]
    P = cfg.k[K_P]
    pos = s.pl[b, p, PL_ORDER]
    nxt = -1
    for d in range(pos + 1, P):
        q = player_in_place(s, cfg, b, PL_ORDER, d)
        if not s.pl[b, q, PL_OUT]:
            nxt = q
            break
    if nxt < 0:
        # a new game turn (SFBF Sequenza di gioco)
        s.g[b, G_ROUND] += 1
        if cfg.k[K_END_TURNS] > 0 and s.g[b, G_ROUND] > cfg.k[K_END_TURNS] and not s.g[b, G_DUEL]:
            finish(s, cfg, b)
            return
        if cfg.k[K_ORDER_CARDS]:
            shuffle_order(s, cfg, b)
        nxt = first_player(s, cfg, b)
    begin_turn(s, cfg, b, nxt)


# -- the named actions of the phases: each one's condition beside its effect --------------------
@kernel(cache=True, inline="always")
def draw_deck_reason(s, cfg, b, p):
    """Phase 1: draw the top card of the action deck (the discards are reshuffled when it runs out)."""
    if s.g[b, G_STAGE] != ST_DRAW:
        return R_STAGE
    return OK if s.g[b, G_DECK_N] + s.g[b, G_DISC_N] > 0 else R_DECK_EMPTY


@kernel(cache=True, inline="always")
def draw_from_deck(s, cfg, b, p):
    """Advanced game: a drawn card may go to the reserve (SFBF Carte Azione di Riserva), so asked at once."""
    c = draw_to_hand(s, cfg, b, p)
    if cfg.k[K_ADVANCED] and c >= 0 and s.pl[b, p, PL_RES] < 3:
        s.g[b, G_DRAWN] = c
        set_stage(s, b, ST_KEEP, p)
    else:
        continue_draw(s, cfg, b)


@kernel(cache=True, inline="always")
def draw_discard_reason(s, cfg, b, p):
    """Option draw_discard (SFBF Regole Opzionali, Pescare): one of the cards drawn may be the top discard."""
    if s.g[b, G_STAGE] != ST_DRAW or not cfg.k[K_DRAW_DISCARD]:
        return R_STAGE
    if s.g[b, G_DREW_DISCARD]:
        return R_ONCE        # only one of the cards drawn may be the top discard
    return OK if s.g[b, G_DISC_N] > 0 else R_DECK_EMPTY


@kernel(cache=True, inline="always")
def draw_from_discard(s, cfg, b, p):
    nd = s.g[b, G_DISC_N] - 1
    c = s.disc[b, nd]
    s.g[b, G_DISC_N] = nd
    set_card(s, b, c, CL_HAND, p)
    s.g[b, G_DREW_DISCARD] = 1
    continue_draw(s, cfg, b)


@kernel(cache=True, inline="always")
def keep_reason(s, cfg, b, p):
    return OK if s.g[b, G_STAGE] == ST_KEEP else R_STAGE


@kernel(cache=True, inline="always")
def keep_drawn(s, cfg, b, p):
    s.g[b, G_DRAWN] = -1
    continue_draw(s, cfg, b)


@kernel(cache=True, inline="always")
def to_reserve_reason(s, cfg, b, p):
    """Advanced game (SFBF Carte Azione di Riserva): a drawn card (phase 1) or the discarded one
    (phase 5) goes to the reserve, of three cards at most."""
    st = s.g[b, G_STAGE]
    if st != ST_KEEP and st != ST_DISC_DEST:
        return R_STAGE
    if not cfg.k[K_ADVANCED]:
        return R_NOT_ADVANCED
    return OK if s.pl[b, p, PL_RES] < 3 else R_RESERVE_FULL


@kernel(cache=True, inline="always")
def to_reserve(s, cfg, b, p):
    if s.g[b, G_STAGE] == ST_KEEP:
        set_card(s, b, s.g[b, G_DRAWN], CL_RES, p)
        s.g[b, G_DRAWN] = -1
        continue_draw(s, cfg, b)
    else:
        set_card(s, b, s.g[b, G_PENDING], CL_RES, p)
        s.g[b, G_PENDING] = -1
        end_turn(s, cfg, b)


@kernel(cache=True, inline="always")
def to_discard_reason(s, cfg, b, p):
    """Phase 5: the card chosen to discard goes onto the discard pile."""
    return OK if s.g[b, G_STAGE] == ST_DISC_DEST else R_STAGE


@kernel(cache=True, inline="always")
def discard_chosen(s, cfg, b, p):
    to_discard(s, b, s.g[b, G_PENDING])
    s.g[b, G_PENDING] = -1
    end_turn(s, cfg, b)


@kernel(cache=True, inline="always")
def to_ally_reason(s, cfg, b, p):
    """Advanced game with allies (SFBF Regole Opzionali, Alleati): the discarded card to the ally's reserve."""
    if s.g[b, G_STAGE] != ST_DISC_DEST or not cfg.k[K_ALLIES] or not cfg.k[K_ADVANCED]:
        return R_STAGE
    a = ally_of(s, cfg, b, p)
    return OK if (a >= 0 and s.pl[b, a, PL_RES] < 3) else R_RESERVE_FULL


@kernel(cache=True, inline="always")
def to_ally(s, cfg, b, p):
    set_card(s, b, s.g[b, G_PENDING], CL_RES, ally_of(s, cfg, b, p))
    s.g[b, G_PENDING] = -1
    end_turn(s, cfg, b)


@kernel(cache=True, inline="always")
def cdc_reason(s, cfg, b, p):
    """Phase 2, advanced game: continuous damage control, once a turn, with a damaged own ship."""
    if s.g[b, G_STAGE] != ST_REPAIR:
        return R_STAGE
    if not cfg.k[K_ADVANCED] and not automaton(cfg, p):
        return R_NOT_ADVANCED    # (the solitaire automaton: "ad ogni turno", basic game too)
    if s.g[b, G_CDC]:
        return R_ONCE
    return OK if own_damaged(s, cfg, b, p) else R_NO_DAMAGE


@kernel(cache=True, inline="always")
def start_cdc(s, cfg, b, p):
    s.g[b, G_CDC] = 1
    s.g[b, G_CDC_NEXT] = 0
    next_cdc_ship(s, cfg, b)


@kernel(cache=True, inline="always")
def formation2_reason(s, cfg, b, p):
    """Phase 4, advanced game: a second formation change instead of an attack."""
    if s.g[b, G_STAGE] != ST_ATTACK:
        return R_STAGE
    if not cfg.k[K_ADVANCED]:
        return R_NOT_ADVANCED
    return OK if s.g[b, G_ATTACKS] == 0 else R_NOT_FIRST_ATTACK


@kernel(cache=True, inline="always")
def start_formation2(s, cfg, b, p):
    s.g[b, G_NO_MORE_ATTACKS] = 1
    enter_formation(s, cfg, b, 2)


# -- Sequenza di gioco 4: discard cards and draw as many again, instead of an attack -------------
@kernel(cache=True, inline="always")
def redraw_reason(s, cfg, b, p):
    if s.g[b, G_STAGE] != ST_ATTACK:
        return R_STAGE
    if s.g[b, G_ATTACKS] > 0:
        return R_NOT_FIRST_ATTACK
    return OK if s.pl[b, p, PL_HAND] > 0 else R_NOT_IN_HAND


@kernel(cache=True, inline="always")
def start_redraw(s, cfg, b, p):
    s.g[b, G_REDRAW_N] = 0
    s.g[b, G_NO_MORE_ATTACKS] = 1
    set_stage(s, b, ST_REDRAW, p)


@kernel(cache=True, inline="always")
def redraw_discard(s, b, c):
    """Any card of the hand (legality.card_reason: the player's own) is discarded, to be redrawn."""
    to_discard(s, b, c)
    s.g[b, G_REDRAW_N] += 1


@kernel(cache=True, inline="always")
def redraw_done_reason(s, cfg, b, p):
    """At least one card discarded before the redraw."""
    return OK if s.g[b, G_REDRAW_N] > 0 else R_STAGE


@kernel(cache=True, inline="always")
def finish_redraw(s, cfg, b, p):
    for r in range(s.g[b, G_REDRAW_N]):
        draw_to_hand(s, cfg, b, p)
    s.g[b, G_REDRAW_N] = 0
    enter_discard(s, cfg, b)
