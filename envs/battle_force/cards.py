"""Action cards (SFBF Lista e traduzione delle carte azione, Carte Azione di Riserva): their types,
moving them between deck, hands, reserves, table and discards, drawing, shuffling, the empty-hand
refill of 5-6 players, and the order of the discards (SFBF Regole Opzionali, Pescare).
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.rng import draw_int
from .layout import (AK_SHIP, CC_TYPE, CD_LINK, CD_LOC, CD_MODE, CD_OFF, CD_SEQ, CD_SHIP, CD_WHO, CL_ATK, CL_DECK,
                     CL_DEF, CL_DISC, CL_HAND, CL_OUT, CL_RES, CL_SHIP, G_ACTIVE, G_DECK_N, G_DISC_N, G_END_AT_TURN_END,
                     G_ORDER_KIND, G_SEQ, G_SHUFFLES, G_TABLE_N, K_EM_WHOLE, K_END_SHUFFLES, K_HAND, K_NC, K_P, K_TRAD,
                     N_WEAPONS, ORD_TABLE, PL_HAND, PL_RES, SH_DIS, SH_EM, SH_OWNER, SH_WW, T_DRONE, T_PH1, T_PH2,
                     T_PH3, T_PLF, T_PLR, T_PLS)
from .ships import fleet_size


@kernel(cache=True, inline="always")
def is_weapon(t):
    return t < N_WEAPONS


@kernel(cache=True, inline="always")
def is_seeking(t):
    # drones and plasma torpedoes (SFBF Regole sull'Occultamento: cannot target a cloaked ship)
    return t == T_DRONE or t == T_PLR or t == T_PLS or t == T_PLF


@kernel(cache=True, inline="always")
def is_plasma(t):
    return t == T_PLR or t == T_PLS or t == T_PLF


@kernel(cache=True, inline="always")
def is_phaser(t):
    return t == T_PH1 or t == T_PH2 or t == T_PH3


@kernel(cache=True, inline="always")
def ctype(cfg, c):
    return cfg.card[c, CC_TYPE]


@kernel(cache=True, inline="always")
def em_ecm_per_card(cfg, kind):
    """ECM and Erratic Maneuvers act on one attack card of a ship attack: they reduce "il numero di
    danni ricevuti da una carta attacco" (SFBF 4.4 B, E and the card list; option em_ecm='whole_attack':
    the whole attack), or, traditional rules, remove one attack card."""
    return kind == AK_SHIP and (cfg.k[K_TRAD] != 0 or cfg.k[K_EM_WHOLE] == 0)


@kernel(cache=True)
def hand_size(s, b, p):
    return s.pl[b, p, PL_HAND]


@kernel(cache=True)
def set_card(s, b, c, loc, who):
    """Move card c; keeps the per-player hand and reserve counts."""
    old, ow = s.cd[b, c, CD_LOC], s.cd[b, c, CD_WHO]
    if old == CL_HAND:
        s.pl[b, ow, PL_HAND] -= 1
    elif old == CL_RES:
        s.pl[b, ow, PL_RES] -= 1
    elif old == CL_ATK or old == CL_DEF:
        s.g[b, G_TABLE_N] -= 1
    s.cd[b, c, CD_LOC] = loc
    s.cd[b, c, CD_WHO] = who
    s.cd[b, c, CD_LINK] = -1
    s.cd[b, c, CD_OFF] = 0
    s.cd[b, c, CD_SHIP] = -1
    s.cd[b, c, CD_MODE] = 0
    if loc == CL_HAND:
        s.pl[b, who, PL_HAND] += 1
    elif loc == CL_RES:
        s.pl[b, who, PL_RES] += 1
    elif loc == CL_ATK or loc == CL_DEF:
        s.g[b, G_TABLE_N] += 1      # cards on the table (ship_fires skips the scan when none)


@kernel(cache=True)
def stamp_seq(s, b, c):
    """Number card c, just played to the table or onto a ship, in the order of play (CD_SEQ, for
    display).  The numbering restarts with the first card on an empty table, so a number never
    exceeds the cards of one attack and fits the state's int8 card columns."""
    # the other cards on the table (G_TABLE_N counts c if c went to the table)
    others = s.g[b, G_TABLE_N] - (0 if s.cd[b, c, CD_LOC] == CL_SHIP else 1)
    if others == 0:
        s.g[b, G_SEQ] = 0
    s.g[b, G_SEQ] += 1
    s.cd[b, c, CD_SEQ] = s.g[b, G_SEQ]


