"""The action table (option ``relations``; RULES.md §12.4 "Action table"): one row of values per
action, written row-major into the channels after channel 46 (zero-padded to whole channels): what each
action would lead to, measured with the rules' own tables (cfg.dist, cfg.nbr, to_hit, fire_range, visible,
launch_position), so that a policy can score each action from its row.  planetoids_v1 (relations=1) has the
first N_AF_V1 values a row, planetoids_v2 (relations=2) all N_AF: the same row with what an active piece's
step gains.  Also the active piece's goals (``open_planetoid``, ``hunt_target``), which the scripted bot
steers for.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (ACT, CI_PLANETOID, CRUISER, FIGHTER, FIXED, FX_HITS, FX_OWNER, G_ACTIVE, G_DECIDER, G_PHASE,
                     G_TURN, K_A_COLONISE, K_A_END_ACT, K_A_FACE, K_A_FIXED, K_A_LAUNCH, K_A_MOVE, K_A_PIECE,
                     K_A_REPAIR, K_A_TARGET, K_RELATIONS, N_OBS_CH, ON_MAP, PC_DAMAGE, PC_FACING, PC_POS, PC_STATUS,
                     PL_CELL, TRANSPORT)
from .board import colour_now, visible
from .combat import fire_range, to_hit
from .phases import launch_position

#
# One row of values per action, written row-major into the channels after
# channel 46 (zero-padded to whole channels): what each action would lead to,
# measured with the rules' own tables (cfg.dist, cfg.nbr, to_hit, fire_range,
# visible, launch_position), so that a policy can score each action from its row.
# planetoids_v1 (relations=1) has the first N_AF_V1 values a row, planetoids_v2
# (relations=2) all N_AF: the same row with what an active piece's step gains.
AF_KNOWN = 0          # 1: the row describes this action
AF_HIT = 1            # a shot: faces of the d6 that hit (0-6, "Combattimento", the attacker's damage counted)
AF_KIND = 2           # the piece the action names, kind + 1 (a target, a piece to select or launch); 5 a fixed base
AF_PLANETOID = 3      # hexes from where the action leads to the nearest planetoid with no fixed base
AF_ENEMY_TRANSPORT = 4  # ... to the nearest enemy transport on the map (127 if none)
AF_ENEMY = 5          # ... to the nearest enemy piece on the map or enemy fixed base (127 if none)
AF_HERE = 6           # the hex it leads to: 1 a free planetoid there now, 2 free next turn, 3 free later,
                      # 4 colonised by me, 5 by the enemy
AF_DAMAGE = 7         # the named piece's damage (a target, a piece to select) or a fixed base's hits
N_AF_V1 = 8
# planetoids_v2: rows of the active piece (phase act) say how far it is and what a step gains
AF_FAMILY = 8         # 1 move, 2 pivot, 3 end of the activation, 4 colonise, 5 repair, 6 fire at a piece,
                      # 7 fire at a fixed base, 8 select a piece, 9 launch (0 other actions)
AF_ACTIVE_KIND = 9    # the active piece's kind + 1 (rows of phase act)
AF_OPEN = 10          # hexes from where it leads to the active piece's open planetoid (open_planetoid; 127 none)
AF_OPEN_GAIN = 11     # hexes nearer its open planetoid than the active piece stands now (negative: farther)
AF_HUNT_GAIN = 12     # hexes nearer its hunted target (hunt_target) than it stands now
N_AF = 13
FAR = 127
# families of AF_FAMILY
F_MOVE, F_PIVOT, F_END, F_COLONISE, F_REPAIR, F_SHOOT, F_SHOOT_FIXED, F_SELECT, F_LAUNCH = range(1, 10)


@kernel(cache=True)
def action_row_width(relations):
    """Values a row of the action table holds for option relations 0, 1 (planetoids_v1), 2 (v2)."""
    return 0 if relations == 0 else (N_AF_V1 if relations == 1 else N_AF)


@kernel(cache=True)
def n_action_channels(n_cells, n_actions, relations):
    return (n_actions * action_row_width(relations) + n_cells - 1) // n_cells


@kernel(cache=True)
def _put(obs, w, a, f, v):
    """Value ``f`` of action ``a``'s row, in a table of ``w`` values a row (planetoids_v1 keeps 8)."""
    if f >= w:
        return
    i = a * w + f
    n = obs.shape[1]
    obs[N_OBS_CH + i // n, i % n] = max(-127, min(127, v))


# What the active piece steers for: the scripted bot's goals (bot.py), which the v2 action table
# measures each step against, stated here once for both.
@kernel(cache=True)
def open_planetoid(s, cfg, b, p, i):
    """The hex of the nearest planetoid (from piece ``i``) without a fixed base that no other own
    transport stands on (-1: none)."""
    pos = s.pc[b, p, i, PC_POS]
    best, best_d = -1, 999
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] >= 0:
            continue
        c = cfg.planetoids[f, PL_CELL]
        taken = False
        for j in range(cfg.slot_kind.shape[0]):
            if j != i and cfg.slot_kind[j] == TRANSPORT and s.pc[b, p, j, PC_STATUS] == ON_MAP \
                    and s.pc[b, p, j, PC_POS] == c:
                taken = True
        if taken:
            continue
        d = cfg.dist[pos, c]
        if d < best_d:
            best, best_d = c, d
    return best


