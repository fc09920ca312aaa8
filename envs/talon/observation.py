"""What a Talon player observes: hex planes, the ship table and the global features
(layout in game.OBS_LAYOUT and RULES.md "Observation")."""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (CL_BATTERY, CL_N_GROUPS, CL_N_HULL, CL_POINTS, GR_RED, GR_YELLOW, G_COLL_MOVER, G_DECIDER,
                     G_GROUP, G_IMPULSE, G_PULL_A, G_PULL_B, G_INIT, G_MOVE_PLAYER, G_ROUND, G_ROUNDS, G_SHIP, G_SP0, G_STAGE, G_TURN,
                     G_TILES, G_WLEFT, K_COLS, K_OBS_PLANES, K_ROWS, K_TERRAIN, SH_AB_LEFT, SH_AP_SPENT, SH_BATTERY, SH_CELL, SH_CLASS, SH_CURVE,
                     SH_C_FTL, SH_C_HELM, SH_C_PLOSS, SH_C_POWER, SH_C_SHIELDS, SH_C_TURN, SH_FACING, SH_FIRED,
                     SH_GROUP_DEAD, SH_HULL_HITS, SH_INIT_MARK, SH_MOVED, SH_POWER, SH_RED, SH_REINF, SH_SHIELD,
                     SH_SLIP, SH_STATUS, SH_TURN_LEFT, SH_YEL, SS_ACTIVE, ST_COLLIDE, ST_FIRE_GROUP, ST_FIRE_TARGET,
                     ST_POWER, ST_PULL, ST_PUSH, TR_CELL, TR_KIND, config_view, other, state_view)
from .ships import must_move, speed_of, turn_radius
from .power import ap_source
from .sequence import turn_player
# --- Talon 13 missiles ---
from .layout import G_MISSILE, K_MISSILES, K_P_MISSILE, MI_INTACT, MI_NONE, MS_CELL, MS_FACING, MS_MOVED, MS_OWNER, \
    MS_STATUS, ST_RETARGET
from .layout import G_LAUNCH_TARGET, ST_LAUNCH     # Talon 13.2 the launch hex
from .missiles import tracked_target
# --- scenario victory conditions, Talon 16 docking ---
from .layout import G_VC, K_VICTORY, N_VC, N_VCF, VC_COUNT, VC_KIND, VC_PLAYER, VC_SHIPS, VK_DESTROY, VK_NONE, VK_POINTS
from .victory import progress
from .ships import host_of
from .layout import K_HEAVY, K_P_WAVE, SH_WAVE     # Talon 15.1.3
# --- the relational block (option relations, talon_v1) ---
from .layout import K_N_ACTIONS, K_RELATIONS
from .relations import write_relations


# ---------------------------------------------------------------------------------
# Observation
# ---------------------------------------------------------------------------------
P_OWN_FACING = 0     # 6 planes: own ships by facing
P_ENEMY_FACING = 6   # 6 planes: enemy ships by facing
P_OWN_SLOT = 12      # own ship slot + 1
P_ENEMY_SLOT = 13    # enemy ship slot + 1
P_ACTIVE = 14        # the active ship (firing / power phase / colliding / pulled), 1 own, 2 enemy
PULL_FIRST = 3       # ... and in ST_PULL/ST_PUSH the hexes the pulled/pushed ship may go to (action PULL 0, PULL 1; Talon 18.2, 15.1.2)
PULL_SECOND = 4
P_ACTIVE_ARC = 15    # arc of the active ship each hex is in, + 1
N_PLANES = 16
P_TERRAIN = 16       # with option terrain: 5 planes, one per tile kind (TK_PLANET .. TK_WORM_HOLE), 1 where it is
N_TERRAIN_PLANES = 5
# --- Talon 13 missiles: with option missiles, 12 planes after the terrain planes (first K_P_MISSILE) ---
PM_OWN_INTACT = 0     # own intact missiles in the hex (count)
PM_OWN_DAMAGED = 1    # own damaged missiles (count, 13.6)
PM_ENEMY_INTACT = 2
PM_ENEMY_DAMAGED = 3
PM_OWN_SLOT = 4       # pool slot + 1 of the own missile in the hex (the lowest): the m of MMOVE/RETARGET actions
PM_ENEMY_SLOT = 5     # pool slot + 1 of the enemy missile in the hex (the lowest): the m of MTARGET actions
PM_OWN_FACING = 6     # facing + 1 of that own missile
PM_ENEMY_FACING = 7   # facing + 1 of that enemy missile
PM_TO_MOVE = 8        # own missiles in the hex still to move this impulse (13.4)
PM_OWN_AIMED = 9      # in a ship's hex: own missiles tracking that ship (13.3)
PM_ENEMY_AIMED = 10   # in a ship's hex: enemy missiles tracking that ship
PM_RETARGETED = 11    # 1 in the hex of the missile being given a new target (ST_RETARGET, 13.7); in ST_LAUNCH
                      # 1 in the hex of the ship the missile being placed is launched at (13.2)
