"""Set-up (SFBF Preparazione del gioco 1-2, Sequenza di gioco 3's first cloak or web): races, the
65-point pick or the deal of ship cards, reserve cards of the advanced game, the screen, main body
and reserve, and the start of play.
"""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from ..core.rng import draw_int, roll_die
from .layout import (G_PICK_PHASE, G_ROUND, G_SDECK_N, G_SEL, G_SETUP_LEFT, G_SETUP_P, K_ADVANCED, K_BUDGET, K_FTR,
                     K_LEARNING, K_NS, K_N_RACES, K_P, K_PER_PLAYER, K_SELECTION, K_SOLITAIRE, L_MAIN, L_RESERVE,
                     L_SCREEN, OK, PL_PASSED, PL_RACE, PL_TIE, R_BUDGET, R_NEED_FRONT, R_POOL, R_RACE_TAKEN,
                     R_RESERVE_FULL, SC_DN, SC_N, SC_RACE, SC_VP, SEL_CORE, SEL_DRAFT, SEL_DRAFT4, SEL_POINTS, SH_DOWN,
                     SH_LINE, SH_LOC, SH_OWNER, SL_DECK, SL_OUT, SL_POOL, ST_CLOAK_SETUP, ST_LINE_SETUP, ST_PICK,
                     ST_RACE, ST_RES_SETUP)
from .players import automaton, first_player, player_in_place, set_stage
from .ships import fleet_size, own_ship, uses_formation
from .cards import shuffle_stack
from .formation import count_line, place_ship
from .victory import finish, game_should_end
from .solitaire import auto_layout
from .sequence import begin_turn


@kernel(cache=True)
def pick_need(s, cfg, b, p):
    """Does player p still pick in the current selection round?"""
    if s.pl[b, p, PL_PASSED]:
        return False
    sel = cfg.k[K_SELECTION]
    N = cfg.k[K_PER_PLAYER]
    n = fleet_size(s, b, p)
    if sel == SEL_POINTS:
        return True
    if sel == SEL_DRAFT:
        return n < N
    if sel == SEL_DRAFT4:
        return n < min(4, N)
    # SEL_CORE: one dreadnought, then one carrier, then free picks
    if s.g[b, G_PICK_PHASE] == 2:
        return n < N
    return True


@kernel(cache=True)
def fleet_vp(s, cfg, b, p):
    v = 0
    for i in range(cfg.k[K_NS]):
        if own_ship(s, b, p, i):
            v += cfg.ship[i, SC_VP]
    return v


@kernel(cache=True, forceinline=True)
def pick_reason(s, cfg, b, p, i):
    if s.sh[b, i, SH_LOC] != SL_POOL:
        return R_POOL
    sel = cfg.k[K_SELECTION]
    if sel == SEL_POINTS and fleet_vp(s, cfg, b, p) + cfg.ship[i, SC_VP] > cfg.k[K_BUDGET]:
        return R_BUDGET          # SFBF Preparazione: ships totalling 65 victory points
    if sel == SEL_CORE and s.g[b, G_PICK_PHASE] == 0 and not cfg.ship[i, SC_DN]:
        return R_POOL            # SFBF Regole Opzionali, Centro della Flotta: dreadnoughts first
    if sel == SEL_CORE and s.g[b, G_PICK_PHASE] == 1 and cfg.ship[i, SC_N + K_FTR] == 0:
        return R_POOL            # ... then carriers
    return OK


@kernel(cache=True)
def any_pick(s, cfg, b, p):
    for i in range(cfg.k[K_NS]):
        if pick_reason(s, cfg, b, p, i) == OK:
            return True
    return False


@kernel(cache=True)
def advance_pick(s, cfg, b):
    """Hand the pick to the next player who still picks (round robin), or close the round."""
    P = cfg.k[K_P]
    for it in range(4):
        cur = s.g[b, G_SETUP_P]
        for d in range(1, P + 1):
            q = (cur + d) % P
            if pick_need(s, cfg, b, q):
                if any_pick(s, cfg, b, q):
                    s.g[b, G_SETUP_P] = q
                    set_stage(s, b, ST_PICK, q)
                    return
                s.pl[b, q, PL_PASSED] = 1      # nothing left that fits: this player is done
        # nobody picks in this round any more
        sel = cfg.k[K_SELECTION]
        if sel == SEL_CORE and s.g[b, G_PICK_PHASE] < 2:
            s.g[b, G_PICK_PHASE] += 1
            for p in range(P):
                s.pl[b, p, PL_PASSED] = 0
            s.g[b, G_SETUP_P] = P - 1
            continue
        break
    end_selection(s, cfg, b)


