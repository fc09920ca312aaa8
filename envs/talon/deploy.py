"""Setting up a Talon game: placing the fleets of the scenario template or drawn to a
point budget, and the first round (RULES.md "Scenarios")."""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from ..core.rng import roll_die, seed_stream
from .layout import G_VC, K_VC, N_VC, N_VCF   # scenario victory conditions
from .layout import (CL_AFTERBURNERS, CL_N_GROUPS, CL_N_NAMES, CL_POINTS, CL_SHIELD, CL_START, GR_RED, GR_YELLOW,
                     G_FLEET0, G_FLEET1, G_INIT, G_ROUND, G_ROUNDS, G_TURN, G_WINNER, K_BUDGET, K_FIRST_INIT,
                     K_ROUNDS, K_SCENARIO, SH_AB_LEFT, SH_CELL, SH_CLASS, SH_FACING, SH_NAME, SH_RED, SH_SHIELD,
                     SH_STATUS, SH_YEL, SS_ACTIVE, SS_EMPTY, TP_CELL, TP_CLASS, TP_FACING, TP_NAME, TP_ARRIVE, SH_ARRIVE,
                     SS_RESERVE, G_TILES, TR_KIND, TR_CELL, TK_NONE)
from .power import set_curve
from .sequence import advance, begin_turn


# ---------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def place_ship(s, cfg, b, p, k, c, name, cell, facing):
    """A ship as a scenario starts it: start curve, full shields, charged bars (8.1.3),
    empty battery (10.1.4), all afterburners."""
    sh = s.sh
    sh[b, p, k, :] = 0
    sh[b, p, k, SH_CLASS] = c
    sh[b, p, k, SH_STATUS] = SS_ACTIVE
    sh[b, p, k, SH_NAME] = name
    sh[b, p, k, SH_CELL] = cell
    sh[b, p, k, SH_FACING] = facing
    for a in range(4):
        sh[b, p, k, SH_SHIELD + a] = cfg.cls[c, CL_SHIELD + a]
    for gi in range(cfg.cls[c, CL_N_GROUPS]):
        sh[b, p, k, SH_RED + gi] = cfg.grp[c, gi, GR_RED]
        sh[b, p, k, SH_YEL + gi] = cfg.grp[c, gi, GR_YELLOW]
    sh[b, p, k, SH_AB_LEFT] = cfg.cls[c, CL_AFTERBURNERS]
    set_curve(s, cfg, b, p, k, cfg.cls[c, CL_START])


@kernel(cache=True)
def draw_fleet(s, cfg, b, p):
    """Option scenario="fleet": classes drawn at random among the playable ones of the
    player's race until the point budget admits no more, each counter used once (RULES.md)."""
    sh = s.sh
    S = sh.shape[2]
    left = cfg.k[K_BUDGET]
    names = np.zeros(cfg.cls.shape[0], dtype=np.int64)
    for k in range(S):
        n = 0
        for i in range(cfg.fleet_cls.shape[1]):
            c = cfg.fleet_cls[p, i]
            if c >= 0 and cfg.cls[c, CL_POINTS] <= left and names[c] < cfg.cls[c, CL_N_NAMES]:
                n += 1
        if n == 0:
            break
        pick = roll_die(s.rng, s.dice_script, s.dice, b, n) - 1
        for i in range(cfg.fleet_cls.shape[1]):
            c = cfg.fleet_cls[p, i]
            if c >= 0 and cfg.cls[c, CL_POINTS] <= left and names[c] < cfg.cls[c, CL_N_NAMES]:
                if pick == 0:
                    place_ship(s, cfg, b, p, k, c, names[c],
                               cfg.fleet_cells[p, k], cfg.fleet_facing[p])
                    names[c] += 1
                    left -= cfg.cls[c, CL_POINTS]
                    break
                pick -= 1


@kernel(cache=True)
def start_game(s, cfg, b):
    """Begin round 1 (or the scenario's round/impulse) with the initiative player's turn."""
    g = s.g
    sh = s.sh
    g[b, G_FLEET0] = 0
    g[b, G_FLEET1] = 0
    for p in range(2):
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_STATUS] != SS_EMPTY:
                g[b, G_FLEET0 + p] += cfg.cls[sh[b, p, k, SH_CLASS], CL_POINTS]
    g[b, G_TURN] = 0
    g[b, G_WINNER] = -1
    begin_turn(s, cfg, b)
    advance(s, cfg, b)


@kernel(cache=True)
def place_terrain(s, cfg, b):
    """The built-in scenario's terrain tiles (Talon 17.1)."""
    n = 0
    for i in range(cfg.tmpl_tr.shape[0]):
        s.tr[b, i, TR_KIND] = cfg.tmpl_tr[i, TR_KIND]
        s.tr[b, i, TR_CELL] = cfg.tmpl_tr[i, TR_CELL]
        if cfg.tmpl_tr[i, TR_KIND] != TK_NONE:
            n = i + 1
    s.g[b, G_TILES] = n


@kernel(cache=True)
def reset_game(s, cfg, b, seed):
    s.rng[b] = seed_stream(seed)
    s.policy_rng[b] = seed_stream(seed ^ np.uint64(0x5EED))
    s.dice[b, :] = 0
    s.dice_script[b, :] = 0
    s.g[b, :] = 0
    s.sh[b, :, :, :] = 0
    s.sh[b, :, :, SH_CLASS] = -1
    s.ms[b, :, :] = 0                       # --- Talon 13 missiles: no counter in play ---
    if cfg.k[K_SCENARIO] == 1:
        draw_fleet(s, cfg, b, 0)
        draw_fleet(s, cfg, b, 1)
    else:
        for p in range(2):
            for k in range(s.sh.shape[2]):
                c = cfg.tmpl[p, k, TP_CLASS]
                if c >= 0:
                    place_ship(s, cfg, b, p, k, c, cfg.tmpl[p, k, TP_NAME], cfg.tmpl[p, k, TP_CELL],
                               cfg.tmpl[p, k, TP_FACING])
                    if cfg.tmpl[p, k, TP_ARRIVE] > 0:         # 3.2 arrives in a supply phase
                        s.sh[b, p, k, SH_STATUS] = SS_RESERVE
                        s.sh[b, p, k, SH_ARRIVE] = cfg.tmpl[p, k, TP_ARRIVE]
    place_terrain(s, cfg, b)
    for i in range(N_VC * N_VCF + 1):                 # the scenario's victory conditions and 'otherwise'
        s.g[b, G_VC + i] = cfg.k[K_VC + i]
    s.g[b, G_ROUND] = 1
    s.g[b, G_ROUNDS] = cfg.k[K_ROUNDS]
    first = cfg.k[K_FIRST_INIT]
    if first < 0:
        first = 0 if roll_die(s.rng, s.dice_script, s.dice, b, 6) <= 3 else 1
    s.g[b, G_INIT] = first
    start_game(s, cfg, b)