N_MISSILE_PLANES = 12

F_STATUS = 0
F_CLASS = 1
F_ROW = 2
F_COL = 3
F_FACING = 4
F_CURVE = 5
F_POWER = 6
F_SPEED = 7
F_TURN_RADIUS = 8
F_TURN_LEFT = 9
F_SLIP = 10
F_AP_NOW = 11
F_AP_SPENT = 12
F_MUST_MOVE = 13
F_MOVED = 14
F_FIRED = 15
F_SHIELD = 16        # 4
F_REINF = 20         # 4
F_HULL_LEFT = 24
F_HULL_MOD = 25
F_HULL_CRIT = 26
F_GROUP = 27         # 3 x (red charged, red boxes, yellow charged, yellow boxes, destroyed)
F_HAS_BATTERY = 42
F_BATTERY = 43
F_AFTERBURNERS = 44
F_INIT_MARK = 45
F_C_SHIELDS = 46
F_C_HELM = 47
F_C_TURN = 48
F_C_POWER = 49
F_C_FTL = 50
F_C_PLOSS = 51
F_POINTS = 52        # ship points / 4
N_SF = 53
OBS_DOCKED = 5       # F_STATUS of a ship docked aboard a friendly carrier or base in play (Talon 16.2)

O_ROUND = 0
O_IMPULSE = 1
O_HAVE_INIT = 2
O_MY_TURN = 3
O_STAGE = 4
O_SHIP = 5
O_GROUP = 6
O_WLEFT = 7
O_SEAT = 8
O_SP_MINE = 9        # ship points destroyed by me / 8
O_SP_THEIRS = 10
O_ROUNDS = 11
O_CHANGE_MINE = 12
O_CHANGE_THEIRS = 13
O_DEFEND = 14
O_DECIDER = 15
N_GLOBAL = 16


@kernel(cache=True, inline="always")
def clip8(v):
    return min(127, max(-128, v))


@kernel(cache=True, inline="always")
def write_off_map_ship(sh, cls, b, p, k, c, cols, obs, o):
    """The table row of a ship not in play: its points, and a ship docked aboard a friendly carrier or
    base still in play (16.2) shows as docked (status OBS_DOCKED) at its host's hex."""
    obs[o + F_POINTS] = cls[c, CL_POINTS] // 4
    host = host_of(sh, b, p, k)
    if host >= 0 and sh[b, p, host, SH_STATUS] == SS_ACTIVE:
        obs[o + F_STATUS] = OBS_DOCKED
        cell = sh[b, p, host, SH_CELL]
        obs[o + F_ROW] = cell // cols
        obs[o + F_COL] = cell % cols


@kernel(cache=True, inline="always")
def victory_block_size(S):
    """The victory block (option victory): 4 values per condition, then one per ship slot (own first)."""
    return N_VC * 4 + 2 * S


