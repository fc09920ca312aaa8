"""The duel of a tie (SFBF Come Vincere 5): each tied player picks one of the ships counted for its
points, and the duel is played.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (G_ENDED, G_END_AT_TURN_END, G_SDECK_N, K_NS, K_P, L_RESERVE, L_SCREEN, N_KIND, PL_OUT, SH_CLOAK,
                     SH_COV, SH_LINE, SH_LOC, SH_OWNER, SH_WEB, SL_OUT, SL_POOL, SL_VP)
from .players import automaton, first_player
from .ships import in_fleet, uses_formation
from .cards import clear_ship_cards, draw_to_hand, gather_all_cards
from .formation import place_ship
from .sequence import begin_turn


@kernel(cache=True, forceinline=True)
def duel_pick_ok(s, cfg, b, p, i):
    if s.sh[b, i, SH_OWNER] != p:
        return False
    if s.sh[b, i, SH_LOC] == SL_VP:
        return True
    return in_fleet(s, b, i) and not (uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE)


@kernel(cache=True)
def begin_duel(s, cfg, b):
    NS = cfg.k[K_NS]
    P = cfg.k[K_P]
    for i in range(NS):
        if s.sh[b, i, SH_LOC] == SL_POOL:      # the picked ships (marked during the picks)
            p = s.sh[b, i, SH_OWNER]
            clear_ship_cards(s, cfg, b, i)
            for k in range(N_KIND):
                s.sh[b, i, SH_COV + k] = 0
            s.sh[b, i, SH_CLOAK] = 0
            s.sh[b, i, SH_WEB] = 0
            place_ship(s, cfg, b, i, p, L_SCREEN)
        else:
            clear_ship_cards(s, cfg, b, i)
            s.sh[b, i, SH_LOC] = SL_OUT
    s.g[b, G_SDECK_N] = 0
    gather_all_cards(s, cfg, b, False)
    for p in range(P):
        if not s.pl[b, p, PL_OUT] and not automaton(cfg, p):
            for r in range(5):
                draw_to_hand(s, cfg, b, p)
    s.g[b, G_ENDED] = 0
    s.g[b, G_END_AT_TURN_END] = 0
    begin_turn(s, cfg, b, first_player(s, cfg, b))