@kernel(cache=True)
def hunt_target(s, cfg, b, p, i):
    """The hex a hunter steers for: the nearest enemy transport, else the nearest enemy piece or
    fixed base (transports count 20 hexes nearer, fixed bases 10; -1: none)."""
    pos = s.pc[b, p, i, PC_POS]
    q = 1 - p
    best, best_d = -1, 999
    for j in range(cfg.slot_kind.shape[0]):
        if s.pc[b, q, j, PC_STATUS] != ON_MAP:
            continue
        d = cfg.dist[pos, s.pc[b, q, j, PC_POS]] - (20 if cfg.slot_kind[j] == TRANSPORT else 0)
        if d < best_d:
            best, best_d = s.pc[b, q, j, PC_POS], d
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] == q:
            d = cfg.dist[pos, cfg.planetoids[f, PL_CELL]] - 10
            if d < best_d:
                best, best_d = cfg.planetoids[f, PL_CELL], d
    return best


@kernel(cache=True)
def _nearest(s, cfg, b, me, cell):
    """(free planetoid, enemy transport, enemy piece or fixed base): hexes from ``cell`` to the nearest."""
    pl = FAR
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] < 0:
            pl = min(pl, cfg.dist[cell, cfg.planetoids[f, PL_CELL]])
    tr = FAR
    en = FAR
    q = 1 - me
    for j in range(cfg.slot_kind.shape[0]):
        if s.pc[b, q, j, PC_STATUS] == ON_MAP:
            d = cfg.dist[cell, s.pc[b, q, j, PC_POS]]
            en = min(en, d)
            if cfg.slot_kind[j] == TRANSPORT:
                tr = min(tr, d)
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] == q:
            en = min(en, cfg.dist[cell, cfg.planetoids[f, PL_CELL]])
    return pl, tr, en


@kernel(cache=True)
def _planetoid_here(s, cfg, b, me, cell):
    f = cfg.cell[cell, CI_PLANETOID]
    if f < 0:
        return 0
    owner = s.fx[b, f, FX_OWNER]
    if owner >= 0:
        return 4 if owner == me else 5
    turn = s.g[b, G_TURN]
    cs = cfg.colour_seq
    if visible(cfg, cs[min(turn, cs.shape[0] - 1)], cell):
        return 1
    if visible(cfg, cs[min(turn + 1, cs.shape[0] - 1)], cell):
        return 2
    return 3


@kernel(cache=True)
def _where_row(s, cfg, b, me, obs, w, a, cell, family):
    """The distances and the hex of a row whose action leads to ``cell``."""
    if cell < 0:
        return
    _put(obs, w, a, AF_KNOWN, 1)
    pl, tr, en = _nearest(s, cfg, b, me, cell)
    _put(obs, w, a, AF_PLANETOID, pl)
    _put(obs, w, a, AF_ENEMY_TRANSPORT, tr)
    _put(obs, w, a, AF_ENEMY, en)
    _put(obs, w, a, AF_HERE, _planetoid_here(s, cfg, b, me, cell))
    _put(obs, w, a, AF_FAMILY, family)


@kernel(cache=True)
def gain_toward(cfg, here, there, goal):
    """Hexes nearer ``goal`` at ``there`` than at ``here`` (0 without a goal or a hex): what a step
    brings, for the action table (planetoids_v2) and the scripted bot's moves alike."""
    if goal < 0 or there < 0:
        return 0
    return cfg.dist[here, goal] - cfg.dist[there, goal]


@kernel(cache=True)
def _active_row(s, cfg, b, me, obs, w, a, cell, family, i, open_goal, hunt_goal):
    """A row of the active piece ``i`` whose action leads its bow to ``cell`` (planetoids_v2 adds
    how far its open planetoid is from there and what the step gains toward its goals)."""
    if cell < 0:
        return
    _where_row(s, cfg, b, me, obs, w, a, cell, family)
    pos = s.pc[b, me, i, PC_POS]
    _put(obs, w, a, AF_ACTIVE_KIND, cfg.slot_kind[i] + 1)
    _put(obs, w, a, AF_OPEN, cfg.dist[cell, open_goal] if open_goal >= 0 else FAR)
    _put(obs, w, a, AF_OPEN_GAIN, gain_toward(cfg, pos, cell, open_goal))
    _put(obs, w, a, AF_HUNT_GAIN, gain_toward(cfg, pos, cell, hunt_goal))


