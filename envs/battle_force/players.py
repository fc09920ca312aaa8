"""The players (SFBF Sequenza di gioco; Regole Opzionali, Alleati and Ordine dei giocatori): who is
whose enemy, the turn order, who decides next (``set_stage``), and the solitaire automaton's seat.
"""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from ..core.rng import draw_int
from .layout import AUTO, G_DECIDER, G_STAGE, K_ALLIES, K_P, K_SOLITAIRE, PL_ORDER, PL_OUT, PL_TEAM


@kernel(cache=True, inline="always")
def half_up(x):
    # SFBF Regole sull'Occultamento: 50% "per eccesso" (5 damage becomes 3)
    return (x + 1) // 2


@kernel(cache=True, inline="always")
def nplayers(cfg):
    return cfg.k[K_P]


@kernel(cache=True, forceinline=True)
def enemies(s, cfg, b, p, q):
    """True if players p and q are opponents (SFBF Regole Opzionali, Alleati: allies are not)."""
    if p == q:
        return False
    if cfg.k[K_ALLIES]:
        return s.pl[b, p, PL_TEAM] != s.pl[b, q, PL_TEAM]
    return True


@kernel(cache=True)
def shuffle_order(s, cfg, b):
    """SFBF Regole Opzionali, Ordine dei giocatori: a new random order every game turn."""
    P = cfg.k[K_P]
    perm = np.empty(P, dtype=np.int32)
    for i in range(P):
        perm[i] = i
    for i in range(P - 1, 0, -1):
        j = draw_int(s.rng, b, i + 1)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    for pos in range(P):
        s.pl[b, perm[pos], PL_ORDER] = pos


@kernel(cache=True)
def player_in_place(s, cfg, b, column, pos):
    """The player whose place in ``column`` is ``pos``: PL_ORDER, the turn order (Sequenza di gioco);
    PL_TIE, the order of the race picks (Preparazione del gioco 1).  Player 0 if none."""
    for p in range(cfg.k[K_P]):
        if s.pl[b, p, column] == pos:
            return p
    return 0


@kernel(cache=True)
def first_player(s, cfg, b):
    P = cfg.k[K_P]
    for pos in range(P):
        p = player_in_place(s, cfg, b, PL_ORDER, pos)
        if not s.pl[b, p, PL_OUT]:
            return p
    return 0


@kernel(cache=True)
def next_clockwise(s, cfg, b, p):
    """The next player to the left (SFBF Sequenza di gioco: play passes clockwise)."""
    P = cfg.k[K_P]
    for d in range(1, P + 1):
        q = (p + d) % P
        if not s.pl[b, q, PL_OUT]:
            return q
    return p


@kernel(cache=True)
def set_stage(s, b, st, who):
    s.g[b, G_STAGE] = st
    s.g[b, G_DECIDER] = who


@kernel(cache=True)
def ally_of(s, cfg, b, p):
    for q in range(cfg.k[K_P]):
        if q != p and s.pl[b, q, PL_TEAM] == s.pl[b, p, PL_TEAM]:
            return q
    return -1


@kernel(cache=True, inline="always")
def automaton(cfg, p):
    """Is seat p the solitaire automaton (option solitaire=True)?"""
    return cfg.k[K_SOLITAIRE] != 0 and p == AUTO