@kernel(cache=True)
def deal_ships_from_deck(s, cfg, b, upto):
    """Deal ship cards from the ship deck, one at a time round the table, until each player
    has ``upto`` ships or the deck is empty."""
    P = cfg.k[K_P]
    for r in range(64):
        dealt = False
        for p in range(P):
            if fleet_size(s, b, p) < upto and s.g[b, G_SDECK_N] > 0:
                n = s.g[b, G_SDECK_N] - 1
                i = s.sdeck[b, n]
                s.g[b, G_SDECK_N] = n
                place_ship(s, cfg, b, i, p, -1 if uses_formation(cfg) else L_SCREEN)
                hide_until_placed(s, cfg, b, i)
                dealt = True
        if not dealt:
            return


@kernel(cache=True)
def hide_until_placed(s, cfg, b, i):
    """A ship dealt face down stays hidden from the other players until its owner lays it out
    in the formation (picked ships came from a face-up pool and are public)."""
    if s.sh[b, i, SH_LINE] < 0:
        s.sh[b, i, SH_DOWN] = 1


@kernel(cache=True)
def pool_to_deck(s, cfg, b):
    n = s.g[b, G_SDECK_N]
    for i in range(cfg.k[K_NS]):
        if s.sh[b, i, SH_LOC] == SL_POOL:
            s.sh[b, i, SH_LOC] = SL_DECK
            s.sh[b, i, SH_OWNER] = -1
            s.sdeck[b, n] = i
            n += 1
    s.g[b, G_SDECK_N] = n
    shuffle_stack(s, b, s.sdeck, n)


@kernel(cache=True)
def end_selection(s, cfg, b):
    pool_to_deck(s, cfg, b)
    if cfg.k[K_SELECTION] == SEL_DRAFT4:
        # SFBF Regole Opzionali, Scegliere le navi 3: the rest of the ships are dealt at random
        deal_ships_from_deck(s, cfg, b, cfg.k[K_PER_PLAYER])
    after_selection(s, cfg, b)


@kernel(cache=True)
def after_selection(s, cfg, b):
    if cfg.k[K_LEARNING]:
        # SFBF Preparazione: first game, four ships each; the other ships leave the game
        for i in range(cfg.k[K_NS]):
            if s.sh[b, i, SH_LOC] == SL_DECK:
                s.sh[b, i, SH_LOC] = SL_OUT
        s.g[b, G_SDECK_N] = 0
    begin_reserve_setup(s, cfg, b)


@kernel(cache=True)
def begin_reserve_setup(s, cfg, b):
    """SFBF Preparazione 1 (X): of the seven cards dealt, each player puts two face down as reserve."""
    if cfg.k[K_ADVANCED]:
        s.g[b, G_SETUP_P] = 0
        s.g[b, G_SETUP_LEFT] = 2
        set_stage(s, b, ST_RES_SETUP, 0)
    else:
        begin_line_setup(s, cfg, b)


@kernel(cache=True)
def after_reserve_pick(s, cfg, b):
    s.g[b, G_SETUP_LEFT] -= 1
    if s.g[b, G_SETUP_LEFT] > 0:
        return
    p = s.g[b, G_SETUP_P] + 1
    while p < cfg.k[K_P] and automaton(cfg, p):
        p += 1                   # the solitaire automaton holds no cards
    if p < cfg.k[K_P]:
        s.g[b, G_SETUP_P] = p
        s.g[b, G_SETUP_LEFT] = 2
        set_stage(s, b, ST_RES_SETUP, p)
    else:
        begin_line_setup(s, cfg, b)


@kernel(cache=True)
def next_unplaced(s, cfg, b, p):
    for i in range(cfg.k[K_NS]):
        if own_ship(s, b, p, i) and s.sh[b, i, SH_LINE] < 0:
            return i
    return -1


@kernel(cache=True)
def begin_line_setup(s, cfg, b):
    """SFBF Preparazione 2 (X): each player splits its ships into screen, main body and reserve."""
    if cfg.k[K_SOLITAIRE]:
        auto_layout(s, cfg, b)
    if not uses_formation(cfg):
        begin_cloak_setup(s, cfg, b)
        return
    s.g[b, G_SETUP_P] = -1
    next_line_setup(s, cfg, b)


@kernel(cache=True)
def next_line_setup(s, cfg, b):
    p = max(s.g[b, G_SETUP_P], 0)
    P = cfg.k[K_P]
    while p < P:
        i = next_unplaced(s, cfg, b, p)
        if i >= 0:
            s.g[b, G_SETUP_P] = p
            s.g[b, G_SEL] = i
            set_stage(s, b, ST_LINE_SETUP, p)
            return
        p += 1
    s.g[b, G_SEL] = -1
    begin_cloak_setup(s, cfg, b)


@kernel(cache=True)
def setup_line_reason(s, cfg, b, p, line):
    """At least two ships in the screen and two in the main body, at most two in the reserve
    (SFBF Preparazione 2 (X); fewer ships: as many as there are, screen first - RULES.md)."""
    n = fleet_size(s, b, p)
    cs = count_line(s, b, p, L_SCREEN)
    cm = count_line(s, b, p, L_MAIN)
    cr = count_line(s, b, p, L_RESERVE)
    left = 0
    for i in range(cfg.k[K_NS]):
        if own_ship(s, b, p, i) and s.sh[b, i, SH_LINE] < 0:
            left += 1
    if line == L_SCREEN:
        cs += 1
    elif line == L_MAIN:
        cm += 1
    else:
        cr += 1
    left -= 1
    ms = min(2, n)
    mm = min(2, n - ms)
    if cr > 2:
        return R_RESERVE_FULL
    if max(0, ms - cs) + max(0, mm - cm) > left:
        return R_NEED_FRONT
    return OK


