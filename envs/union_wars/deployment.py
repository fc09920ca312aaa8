"""IN BATTAGLIA: after the mission and the exploration, the scouts and the deployment of each side
in the order the rules give, then the start of the battle.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .battle import base_piece_ok, generate_terrain
from .general import banked_roll_off, d6, roll_off
from .layout import *  # noqa: F401,F403  (the named columns and codes)
from .sight import forget_sight, reveal_hidden
from .turn import enter_tactical, start_turn

OPT_NIGHT_OFF, OPT_NIGHT_ON, OPT_NIGHT_CHOOSE = 0, 1, 2


@kernel(cache=True)
def scouts(cfg, side):
    n = 0
    for i in range(N_SLOTS):
        p = cfg.army[side, i]
        if p >= 0 and (cfg.pf[p, PF_RULES] & SR_SCOUT):
            n += 1
    return n


@kernel(cache=True)
def after_mission(s, cfg, b):
    generate_terrain(s, cfg, b)
    forget_sight(s, b)
    # ESPLORAZIONE: 1D6 + 1 per ESPLORATORE; the margin is a bank of bonus/malus points
    w, margin = roll_off(s, b, scouts(cfg, 0), scouts(cfg, 1))
    s.g[b, G_EXPLORE_WINNER] = w
    s.g[b, G_BANK0 + w] = margin
    s.g[b, G_STAGE] = ST_SIDE
    s.g[b, G_DECIDER] = w


@kernel(cache=True)
def after_side(s, cfg, b):
    w = s.g[b, G_EXPLORE_WINNER]
    m = s.g[b, G_MISSION]
    if m == M_OBJECTIVES:
        s.g[b, G_NOBJ] = 3 + (d6(s, b) + 1) // 2    # "3 + 1D3 obiettivi"
        s.g[b, G_OBJ_PLACED] = 0
        s.g[b, G_STAGE] = ST_OBJECTIVE
        s.g[b, G_DECIDER] = w
        return
    if m == M_BASES:
        if not (any_base_piece(s, b, 0) and any_base_piece(s, b, 1)):
            s.g[b, G_MISSION] = M_EXTERMINATION   # no scenic element to be a base: RULES.md
        else:
            s.g[b, G_STAGE] = ST_BASE
            s.g[b, G_DECIDER] = w
            return
    deployment_order(s, cfg, b)


@kernel(cache=True)
def any_base_piece(s, b, side):
    for t in range(T_MAX):
        if base_piece_ok(s, b, side, t) and s.g[b, G_BASE0 + 1 - side] != t:
            return True
    return False


@kernel(cache=True)
def deployment_order(s, cfg, b):
    """SCHIERAMENTO: roll-off; the winner decides to deploy first or second."""
    w = banked_roll_off(s, cfg, b, TK_ROLLOFF)
    s.g[b, G_STAGE] = ST_DEPLOY_ORDER
    s.g[b, G_DECIDER] = w


@kernel(cache=True)
def next_to_deploy(s, b, side):
    reserve = s.g[b, G_RESERVE_PLACING] != 0
    for i in range(N_SLOTS):
        if s.md[b, side, i, MD_STATUS] != RESERVE:
            continue
        f = s.md[b, side, i, MD_FLAGS]
        if reserve and (f & F_ENTERING):
            return i
        if not reserve and not (f & F_KEPT):
            return i
    return -1


@kernel(cache=True)
def deploy_continue(s, cfg, b):
    """Hand the deployment to whoever still has models to place, or start the battle."""
    reveal_hidden(s, cfg, b)    # a reserve placed near a hidden enemy finds it (AREA DI CONTROLLO)
    if s.g[b, G_RESERVE_PLACING]:
        if next_to_deploy(s, b, s.g[b, G_ACTIVE]) >= 0:
            return
        s.g[b, G_RESERVE_PLACING] = 0
        enter_tactical(s, cfg, b)
        return
    d = s.g[b, G_DEPLOYER]
    if next_to_deploy(s, b, d) >= 0:
        s.g[b, G_DECIDER] = d
        return
    if next_to_deploy(s, b, 1 - d) >= 0:
        s.g[b, G_DEPLOYER] = 1 - d
        s.g[b, G_DECIDER] = 1 - d
        return
    # INIZIATIVA: roll-off, the winner decides who starts
    w = banked_roll_off(s, cfg, b, TK_ROLLOFF)
    s.g[b, G_STAGE] = ST_INITIATIVE
    s.g[b, G_DECIDER] = w


@kernel(cache=True)
def start_battle(s, cfg, b):
    s.g[b, G_ACTIVE] = s.g[b, G_FIRST]
    s.g[b, G_TURN] = 0
    start_turn(s, cfg, b)