@kernel(cache=True)
def _hit_faces(thr):
    return max(0, 7 - thr) if thr > 0 else 0


@kernel(cache=True)
def _shot_row(obs, w, a, family, thr, own_damage, active_kind, target_kind, target_damage):
    _put(obs, w, a, AF_KNOWN, 1)
    _put(obs, w, a, AF_HIT, _hit_faces(thr + own_damage if thr > 0 else 0))
    _put(obs, w, a, AF_KIND, target_kind + 1)
    _put(obs, w, a, AF_DAMAGE, target_damage)
    _put(obs, w, a, AF_FAMILY, family)
    _put(obs, w, a, AF_ACTIVE_KIND, active_kind + 1)


@kernel(inline="always")  # into _obs (its one caller): no compiled copy of its own
def write_action_table(s, cfg, b, me, obs):
    """The action table from player ``me``'s side into the channels after N_OBS_CH."""
    for ch in range(N_OBS_CH, obs.shape[0]):
        obs[ch, :] = 0
    w = action_row_width(cfg.k[K_RELATIONS])
    k = cfg.k
    P = cfg.slot_kind.shape[0]
    q = 1 - me
    # selecting one's pieces and launching (phase select)
    for i in range(P):
        if s.pc[b, me, i, PC_STATUS] == ON_MAP:
            a = k[K_A_PIECE] + i
            _where_row(s, cfg, b, me, obs, w, a, s.pc[b, me, i, PC_POS], F_SELECT)
            _put(obs, w, a, AF_KIND, cfg.slot_kind[i] + 1)
            _put(obs, w, a, AF_DAMAGE, s.pc[b, me, i, PC_DAMAGE])
    for kind in range(CRUISER, FIGHTER + 1):
        for ramp in range(3):
            a = k[K_A_LAUNCH] + 3 * (kind - CRUISER) + ramp
            _where_row(s, cfg, b, me, obs, w, a, launch_position(cfg, me, kind, ramp)[0], F_LAUNCH)
            _put(obs, w, a, AF_KIND, kind + 1)
    # what the active piece may do (phase act)
    if s.g[b, G_PHASE] != ACT or s.g[b, G_DECIDER] != me:
        return
    i = s.g[b, G_ACTIVE]
    kind = cfg.slot_kind[i]
    pos = s.pc[b, me, i, PC_POS]
    colour = colour_now(s, cfg, b)
    open_goal = open_planetoid(s, cfg, b, me, i)
    hunt_goal = hunt_target(s, cfg, b, me, i)
    for d in range(6):
        _active_row(s, cfg, b, me, obs, w, k[K_A_MOVE] + d, cfg.nbr[pos, d], F_MOVE, i, open_goal, hunt_goal)
        # the bow's next hex after a pivot
        _active_row(s, cfg, b, me, obs, w, k[K_A_FACE] + d, cfg.nbr[pos, d], F_PIVOT, i, open_goal, hunt_goal)
    _active_row(s, cfg, b, me, obs, w, k[K_A_END_ACT], pos, F_END, i, open_goal, hunt_goal)
    _active_row(s, cfg, b, me, obs, w, k[K_A_COLONISE], pos, F_COLONISE, i, open_goal, hunt_goal)
    _active_row(s, cfg, b, me, obs, w, k[K_A_REPAIR], pos, F_REPAIR, i, open_goal, hunt_goal)
    own_damage = s.pc[b, me, i, PC_DAMAGE]
    for j in range(P):
        if s.pc[b, q, j, PC_STATUS] != ON_MAP:
            continue
        tk = cfg.slot_kind[j]
        thr = to_hit(cfg, kind, tk, fire_range(s, cfg, b, me, i, q, tk, s.pc[b, q, j, PC_POS],
                                               s.pc[b, q, j, PC_FACING], colour))
        _shot_row(obs, w, k[K_A_TARGET] + j, F_SHOOT, thr, own_damage, kind, tk, s.pc[b, q, j, PC_DAMAGE])
    for f in range(cfg.planetoids.shape[0]):
        if s.fx[b, f, FX_OWNER] != q:
            continue
        thr = to_hit(cfg, kind, FIXED, fire_range(s, cfg, b, me, i, 0, FIGHTER, cfg.planetoids[f, PL_CELL], 0, colour))
        _shot_row(obs, w, k[K_A_FIXED] + f, F_SHOOT_FIXED, thr, own_damage, kind, FIXED, s.fx[b, f, FX_HITS])