@kernel(cache=True)
def begin_cloak_setup(s, cfg, b):
    """SFBF Sequenza di gioco 3: before its first turn each player may activate one cloak or web."""
    if not cfg.k[K_ADVANCED]:
        start_play(s, cfg, b)
        return
    s.g[b, G_SETUP_P] = 0
    set_stage(s, b, ST_CLOAK_SETUP, 0)


@kernel(cache=True)
def after_cloak_setup(s, cfg, b):
    p = s.g[b, G_SETUP_P] + 1
    if p < cfg.k[K_P]:
        s.g[b, G_SETUP_P] = p
        set_stage(s, b, ST_CLOAK_SETUP, p)
    else:
        start_play(s, cfg, b)


@kernel(cache=True)
def start_play(s, cfg, b):
    s.g[b, G_SETUP_P] = -1
    s.g[b, G_ROUND] = 1
    if game_should_end(s, cfg, b):
        finish(s, cfg, b)
        return
    begin_turn(s, cfg, b, first_player(s, cfg, b))


# -- single race (SFBF Regole Opzionali, Giocare una gara singola) --------------------------------
@kernel(cache=True)
def race_of(cfg, i):
    r = cfg.ship[i, SC_RACE]
    if cfg.k[K_P] == 6 and r == 6:
        return 5                 # six players: Tholians and Orions are one race
    return r


@kernel(cache=True)
def race_size(cfg, r):
    n = 0
    for i in range(cfg.k[K_NS]):
        if race_of(cfg, i) == r:
            n += 1
    return n


@kernel(cache=True)
def race_reason(s, cfg, b, r):
    if r >= cfg.k[K_N_RACES] or race_size(cfg, r) == 0:
        return R_RACE_TAKEN
    for p in range(cfg.k[K_P]):
        if s.pl[b, p, PL_RACE] == r:
            return R_RACE_TAKEN
    return OK


@kernel(cache=True)
def begin_race_picks(s, cfg, b):
    """Roll for the order of choice; tied players roll again among themselves."""
    P = cfg.k[K_P]
    key = np.zeros(P, dtype=np.int64)
    for p in range(P):
        key[p] = roll_die(s.rng, s.dice_script, s.dice, b, 6)
    for it in range(12):
        tied = False
        for p in range(P):
            for q in range(P):
                if p != q and key[p] == key[q]:
                    tied = True
        if not tied:
            break
        for p in range(P):
            dup = False
            for q in range(P):
                if p != q and key[p] == key[q]:
                    dup = True
            key[p] = key[p] * 8 + (roll_die(s.rng, s.dice_script, s.dice, b, 6) if dup else 7)
    # pick position = number of players with a higher key (seat breaks a tie that never resolved)
    for p in range(P):
        pos = 0
        for q in range(P):
            if key[q] > key[p] or (key[q] == key[p] and q < p):
                pos += 1
        s.pl[b, p, PL_TIE] = pos
        s.pl[b, p, PL_RACE] = -1
    s.g[b, G_SETUP_LEFT] = 0
    set_stage(s, b, ST_RACE, player_in_place(s, cfg, b, PL_TIE, 0))


@kernel(cache=True)
def after_race_pick(s, cfg, b):
    P = cfg.k[K_P]
    s.g[b, G_SETUP_LEFT] += 1
    if s.g[b, G_SETUP_LEFT] < P:
        set_stage(s, b, ST_RACE, player_in_place(s, cfg, b, PL_TIE, s.g[b, G_SETUP_LEFT]))
        return
    N = cfg.k[K_PER_PLAYER]
    for p in range(P):
        N = min(N, race_size(cfg, s.pl[b, p, PL_RACE]))
        s.pl[b, p, PL_TIE] = 0
    NS = cfg.k[K_NS]
    order = np.empty(NS, dtype=np.int32)
    for p in range(P):
        n = 0
        for i in range(NS):
            if race_of(cfg, i) == s.pl[b, p, PL_RACE] and s.sh[b, i, SH_LOC] == SL_POOL:
                order[n] = i
                n += 1
        for j in range(n - 1, 0, -1):
            k = draw_int(s.rng, b, j + 1)
            t = order[j]
            order[j] = order[k]
            order[k] = t
        for j in range(min(N, n)):
            place_ship(s, cfg, b, order[j], p, -1 if uses_formation(cfg) else L_SCREEN)
            hide_until_placed(s, cfg, b, order[j])
    pool_to_deck(s, cfg, b)
    begin_reserve_setup(s, cfg, b)