@kernel(cache=True)
def write_victory(s, b, v, S, obs, o):
    """The scenario's victory conditions from player ``v``'s side (RULES.md 'Victory conditions'):
    per condition whose it is (1 mine, 2 the enemy's, 0 unused), its kind, how far it is and what it
    needs (ship points in units of 8); per ship, the bitmask of the conditions naming it."""
    g = borrow(s.g)
    obs[o:o + victory_block_size(S)] = 0
    for i in range(N_VC):
        c = G_VC + i * N_VCF
        kind = g[b, c + VC_KIND]
        if kind == VK_NONE:
            continue
        p = g[b, c + VC_PLAYER]
        q = o + 4 * i
        obs[q] = 1 if p == v else 2
        obs[q + 1] = kind
        scale = 8 if kind == VK_POINTS else 1
        obs[q + 2] = clip8(progress(s, b, i) // scale)
        obs[q + 3] = clip8(g[b, c + VC_COUNT] // scale)
        side = 1 - p if kind == VK_DESTROY else p          # the side whose ships it names
        first = o + N_VC * 4 + (0 if side == v else S)
        mask = g[b, c + VC_SHIPS]
        for k in range(S):
            if (mask >> k) & 1:
                obs[first + k] |= 1 << i


@kernel(cache=True)
def write_wave_plane(s, cfg, b, n, obs):
    """Talon 15.1.3: the wave cannon damage due at the end of the turn, summed over the arcs of the
    ships in each hex (option heavy_weapons), first zeroed."""
    sh = borrow(s.sh)
    o = borrow(cfg.k)[K_P_WAVE] * n
    obs[o:o + n] = 0
    for p in range(2):
        for k in range(sh.shape[2]):
            due = sh[b, p, k, SH_WAVE] + sh[b, p, k, SH_WAVE + 1] + sh[b, p, k, SH_WAVE + 2] + sh[b, p, k, SH_WAVE + 3]
            if due and sh[b, p, k, SH_STATUS] == SS_ACTIVE:
                obs[o + sh[b, p, k, SH_CELL]] = clip8(obs[o + sh[b, p, k, SH_CELL]] + due)


@kernel(cache=True, inline="always")
def write_terrain(s, b, n, obs):
    """The terrain planes (option terrain): 1 in the hex of each tile, on its kind's plane."""
    tr = borrow(s.tr)
    for i in range(borrow(s.g)[b, G_TILES]):
        obs[(P_TERRAIN + tr[b, i, TR_KIND] - 1) * n + tr[b, i, TR_CELL]] = 1


@kernel(cache=True)
def write_obs_ref(s, cfg, b, v, obs):
    """Observation from player ``v``'s side (layout in game.OBS_LAYOUT / RULES.md), written
    in full.  Reference statement of ``write_obs``, kept for the tests."""
    g = s.g
    sh = s.sh
    S = sh.shape[2]
    cols = cfg.k[K_COLS]
    n = cfg.k[K_ROWS] * cols
    obs[:] = 0
    imp = g[b, G_IMPULSE]
    st = g[b, G_STAGE]
    act_p = -1
    act_k = -1
    if (st == ST_FIRE_GROUP or st == ST_FIRE_TARGET or st == ST_POWER or st == ST_PULL or st == ST_PUSH
            or st == ST_LAUNCH):
        act_p = g[b, G_DECIDER]
        act_k = g[b, G_SHIP]
    elif st == ST_COLLIDE:
        act_p = g[b, G_MOVE_PLAYER]
        act_k = g[b, G_COLL_MOVER]
    base_t = cfg.k[K_OBS_PLANES] * n
    if cfg.k[K_TERRAIN]:
        write_terrain(s, b, n, obs)
    if cfg.k[K_HEAVY]:
        write_wave_plane(s, cfg, b, n, obs)
    for side in range(2):
        p = v if side == 0 else other(v)
        for k in range(S):
            o = base_t + (side * S + k) * N_SF
            stt = sh[b, p, k, SH_STATUS]
            obs[o + F_STATUS] = stt
            c = sh[b, p, k, SH_CLASS]
            if c < 0:
                continue
            obs[o + F_CLASS] = c + 1
            if stt != SS_ACTIVE:
                write_off_map_ship(sh, cfg.cls, b, p, k, c, cols, obs, o)
                continue
            cell = sh[b, p, k, SH_CELL]
            f = sh[b, p, k, SH_FACING]
            plane = P_OWN_FACING if side == 0 else P_ENEMY_FACING
            obs[(plane + f) * n + cell] += 1
            slot = P_OWN_SLOT if side == 0 else P_ENEMY_SLOT
            if obs[slot * n + cell] == 0:
                obs[slot * n + cell] = k + 1
            obs[o + F_ROW] = cell // cols
            obs[o + F_COL] = cell % cols
            obs[o + F_FACING] = f
            obs[o + F_CURVE] = sh[b, p, k, SH_CURVE]
            obs[o + F_POWER] = sh[b, p, k, SH_POWER]
            obs[o + F_SPEED] = speed_of(sh, cfg, b, p, k)
            obs[o + F_TURN_RADIUS] = turn_radius(sh, cfg, b, p, k)
            obs[o + F_TURN_LEFT] = sh[b, p, k, SH_TURN_LEFT]
            obs[o + F_SLIP] = sh[b, p, k, SH_SLIP]
            if imp < 6:
                obs[o + F_AP_NOW] = ap_source(s, cfg, b, p, k)
                obs[o + F_MUST_MOVE] = must_move(sh, cfg, b, p, k, imp)
            obs[o + F_AP_SPENT] = sh[b, p, k, SH_AP_SPENT]
            obs[o + F_MOVED] = sh[b, p, k, SH_MOVED]
            obs[o + F_FIRED] = sh[b, p, k, SH_FIRED]
            for a in range(4):
                obs[o + F_SHIELD + a] = sh[b, p, k, SH_SHIELD + a]
                obs[o + F_REINF + a] = sh[b, p, k, SH_REINF + a]
            h = sh[b, p, k, SH_HULL_HITS]
            obs[o + F_HULL_LEFT] = cfg.cls[c, CL_N_HULL] - h
            if h < cfg.cls[c, CL_N_HULL]:
                obs[o + F_HULL_MOD] = cfg.hull[c, h, 0]
                obs[o + F_HULL_CRIT] = cfg.hull[c, h, 1]
            for gi in range(cfg.cls[c, CL_N_GROUPS]):
                og = o + F_GROUP + 5 * gi
                obs[og] = sh[b, p, k, SH_RED + gi]
                obs[og + 1] = cfg.grp[c, gi, GR_RED]
                obs[og + 2] = sh[b, p, k, SH_YEL + gi]
                obs[og + 3] = cfg.grp[c, gi, GR_YELLOW]
                obs[og + 4] = (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1
            obs[o + F_HAS_BATTERY] = cfg.cls[c, CL_BATTERY]
            obs[o + F_BATTERY] = sh[b, p, k, SH_BATTERY]
            obs[o + F_AFTERBURNERS] = sh[b, p, k, SH_AB_LEFT]
            obs[o + F_INIT_MARK] = sh[b, p, k, SH_INIT_MARK]
            obs[o + F_C_SHIELDS] = sh[b, p, k, SH_C_SHIELDS] > 0
            obs[o + F_C_HELM] = sh[b, p, k, SH_C_HELM] > 0
            obs[o + F_C_TURN] = sh[b, p, k, SH_C_TURN]
            obs[o + F_C_POWER] = sh[b, p, k, SH_C_POWER]
            obs[o + F_C_FTL] = sh[b, p, k, SH_C_FTL] > 0
            obs[o + F_C_PLOSS] = sh[b, p, k, SH_C_PLOSS] > 0
            obs[o + F_POINTS] = cfg.cls[c, CL_POINTS] // 4
    if act_k >= 0 and act_k < S and sh[b, act_p, act_k, SH_STATUS] == SS_ACTIVE:
        ac = sh[b, act_p, act_k, SH_CELL]
        af = sh[b, act_p, act_k, SH_FACING]
        obs[P_ACTIVE * n + ac] = 1 if act_p == v else 2
        for cell in range(n):
            if cell != ac:
                obs[P_ACTIVE_ARC * n + cell] = cfg.arc_of[ac, cell, af] + 1
        if st == ST_PULL or st == ST_PUSH:
            if g[b, G_PULL_A] >= 0:        # a push off the map has no hex to show (15.1.2, 7.5.1)
                obs[P_ACTIVE * n + g[b, G_PULL_A]] = PULL_FIRST
            if g[b, G_PULL_B] >= 0:
                obs[P_ACTIVE * n + g[b, G_PULL_B]] = PULL_SECOND
    o = base_t + 2 * S * N_SF
    if cfg.k[K_VICTORY]:
        write_victory(s, b, v, S, obs, o)
        o += victory_block_size(S)
    obs[o + O_ROUND] = clip8(g[b, G_ROUND])
    obs[o + O_IMPULSE] = imp
    obs[o + O_HAVE_INIT] = g[b, G_INIT] == v
    obs[o + O_MY_TURN] = turn_player(s, b) == v
    obs[o + O_STAGE] = st
    obs[o + O_SHIP] = g[b, G_SHIP]
    obs[o + O_GROUP] = g[b, G_GROUP]
    obs[o + O_WLEFT] = g[b, G_WLEFT]
    obs[o + O_SEAT] = v
    obs[o + O_SP_MINE] = clip8(g[b, G_SP0 + v] // 8)
    obs[o + O_SP_THEIRS] = clip8(g[b, G_SP0 + other(v)] // 8)
    obs[o + O_ROUNDS] = clip8(g[b, G_ROUNDS])
    ch_m = 0
    ch_t = 0
    de = 0
    for p in range(2):
        for k in range(S):
            m = sh[b, p, k, SH_INIT_MARK]
            if m == 1:
                if p == v:
                    ch_m += 1
                else:
                    ch_t += 1
            elif m == 2:
                de += 1
    obs[o + O_CHANGE_MINE] = ch_m
    obs[o + O_CHANGE_THEIRS] = ch_t
    obs[o + O_DEFEND] = de
    obs[o + O_DECIDER] = g[b, G_DECIDER] == v
    if cfg.k[K_RELATIONS]:                               # option relations (talon_v1)
        write_relations(s, cfg, b, v, obs, o + N_GLOBAL, cfg.k[K_N_ACTIONS])
    if cfg.k[K_MISSILES]:                                # --- Talon 13 missiles ---
        write_missile_planes(s, cfg, b, v, obs)


@kernel(cache=True)
def write_obs(s, cfg, b, v, obs):
    """Observation from player ``v``'s side, equal to ``write_obs_ref``.

    ``obs`` must hold zeros or an observation ``write_obs`` wrote earlier (any game,
    any player, same config), as every buffer of VecGame does: the hex planes are not
    zeroed in full but only where the previous observation marked ships, which it
    lists in its own ship table (and the two active-ship planes when it had one).
    Entries that cannot come from write_obs (cells off the map) make it zero the
    whole buffer, so a foreign buffer never leads to writes outside it."""
    s_view = state_view(s)
    cfg_view = config_view(cfg)
    g = s_view.g
    sh = s_view.sh
    cls = borrow(cfg.cls)
    grp = borrow(cfg.grp)
    curve = borrow(cfg.curve)
    hull = borrow(cfg.hull)
    k_ = borrow(cfg.k)
    S = sh.shape[2]
    rows = k_[K_ROWS]
    cols = k_[K_COLS]
    n = rows * cols
    base_t = k_[K_OBS_PLANES] * n
    # -- undo the previous observation's marks on the hex planes
    clean = True
    for e in range(2 * S):
        o = base_t + e * N_SF
        if obs[o + F_STATUS] != SS_ACTIVE:
            continue
        r = obs[o + F_ROW]
        c = obs[o + F_COL]
        f = obs[o + F_FACING]
        if r < 0 or r >= rows or c < 0 or c >= cols or f < 0 or f > 5:
            clean = False
            break
        cell = r * cols + c
        if e < S:
            obs[(P_OWN_FACING + f) * n + cell] = 0
            obs[P_OWN_SLOT * n + cell] = 0
        else:
            obs[(P_ENEMY_FACING + f) * n + cell] = 0
            obs[P_ENEMY_SLOT * n + cell] = 0
    if not clean:
        obs[:] = 0
    elif obs[P_ACTIVE_ARC * n] != 0 or obs[P_ACTIVE_ARC * n + 1] != 0:
        # the previous observation had an active ship: its arc plane covers every hex but one
        obs[P_ACTIVE * n:(P_ACTIVE_ARC + 1) * n] = 0
    obs[base_t:] = 0
    if k_[K_TERRAIN]:
        obs[P_TERRAIN * n:base_t] = 0
        write_terrain(s_view, b, n, obs)
    if k_[K_HEAVY]:
        write_wave_plane(s_view, cfg, b, n, obs)
    # -- ships
    imp = g[b, G_IMPULSE]
    st = g[b, G_STAGE]
    act_p = -1
    act_k = -1
    if (st == ST_FIRE_GROUP or st == ST_FIRE_TARGET or st == ST_POWER or st == ST_PULL or st == ST_PUSH
            or st == ST_LAUNCH):
        act_p = g[b, G_DECIDER]
        act_k = g[b, G_SHIP]
    elif st == ST_COLLIDE:
        act_p = g[b, G_MOVE_PLAYER]
        act_k = g[b, G_COLL_MOVER]
    ch_m = 0
    ch_t = 0
    de = 0
    for side in range(2):
        p = v if side == 0 else 1 - v
        plane = P_OWN_FACING if side == 0 else P_ENEMY_FACING
        slot = P_OWN_SLOT if side == 0 else P_ENEMY_SLOT
        for k in range(S):
            m = sh[b, p, k, SH_INIT_MARK]
            if m == 1:
                if side == 0:
                    ch_m += 1
                else:
                    ch_t += 1
            elif m == 2:
                de += 1
            o = base_t + (side * S + k) * N_SF
            stt = sh[b, p, k, SH_STATUS]
            obs[o + F_STATUS] = stt
            c = sh[b, p, k, SH_CLASS]
            if c < 0:
                continue
            obs[o + F_CLASS] = c + 1
            if stt != SS_ACTIVE:
                write_off_map_ship(sh, cls, b, p, k, c, cols, obs, o)
                continue
            cell = sh[b, p, k, SH_CELL]
            f = sh[b, p, k, SH_FACING]
            obs[(plane + f) * n + cell] += 1
            if obs[slot * n + cell] == 0:
                obs[slot * n + cell] = k + 1
            obs[o + F_ROW] = cell // cols
            obs[o + F_COL] = cell % cols
            obs[o + F_FACING] = f
            cv = sh[b, p, k, SH_CURVE]
            pw = sh[b, p, k, SH_POWER]
            sp = curve[c, cv, 1]
            obs[o + F_CURVE] = cv
            obs[o + F_POWER] = pw
            obs[o + F_SPEED] = sp
            obs[o + F_TURN_RADIUS] = curve[c, cv, 2] + sh[b, p, k, SH_C_TURN]
            obs[o + F_TURN_LEFT] = sh[b, p, k, SH_TURN_LEFT]
            obs[o + F_SLIP] = sh[b, p, k, SH_SLIP]
            if imp < 6:
                obs[o + F_AP_NOW] = ap_source(s_view, cfg_view, b, p, k)
                obs[o + F_MUST_MOVE] = must_move(sh, cfg_view, b, p, k, imp)
            obs[o + F_AP_SPENT] = sh[b, p, k, SH_AP_SPENT]
            obs[o + F_MOVED] = sh[b, p, k, SH_MOVED]
            obs[o + F_FIRED] = sh[b, p, k, SH_FIRED]
            for a in range(4):
                obs[o + F_SHIELD + a] = sh[b, p, k, SH_SHIELD + a]
                obs[o + F_REINF + a] = sh[b, p, k, SH_REINF + a]
            h = sh[b, p, k, SH_HULL_HITS]
            nh = cls[c, CL_N_HULL]
            obs[o + F_HULL_LEFT] = nh - h
            if h < nh:
                obs[o + F_HULL_MOD] = hull[c, h, 0]
                obs[o + F_HULL_CRIT] = hull[c, h, 1]
            dead = sh[b, p, k, SH_GROUP_DEAD]
            for gi in range(cls[c, CL_N_GROUPS]):
                og = o + F_GROUP + 5 * gi
                obs[og] = sh[b, p, k, SH_RED + gi]
                obs[og + 1] = grp[c, gi, GR_RED]
                obs[og + 2] = sh[b, p, k, SH_YEL + gi]
                obs[og + 3] = grp[c, gi, GR_YELLOW]
                obs[og + 4] = (dead >> gi) & 1
            obs[o + F_HAS_BATTERY] = cls[c, CL_BATTERY]
            obs[o + F_BATTERY] = sh[b, p, k, SH_BATTERY]
            obs[o + F_AFTERBURNERS] = sh[b, p, k, SH_AB_LEFT]
            obs[o + F_INIT_MARK] = m
            obs[o + F_C_SHIELDS] = sh[b, p, k, SH_C_SHIELDS] > 0
            obs[o + F_C_HELM] = sh[b, p, k, SH_C_HELM] > 0
            obs[o + F_C_TURN] = sh[b, p, k, SH_C_TURN]
            obs[o + F_C_POWER] = sh[b, p, k, SH_C_POWER]
            obs[o + F_C_FTL] = sh[b, p, k, SH_C_FTL] > 0
            obs[o + F_C_PLOSS] = sh[b, p, k, SH_C_PLOSS] > 0
            obs[o + F_POINTS] = cls[c, CL_POINTS] // 4
    if act_k >= 0 and act_k < S and sh[b, act_p, act_k, SH_STATUS] == SS_ACTIVE:
        ac = sh[b, act_p, act_k, SH_CELL]
        af = sh[b, act_p, act_k, SH_FACING]
        arc_of = borrow(cfg.arc_of)
        obs[P_ACTIVE * n + ac] = 1 if act_p == v else 2
        o = P_ACTIVE_ARC * n
        for cell in range(n):
            obs[o + cell] = arc_of[ac, cell, af] + 1
        obs[o + ac] = 0
        if st == ST_PULL or st == ST_PUSH:
            if g[b, G_PULL_A] >= 0:        # a push off the map has no hex to show (15.1.2, 7.5.1)
                obs[P_ACTIVE * n + g[b, G_PULL_A]] = PULL_FIRST
            if g[b, G_PULL_B] >= 0:
                obs[P_ACTIVE * n + g[b, G_PULL_B]] = PULL_SECOND
    o = base_t + 2 * S * N_SF
    if k_[K_VICTORY]:
        write_victory(s_view, b, v, S, obs, o)
        o += victory_block_size(S)
    obs[o + O_ROUND] = clip8(g[b, G_ROUND])
    obs[o + O_IMPULSE] = imp
    obs[o + O_HAVE_INIT] = g[b, G_INIT] == v
    obs[o + O_MY_TURN] = (g[b, G_INIT] if g[b, G_TURN] == 0 else 1 - g[b, G_INIT]) == v
    obs[o + O_STAGE] = st
    obs[o + O_SHIP] = g[b, G_SHIP]
    obs[o + O_GROUP] = g[b, G_GROUP]
    obs[o + O_WLEFT] = g[b, G_WLEFT]
    obs[o + O_SEAT] = v
    obs[o + O_SP_MINE] = clip8(g[b, G_SP0 + v] // 8)
    obs[o + O_SP_THEIRS] = clip8(g[b, G_SP0 + 1 - v] // 8)
    obs[o + O_ROUNDS] = clip8(g[b, G_ROUNDS])
    obs[o + O_CHANGE_MINE] = ch_m
    obs[o + O_CHANGE_THEIRS] = ch_t
    obs[o + O_DEFEND] = de
    obs[o + O_DECIDER] = g[b, G_DECIDER] == v
    if k_[K_RELATIONS]:                                  # option relations (talon_v1)
        write_relations(s, cfg, b, v, obs, o + N_GLOBAL, k_[K_N_ACTIONS])
    if k_[K_MISSILES]:                                   # --- Talon 13 missiles ---
        write_missile_planes(s, cfg, b, v, obs)


# --- Talon 13 missiles ---
@kernel(cache=True)
def write_missile_planes(s, cfg, b, v, obs):
    """The missile planes (option missiles) from player ``v``'s side, first zeroed."""
    ms = borrow(s.ms)
    sh = borrow(s.sh)
    g = borrow(s.g)
    n = borrow(cfg.k)[K_ROWS] * borrow(cfg.k)[K_COLS]
    o = borrow(cfg.k)[K_P_MISSILE] * n
    obs[o:o + N_MISSILE_PLANES * n] = 0
    for m in range(ms.shape[1]):
        if ms[b, m, MS_STATUS] == MI_NONE:
            continue
        cell = ms[b, m, MS_CELL]
        own = ms[b, m, MS_OWNER] == v
        if own:
            obs[o + (PM_OWN_INTACT if ms[b, m, MS_STATUS] == MI_INTACT else PM_OWN_DAMAGED) * n + cell] += 1
            if obs[o + PM_OWN_SLOT * n + cell] == 0:
                obs[o + PM_OWN_SLOT * n + cell] = m + 1
                obs[o + PM_OWN_FACING * n + cell] = ms[b, m, MS_FACING] + 1
            if not ms[b, m, MS_MOVED]:
                obs[o + PM_TO_MOVE * n + cell] += 1
        else:
            obs[o + (PM_ENEMY_INTACT if ms[b, m, MS_STATUS] == MI_INTACT else PM_ENEMY_DAMAGED) * n + cell] += 1
            if obs[o + PM_ENEMY_SLOT * n + cell] == 0:
                obs[o + PM_ENEMY_SLOT * n + cell] = m + 1
                obs[o + PM_ENEMY_FACING * n + cell] = ms[b, m, MS_FACING] + 1
        t = tracked_target(s, b, m)
        if t >= 0:
            tc = sh[b, 1 - ms[b, m, MS_OWNER], t, SH_CELL]
            obs[o + (PM_OWN_AIMED if own else PM_ENEMY_AIMED) * n + tc] += 1
    if g[b, G_STAGE] == ST_RETARGET:
        obs[o + PM_RETARGETED * n + ms[b, g[b, G_MISSILE], MS_CELL]] = 1
    elif g[b, G_STAGE] == ST_LAUNCH:
        obs[o + PM_RETARGETED * n + sh[b, 1 - g[b, G_DECIDER], g[b, G_LAUNCH_TARGET], SH_CELL]] = 1
