"""The end of the game and its score (SFBF Come Vincere 1-4): when the game ends, each player's (and
side's) points, the tie-break draw, the ranks, and the duel that a tie still left starts.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (CC_TYPE, CC_VALUE, G_DONE, G_DUEL, G_ENDED, G_SETUP_P, G_STAGE, K_ALLIES, K_NS, K_P, K_SURVIVORS,
                     K_TIE, L_RESERVE, N_WEAPONS, PL_FINAL, PL_OUT, PL_PASSED, PL_RANK, PL_SCORE, PL_TEAM, PL_TIE,
                     PL_WIN, SC_VP, SH_LINE, ST_DUEL_PICK, ST_OVER, TIE_DRAW, TIE_DUEL)
from .players import first_player, set_stage
from .ships import fleet_size, own_ship, uses_formation
from .cards import gather_all_cards, pop_deck, to_discard


@kernel(cache=True)
def players_with_ships(s, cfg, b):
    n = 0
    for p in range(cfg.k[K_P]):
        if not s.pl[b, p, PL_OUT] and fleet_size(s, b, p) > 0:
            n += 1
    return n


@kernel(cache=True)
def game_should_end(s, cfg, b):
    if s.g[b, G_ENDED]:
        return True
    P = cfg.k[K_P]
    if cfg.k[K_ALLIES] and not s.g[b, G_DUEL]:
        # SFBF Alleati: the game ends when one of the allies has no ships left
        for p in range(P):
            if fleet_size(s, b, p) == 0:
                return True
        return False
    if cfg.k[K_ALLIES] and s.g[b, G_DUEL]:
        return players_with_ships(s, cfg, b) <= 1
    # only one player (or none) with ships in play; the advanced game counts the reserve too
    return players_with_ships(s, cfg, b) <= 1


@kernel(cache=True)
def final_score(s, cfg, b, p):
    """SFBF Come Vincere 1-3: destroyed enemy ships plus own surviving ships (advanced game:
    screen and main body only); option count_survivors=False counts destroyed ships only."""
    v = s.pl[b, p, PL_SCORE]
    if cfg.k[K_SURVIVORS]:
        for i in range(cfg.k[K_NS]):
            if own_ship(s, b, p, i):
                if not (uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE):
                    v += cfg.ship[i, SC_VP]
    return v


@kernel(cache=True)
def side_score(s, cfg, b, p):
    if not cfg.k[K_ALLIES]:
        return s.pl[b, p, PL_FINAL]
    v = 0
    for q in range(cfg.k[K_P]):
        if s.pl[b, q, PL_TEAM] == s.pl[b, p, PL_TEAM]:
            v += s.pl[b, q, PL_FINAL]
    return v


@kernel(cache=True)
def card_damage(cfg, c):
    """Tie-break draw: a card counts its printed damage (weapon cards), others nothing."""
    t = cfg.card[c, CC_TYPE]
    return cfg.card[c, CC_VALUE] if t < N_WEAPONS else 0


@kernel(cache=True)
def tie_break_draw(s, cfg, b):
    """SFBF Come Vincere 4: the tied players draw five cards each, one at a time, face up; the
    highest damage total wins; still tied: one more card each until one is ahead."""
    P = cfg.k[K_P]
    gather_all_cards(s, cfg, b, False)
    rounds = 5
    for it in range(200):
        for r in range(rounds):
            for p in range(P):
                if s.pl[b, p, PL_WIN]:
                    c = pop_deck(s, cfg, b)
                    if c < 0:
                        gather_all_cards(s, cfg, b, False)
                        c = pop_deck(s, cfg, b)
                    if c >= 0:
                        s.pl[b, p, PL_TIE] += card_damage(cfg, c)
                        to_discard(s, b, c)
        best = -1
        for p in range(P):
            if s.pl[b, p, PL_WIN] and s.pl[b, p, PL_TIE] > best:
                best = s.pl[b, p, PL_TIE]
        n = 0
        for p in range(P):
            if s.pl[b, p, PL_WIN]:
                if s.pl[b, p, PL_TIE] < best:
                    s.pl[b, p, PL_WIN] = 0
                else:
                    n += 1
        if n <= 1:
            return
        rounds = 1


@kernel(cache=True)
def set_ranks(s, cfg, b):
    """Rank 0 = best; winners first, then by (side) score; ties share the better rank."""
    P = cfg.k[K_P]
    for p in range(P):
        better = 0
        for q in range(P):
            if q == p:
                continue
            if s.pl[b, q, PL_WIN] and not s.pl[b, p, PL_WIN]:
                better += 1
            elif s.pl[b, q, PL_WIN] == s.pl[b, p, PL_WIN] and side_score(s, cfg, b, q) > side_score(s, cfg, b, p):
                better += 1
        s.pl[b, p, PL_RANK] = better


@kernel(cache=True)
def finish(s, cfg, b):
    P = cfg.k[K_P]
    if s.g[b, G_DUEL]:
        # SFBF Come Vincere 5: the duel's survivor wins; scores stay as they were
        for p in range(P):
            s.pl[b, p, PL_WIN] = 1 if (not s.pl[b, p, PL_OUT] and fleet_size(s, b, p) > 0) else 0
        set_ranks(s, cfg, b)
        s.g[b, G_DONE] = 1
        s.g[b, G_STAGE] = ST_OVER
        return
    best = -(1 << 30)
    for p in range(P):
        s.pl[b, p, PL_FINAL] = final_score(s, cfg, b, p)
    for p in range(P):
        best = max(best, side_score(s, cfg, b, p))
    n = 0
    for p in range(P):
        s.pl[b, p, PL_WIN] = 1 if side_score(s, cfg, b, p) == best else 0
        n += s.pl[b, p, PL_WIN]
    tied_sides = n if not cfg.k[K_ALLIES] else n // 2
    if tied_sides > 1 and cfg.k[K_TIE] == TIE_DRAW and not cfg.k[K_ALLIES]:
        tie_break_draw(s, cfg, b)
    elif tied_sides > 1 and cfg.k[K_TIE] == TIE_DUEL and not cfg.k[K_ALLIES]:
        start_duel(s, cfg, b)
        return
    set_ranks(s, cfg, b)
    s.g[b, G_DONE] = 1
    s.g[b, G_STAGE] = ST_OVER


@kernel(cache=True)
def start_duel(s, cfg, b):
    """SFBF Come Vincere 5: each tied player takes one of the ships counted for its points and
    the tied players play on until one is defeated (RULES.md 'Tie-breaks')."""
    P = cfg.k[K_P]
    s.g[b, G_DUEL] = 1
    for p in range(P):
        s.pl[b, p, PL_OUT] = 0 if s.pl[b, p, PL_WIN] else 1
        s.pl[b, p, PL_PASSED] = 0
    s.g[b, G_SETUP_P] = first_player(s, cfg, b)
    set_stage(s, b, ST_DUEL_PICK, s.g[b, G_SETUP_P])
