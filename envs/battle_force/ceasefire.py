"""SFBF Tregua Organiana, a card played instead of an attack: every hand discarded, the cards
reshuffled, new hands, all damage removed.  (Its condition, the first attack of a turn, is the attack
phase's: attack.attack_phase_card_reason.)
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (AK_NONE, G_ACTIVE, G_ATK_KIND, G_CEASE_LEFT, G_END_AT_TURN_END,
                     G_SETUP_P, G_SHUFFLES, K_ADVANCED, K_CEASE_REPAIR,
                     K_END_SHUFFLES, K_NS, K_P, L_RESERVE, N_KIND, PL_OUT, SH_CLOAK, SH_COV, SH_LINE,
                     SH_OWNER, SH_WEB, ST_CEASE_KEEP)
from .players import automaton, next_clockwise, set_stage
from .ships import fleet_size, in_fleet
from .cards import clear_ship_cards, draw_to_hand, gather_all_cards
from .formation import set_line
from .sequence import end_turn


@kernel(cache=True)
def start_ceasefire(s, cfg, b):
    """SFBF Tregua Organiana: every hand is discarded (advanced: up to the reserve of three
    first), the cards are reshuffled, everyone draws five, all damage is removed, cloaks and
    webs switch off, and the turn passes."""
    if cfg.k[K_ADVANCED]:
        s.g[b, G_CEASE_LEFT] = cfg.k[K_P]
        s.g[b, G_SETUP_P] = s.g[b, G_ACTIVE]
        set_stage(s, b, ST_CEASE_KEEP, s.g[b, G_ACTIVE])
    else:
        finish_ceasefire(s, cfg, b)


@kernel(cache=True)
def next_cease_keeper(s, cfg, b):
    s.g[b, G_CEASE_LEFT] -= 1
    if s.g[b, G_CEASE_LEFT] <= 0:
        finish_ceasefire(s, cfg, b)
        return
    q = next_clockwise(s, cfg, b, s.g[b, G_SETUP_P])
    s.g[b, G_SETUP_P] = q
    set_stage(s, b, ST_CEASE_KEEP, q)


@kernel(cache=True)
def finish_ceasefire(s, cfg, b):
    P = cfg.k[K_P]
    gather_all_cards(s, cfg, b, True)
    s.g[b, G_SHUFFLES] += 1
    if cfg.k[K_END_SHUFFLES] > 0 and s.g[b, G_SHUFFLES] >= cfg.k[K_END_SHUFFLES]:
        s.g[b, G_END_AT_TURN_END] = 1
    act = s.g[b, G_ACTIVE]
    q = act
    for d in range(P):
        if fleet_size(s, b, q) > 0 and not s.pl[b, q, PL_OUT] and not automaton(cfg, q):
            for r in range(5):
                draw_to_hand(s, cfg, b, q)
        q = (q + 1) % P
    for i in range(cfg.k[K_NS]):
        if in_fleet(s, b, i):
            if cfg.k[K_CEASE_REPAIR]:
                for k in range(N_KIND):
                    s.sh[b, i, SH_COV + k] = 0
            s.sh[b, i, SH_CLOAK] = 0
            s.sh[b, i, SH_WEB] = 0
            if s.sh[b, i, SH_LINE] == L_RESERVE and s.sh[b, i, SH_OWNER] >= 0:
                set_line(s, cfg, b, i, L_RESERVE)
    s.g[b, G_ATK_KIND] = AK_NONE
    for i in range(cfg.k[K_NS]):
        if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == act:
            clear_ship_cards(s, cfg, b, i)
    end_turn(s, cfg, b)