@kernel(cache=True)
def to_discard(s, b, c):
    set_card(s, b, c, CL_DISC, -1)
    s.disc[b, s.g[b, G_DISC_N]] = c
    s.g[b, G_DISC_N] += 1


@kernel(cache=True)
def shuffle_stack(s, b, arr, n):
    # Fisher-Yates from the game's own stream (RULES.md 'Randomness')
    for i in range(n - 1, 0, -1):
        j = draw_int(s.rng, b, i + 1)
        t = arr[b, i]
        arr[b, i] = arr[b, j]
        arr[b, j] = t


@kernel(cache=True)
def reshuffle_discards(s, cfg, b):
    """The discard pile becomes the new action deck (SFBF Regole Opzionali, Condizioni di fine gioco 2:
    the number of reshuffles may end the game)."""
    n = s.g[b, G_DISC_N]
    if n == 0:
        return
    for i in range(n):
        c = s.disc[b, i]
        s.deck[b, i] = c
        s.cd[b, c, CD_LOC] = CL_DECK
    s.g[b, G_DECK_N] = n
    s.g[b, G_DISC_N] = 0
    shuffle_stack(s, b, s.deck, n)
    s.g[b, G_SHUFFLES] += 1
    if cfg.k[K_END_SHUFFLES] > 0 and s.g[b, G_SHUFFLES] >= cfg.k[K_END_SHUFFLES]:
        s.g[b, G_END_AT_TURN_END] = 1


@kernel(cache=True)
def pop_deck(s, cfg, b):
    """Top card of the action deck (the discards are reshuffled when it runs out); -1 if none is left."""
    if s.g[b, G_DECK_N] == 0:
        reshuffle_discards(s, cfg, b)
    n = s.g[b, G_DECK_N]
    if n == 0:
        return -1
    s.g[b, G_DECK_N] = n - 1
    return s.deck[b, n - 1]


@kernel(cache=True)
def draw_to_hand(s, cfg, b, p):
    c = pop_deck(s, cfg, b)
    if c >= 0:
        set_card(s, b, c, CL_HAND, p)
    return c


@kernel(cache=True)
def gather_all_cards(s, cfg, b, keep_reserves):
    """Every action card in play back into one shuffled deck (Organian Ceasefire, tie-break draw)."""
    n = 0
    NC = cfg.k[K_NC]
    for c in range(NC):
        loc = s.cd[b, c, CD_LOC]
        if loc == CL_OUT or (keep_reserves and loc == CL_RES) or loc == CL_SHIP:
            continue
        set_card(s, b, c, CL_DECK, -1)
        s.deck[b, n] = c
        n += 1
    s.g[b, G_DECK_N] = n
    s.g[b, G_DISC_N] = 0
    shuffle_stack(s, b, s.deck, n)


@kernel(cache=True)
def refill_empty_hand(s, cfg, b, p):
    """5-6 players: a player left with no card draws two at once (SFBF Preparazione, Nota 1).
    Read as applying to players other than the one whose turn it is (RULES.md)."""
    if cfg.k[K_P] >= 5 and p != s.g[b, G_ACTIVE] and s.pl[b, p, PL_HAND] == 0 and fleet_size(s, b, p) > 0:
        draw_to_hand(s, cfg, b, p)
        draw_to_hand(s, cfg, b, p)


@kernel(cache=True)
def clear_ship_cards(s, cfg, b, i):
    """Erratic Maneuvers (one or more), Wild Weasel and Disengage cards on ship i go to the discards."""
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_SHIP and s.cd[b, c, CD_WHO] == i:
            to_discard(s, b, c)
    for col in (SH_EM, SH_WW, SH_DIS):
        s.sh[b, i, col] = 0


@kernel(cache=True)
def hand_limit(cfg):
    return cfg.k[K_HAND]


@kernel(cache=True, forceinline=True)
def order_card_ok(s, cfg, b, c):
    """Option draw_discard: card c is one of those the active player now puts on the discard pile."""
    loc = s.cd[b, c, CD_LOC]
    if s.g[b, G_ORDER_KIND] == ORD_TABLE:
        return loc == CL_ATK or loc == CL_DEF
    return loc == CL_SHIP and s.sh[b, s.cd[b, c, CD_WHO], SH_OWNER] == s.g[b, G_ACTIVE]
