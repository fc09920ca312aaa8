"""Compiled opponents for Talon and the loop that lets them play.

``policy_action`` (built by core/loops.py from the bot below) picks an action for game ``b`` from its legal mask:

* ``RANDOM``: uniform over legal actions, drawn from the game's own policy
  stream (``s.policy_rng``), so opponents never disturb the game's dice.
* ``SCRIPTED``: a greedy captain that knows what matters in Talon: spend each
  AP on the weapon bar closest to full, else on the shield facing the nearest
  enemy, else on powering through a turn; move each ship to the hex and facing
  (one move ahead) that puts enemies in its weapons' arcs at their best range
  while keeping strong shields towards the enemy; fire every charged group at
  the enemy it damages most, weakened shields first.  A ship a scenario's victory condition
  names is fired at first, and one the scenario wants away jumps to FTL when it can.

``play_turns`` is what the SB3 wrapper calls: it applies the learner's action
in every game, then plays the opponent until it is the learner's decision
again, all inside one compiled range kernel per thread (core/loops.py).
"""
from __future__ import annotations

import sys

from ..core.kernel import kernel
from ..core import loops
from ..core.loops import specialise_loops
from ..core.sampling import first_legal
from . import rules as _rules
from .victory import named_by                 # scenario victory conditions
from .movement import move_heading
from .ships import hull_worn, neighbour
from .relations import expected_damage
from .layout import VK_DESTROY, VK_ESCAPE
from .rules import (ARC_FRONT, CL_N_GROUPS, CL_N_HULL, G_DECIDER, G_DONE, G_GROUP, G_IMPULSE, G_SHIP, G_STAGE,
                    GR_ARCS, GR_COUNT, GR_RED, GR_WEAPON, GR_YELLOW, K_A_AP, K_A_COLLIDE, K_A_DONE, K_A_EXPLODE,
                    K_A_FIRE_SHIP, K_A_GROUP, K_A_INIT, K_A_MOVE, K_A_SPEED, K_A_TARGET, N_MOVES, N_USES, SH_AB_LEFT, SH_C_SHIELDS, SH_CELL,
                    SH_CLASS, SH_FACING, SH_GROUP_DEAD, SH_HULL_HITS, SH_MOVED, SH_RED, SH_REINF, SH_SHIELD, SH_STATUS,
                    SH_YEL, SS_ACTIVE, ST_AP, ST_COLLIDE, ST_EXPLODE, ST_FIRE_GROUP, ST_FIRE_SHIP, ST_FIRE_TARGET,
                    ST_INIT, ST_MOVE, ST_POWER, U_BATTERY, U_CHARGE, U_REINF, U_TURN, ap_source, group_full,
                    must_move, step_game, G_TILES, K_A_PULL, K_A_RETREAT, G_PULL_A, G_PULL_B,
                    ST_PULL, ST_PUSH, G_PUSH_SHIP, W_FUSION, ST_RETREAT, TK_PLANET, TK_BLACK_HOLE, TK_WORM_HOLE, TK_ASTEROID, TK_NEBULA, TR_KIND,
                    TR_CELL, aim_penalty, tile_at)
from .rules import K_A_FTR_AP, K_FIGHTERS, N_FTR_USES   # Talon 12 fighters
from .rules import CL_FIGHTER, K_A_DOCK, K_DOCKING       # Talon 16 docking

# --- Talon 13 missiles ---
from .rules import (G_MISSILE, K_A_MMOVE, K_A_MTARGET, K_A_RETARGET, K_MISSILES, MI_DAMAGED, MI_NONE, MS_CELL,
                    MS_OWNER, MS_STATUS, ST_RETARGET, tracked_target)
from .rules import G_LAUNCH_TARGET, K_A_LAUNCH, ST_LAUNCH, launch_directions      # Talon 13.2 the launch hex

RANDOM, SCRIPTED = loops.RANDOM, loops.SCRIPTED
POLICIES = {"random": RANDOM, "scripted": SCRIPTED}

OFF_MAP = -1000.0  # score of a move whose destination is off the map (the moving map is not modelled)
DEADLY = -1000.0   # score of a hex that destroys the ship: a planet or black hole (Talon 17.2.1, 18.1)


# ---------------------------------------------------------------------------------
# Evaluation helpers
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def _group_damage(cfg, c, gi, fcell, ffacing, tcell):
    """Expected damage of the whole group ``gi`` of class ``c`` at ``fcell``/``ffacing`` on a ship at ``tcell``."""
    if fcell < 0 or tcell < 0 or fcell == tcell:
        return 0.0
    arc = cfg.arc_of[fcell, tcell, ffacing]
    if arc < 0 or not (cfg.grp[c, gi, GR_ARCS] >> arc) & 1:
        return 0.0
    return cfg.grp[c, gi, GR_COUNT] * expected_damage(cfg, cfg.grp[c, gi, GR_WEAPON], cfg.dist[fcell, tcell], 0)


@kernel(cache=True)
def _group_alive(sh, b, p, k, gi):
    return not (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1


@kernel(cache=True)
def _arc_protection(sh, b, p, k, arc):
    """Damage points ship ``k`` absorbs on shield arc ``arc`` before its hull is hit."""
    if arc < 0 or sh[b, p, k, SH_C_SHIELDS] > 0:
        return 0
    return sh[b, p, k, SH_SHIELD + arc] + (1 if sh[b, p, k, SH_REINF + arc] > 0 else 0)


@kernel(cache=True)
def _nearest_enemy(s, cfg, b, p, cell):
    """Slot of the enemy ship nearest to ``cell`` (-1 if none)."""
    sh = s.sh
    e = 1 - p
    best, best_d = -1, 1 << 30
    for t in range(sh.shape[2]):
        if sh[b, e, t, SH_STATUS] != SS_ACTIVE:
            continue
        d = cfg.dist[cell, sh[b, e, t, SH_CELL]]
        if d < best_d:
            best, best_d = t, d
    return best


@kernel(cache=True)
def _ideal_range(cfg, c):
    """Range (1-4) at which the class's weapons deal the most expected damage."""
    best_r, best = 2, -1.0
    for r in range(1, 5):
        tot = 0.0
        for gi in range(cfg.cls[c, CL_N_GROUPS]):
            w = cfg.grp[c, gi, GR_WEAPON]
            tot += cfg.grp[c, gi, GR_COUNT] * expected_damage(cfg, w, r, 0)
        if tot > best + 1e-9:
            best_r, best = r, tot
    return best_r


@kernel(cache=True)
def _destination(cfg, cell, f, m):
    """Hex and facing after move ``m`` (Talon 7.2.1 turn then advance, 7.3.1 side slip); hex -1 off the map."""
    f2, d, _ = move_heading(f, m)
    return neighbour(cfg, cell, d), f2


@kernel(cache=True)
def _terrain_score(s, cfg, b, cell):
    """What the terrain of ``cell`` costs a ship that enters it (Talon 17-19): a planet or a
    black hole destroys it, so does standing next to a black hole when the round ends (18.2
    pulls it in); a worm hole ends its part in the battle (19); asteroids cost a shield box
    (17.3); a nebula lowers its shields (17.4.1)."""
    if s.g[b, G_TILES] == 0:
        return 0.0
    score = 0.0
    kind = tile_at(s, b, cell)
    if kind == TK_PLANET or kind == TK_BLACK_HOLE:
        return DEADLY
    if kind == TK_WORM_HOLE:
        score -= 30.0
    elif kind == TK_ASTEROID:
        score -= 1.0
    elif kind == TK_NEBULA:
        score -= 1.5
    for i in range(s.g[b, G_TILES]):
        if s.tr[b, i, TR_KIND] == TK_BLACK_HOLE:
            d = cfg.dist[cell, s.tr[b, i, TR_CELL]]
            if d == 1:
                score -= 200.0
            elif d == 2:
                score -= 4.0
    return score


@kernel(cache=True)
def _position_score(s, cfg, b, p, k, cell, f):
    """How good it is for ship ``k`` to stand at ``cell`` facing ``f`` (others where they are)."""
    if cell < 0:
        return OFF_MAP
    terrain = _terrain_score(s, cfg, b, cell)
    if terrain <= DEADLY:
        return DEADLY
    sh = s.sh
    e = 1 - p
    S = sh.shape[2]
    c = sh[b, p, k, SH_CLASS]
    score = 0.0
    # offence: each group's best expected damage from here (charged groups count fully)
    for gi in range(cfg.cls[c, CL_N_GROUPS]):
        if not _group_alive(sh, b, p, k, gi):
            continue
        best = 0.0
        for t in range(S):
            if sh[b, e, t, SH_STATUS] == SS_ACTIVE:
                v = _group_damage(cfg, c, gi, cell, f, sh[b, e, t, SH_CELL])
                best = max(best, v)
        score += best * (1.0 if group_full(sh, cfg, b, p, k, gi) else 0.4)
    # defence: expected damage the enemies can put through the shields facing them
    for t in range(S):
        if sh[b, e, t, SH_STATUS] != SS_ACTIVE:
            continue
        tcell = sh[b, e, t, SH_CELL]
        tc = sh[b, e, t, SH_CLASS]
        threat = 0.0
        for gi in range(cfg.cls[tc, CL_N_GROUPS]):
            if _group_alive(sh, b, e, t, gi):
                v = _group_damage(cfg, tc, gi, tcell, sh[b, e, t, SH_FACING], cell)
                threat += v * (1.0 if group_full(sh, cfg, b, e, t, gi) else 0.3)
        if threat > 0.0:
            arc = cfg.arc_of[cell, tcell, f] if cell != tcell else -1
            prot = _arc_protection(sh, b, p, k, arc)
            score -= 0.3 * threat + 0.8 * max(0.0, threat - prot)
    # approach: the nearest enemy at the ideal range, in the front arc
    t = _nearest_enemy(s, cfg, b, p, cell)
    if t >= 0:
        tcell = sh[b, e, t, SH_CELL]
        d = cfg.dist[cell, tcell]
        score -= 0.5 * abs(d - _ideal_range(cfg, c))
        if d == 0:
            score -= 2.0
        elif cfg.arc_of[cell, tcell, f] == ARC_FRONT:
            score += 0.8
    # collisions with own ships cost 3 damage to each (Talon 7.4)
    for j in range(S):
        if j != k and sh[b, p, j, SH_STATUS] == SS_ACTIVE and sh[b, p, j, SH_CELL] == cell:
            score -= 4.0
    return score + terrain


@kernel(cache=True)
def _best_move(s, cfg, b, p, k, mask):
    """Legal move of ship ``k`` with the best position score (-1 if it has none)."""
    sh = s.sh
    cell = sh[b, p, k, SH_CELL]
    f = sh[b, p, k, SH_FACING]
    base = cfg.k[K_A_MOVE] + k * N_MOVES
    best, best_sc = -1, -1e18
    for m in range(N_MOVES):
        a = base + m
        if not mask[a]:
            continue
        nc, nf = _destination(cfg, cell, f, m)
        sc = _position_score(s, cfg, b, p, k, nc, nf)
        if sc > best_sc:
            best, best_sc = a, sc
    return best


@kernel(cache=True)
def _front_enemy_close(s, cfg, b, p, cell, f):
    """An enemy ship in the front arc of ``cell``/``f`` at range 1-3?"""
    if cell < 0:
        return False
    sh = s.sh
    e = 1 - p
    for t in range(sh.shape[2]):
        if sh[b, e, t, SH_STATUS] != SS_ACTIVE:
            continue
        tcell = sh[b, e, t, SH_CELL]
        d = cfg.dist[cell, tcell]
        if 1 <= d <= 3 and cfg.arc_of[cell, tcell, f] == ARC_FRONT:
            return True
    return False


@kernel(cache=True)
def _afterburner_move(s, cfg, b, p, k, mask):
    """Afterburn (Talon 10.2) only to bring an enemy into the front arc at range <= 3 for a charged group."""
    sh = s.sh
    c = sh[b, p, k, SH_CLASS]
    cell = sh[b, p, k, SH_CELL]
    f = sh[b, p, k, SH_FACING]
    charged = False
    for gi in range(cfg.cls[c, CL_N_GROUPS]):
        if group_full(sh, cfg, b, p, k, gi) and cfg.wplay[cfg.grp[c, gi, GR_WEAPON]] \
                and (cfg.grp[c, gi, GR_ARCS] >> ARC_FRONT) & 1:
            charged = True
    if not charged or _front_enemy_close(s, cfg, b, p, cell, f):
        return -1
    base = cfg.k[K_A_MOVE] + k * N_MOVES
    best, best_sc = -1, -1e18
    for m in range(N_MOVES):
        a = base + m
        if not mask[a]:
            continue
        nc, nf = _destination(cfg, cell, f, m)
        if not _front_enemy_close(s, cfg, b, p, nc, nf):
            continue
        sc = _position_score(s, cfg, b, p, k, nc, nf)
        if sc < -100.0:
            continue            # an afterburner is optional: never into danger (17-18)
        if sc > best_sc:
            best, best_sc = a, sc
    return best


@kernel(cache=True)
def _target_score(s, cfg, b, p, k, w, t):
    """Expected damage of one weapon ``w`` of ship ``k`` on enemy ``t``, more on weakened targets."""
    sh = s.sh
    e = 1 - p
    fc = sh[b, p, k, SH_CELL]
    tc = sh[b, e, t, SH_CELL]
    dmg = expected_damage(cfg, w, cfg.dist[fc, tc], 0)
    if s.g[b, G_TILES] > 0:
        dmg = expected_damage(cfg, w, cfg.dist[fc, tc], aim_penalty(s, cfg, b, fc, tc))
    arc = cfg.arc_of[tc, fc, sh[b, e, t, SH_FACING]]
    prot = _arc_protection(sh, b, e, t, arc)
    score = dmg * (1.0 + 2.0 / (1.0 + prot)) + 0.5 * hull_worn(sh, cfg, b, e, t)
    if named_by(s.g, b, p, VK_DESTROY, t):     # the scenario's objective (victory.py): fire at it first
        score = 2.0 * score + 1.0
    return score


# ---------------------------------------------------------------------------------
# The stages
# ---------------------------------------------------------------------------------
# --- Talon 12 fighters ---
@kernel(cache=True)
def _fighter_ap_action(s, cfg, b, p, mask, use):
    """Talon 12.2.2: the first legal AP a carrier or base can send to a squadron for ``use``
    (0 charge its weapon group's yellow box, 1 power through a turn), or -1."""
    lo = cfg.k[K_A_FTR_AP]
    for a in range(lo + use, cfg.k[K_A_MOVE], N_FTR_USES):
        if mask[a]:
            return a
    return -1


@kernel(cache=True)
def _ap_action(s, cfg, b, p, mask):
    """Talon 6.1: bar closest to full, else shield towards the nearest enemy, else power through a turn.
    With fighters (12.2.2), a carrier's AP charges its squadrons' lasers first."""
    sh = s.sh
    if cfg.k[K_FIGHTERS]:
        a = _fighter_ap_action(s, cfg, b, p, mask, 0)
        if a >= 0:
            return a
    for k in range(sh.shape[2]):
        base = cfg.k[K_A_AP] + k * N_USES
        if first_legal(mask, base, base + N_USES) < 0:
            continue
        chart = ap_source(s, cfg, b, p, k) == 1   # else the AP is the battery's: keep it for the shields
        c = sh[b, p, k, SH_CLASS]
        cell = sh[b, p, k, SH_CELL]
        t = _nearest_enemy(s, cfg, b, p, cell)
        d = 1 << 30
        if t >= 0:
            d = cfg.dist[cell, sh[b, 1 - p, t, SH_CELL]]
        if chart:
            best, best_missing = -1, 1 << 30
            for gi in range(3):
                a = base + U_CHARGE + gi
                if mask[a]:
                    missing = (cfg.grp[c, gi, GR_RED] - sh[b, p, k, SH_RED + gi]
                               + cfg.grp[c, gi, GR_YELLOW] - sh[b, p, k, SH_YEL + gi])
                    if missing < best_missing:
                        best, best_missing = a, missing
            if best >= 0:
                return best
        if t >= 0 and d > 0 and (chart or d <= 4):
            arc = cfg.arc_of[cell, sh[b, 1 - p, t, SH_CELL], sh[b, p, k, SH_FACING]]
            if arc >= 0 and mask[base + U_REINF + arc]:
                return base + U_REINF + arc
        if chart:
            if mask[base + U_TURN]:
                return base + U_TURN
            if mask[base + U_BATTERY]:
                return base + U_BATTERY
    if cfg.k[K_FIGHTERS]:
        a = _fighter_ap_action(s, cfg, b, p, mask, 1)
        if a >= 0:
            return a
    if mask[cfg.k[K_A_DONE]]:
        return cfg.k[K_A_DONE]
    return -1


# --- Talon 16 docking ---
@kernel(cache=True)
def _dock_action(s, cfg, b, p, mask):
    """Talon 16.3: a squadron down to its last fighter retreats by docking when it can (its 44 SP are
    then out of the enemy's reach), or -1."""
    sh = s.sh
    for k in range(sh.shape[2]):
        if (sh[b, p, k, SH_STATUS] == SS_ACTIVE and cfg.cls[sh[b, p, k, SH_CLASS], CL_FIGHTER]
                and sh[b, p, k, SH_HULL_HITS] >= cfg.cls[sh[b, p, k, SH_CLASS], CL_N_HULL] - 1):
            lo = cfg.k[K_A_DOCK] + k * N_MOVES
            for a in range(lo, lo + N_MOVES):
                if mask[a]:
                    return a
    return -1


@kernel(cache=True)
def _move_action(s, cfg, b, p, mask):
    sh = s.sh
    imp = s.g[b, G_IMPULSE]
    if cfg.k[K_DOCKING]:
        a = _dock_action(s, cfg, b, p, mask)
        if a >= 0:
            return a
    for k in range(sh.shape[2]):
        if sh[b, p, k, SH_STATUS] == SS_ACTIVE and not sh[b, p, k, SH_MOVED] \
                and must_move(sh, cfg, b, p, k, imp):
            a = _best_move(s, cfg, b, p, k, mask)
            if a >= 0:
                return a
    for k in range(sh.shape[2]):
        if sh[b, p, k, SH_STATUS] == SS_ACTIVE and not sh[b, p, k, SH_MOVED] and sh[b, p, k, SH_AB_LEFT] > 0 \
                and not must_move(sh, cfg, b, p, k, imp):
            a = _afterburner_move(s, cfg, b, p, k, mask)
            if a >= 0:
                return a
    if mask[cfg.k[K_A_DONE]]:
        return cfg.k[K_A_DONE]
    return -1


@kernel(cache=True)
def _group_action(s, cfg, b, p, mask):
    """The legal group (Talon 8.3 step 1) whose best target takes the most expected damage."""
    sh = s.sh
    k = s.g[b, G_SHIP]
    c = sh[b, p, k, SH_CLASS]
    best, best_v = -1, -1.0
    for gi in range(3):
        a = cfg.k[K_A_GROUP] + gi
        if not mask[a]:
            continue
        v = 0.0
        for t in range(sh.shape[2]):
            if sh[b, 1 - p, t, SH_STATUS] == SS_ACTIVE:
                v = max(v, _group_damage(cfg, c, gi, sh[b, p, k, SH_CELL], sh[b, p, k, SH_FACING],
                                         sh[b, 1 - p, t, SH_CELL]))
        if cfg.grp[c, gi, GR_WEAPON] == W_FUSION:
            # 15.2 the cone hits every ship: worth firing only if the enemy loses more than we do
            v = 0.0
            for q in range(2):
                for t in range(sh.shape[2]):
                    if sh[b, q, t, SH_STATUS] == SS_ACTIVE and not (q == p and t == k):
                        d = _group_damage(cfg, c, gi, sh[b, p, k, SH_CELL], sh[b, p, k, SH_FACING], sh[b, q, t, SH_CELL])
                        v += d if q != p else -1.5 * d
            if v <= 0.0:
                continue
        if v > best_v:
            best, best_v = a, v
    return best


@kernel(cache=True)
def _target_action(s, cfg, b, p, mask):
    sh = s.sh
    k = s.g[b, G_SHIP]
    w = cfg.grp[sh[b, p, k, SH_CLASS], s.g[b, G_GROUP], GR_WEAPON]
    best, best_v = -1, -1e18
    for t in range(sh.shape[2]):
        a = cfg.k[K_A_TARGET] + t
        if not mask[a]:
            continue
        v = _target_score(s, cfg, b, p, k, w, t)
        if v > best_v:
            best, best_v = a, v
    return best


@kernel(cache=True)
def _pull_action(s, cfg, b, p):
    """Talon 18.2 along a hexside: the hex with the better position (never a deadly one if
    the other is not)."""
    k = s.g[b, G_SHIP]
    f = s.sh[b, p, k, SH_FACING]
    sa = _position_score(s, cfg, b, p, k, s.g[b, G_PULL_A], f)
    sb = _position_score(s, cfg, b, p, k, s.g[b, G_PULL_B], f)
    return cfg.k[K_A_PULL] + (1 if sb > sa else 0)


@kernel(cache=True)
def _push_action(s, cfg, b, p):
    """Talon 15.1.2 along a hexside: push the enemy into the hex that is worse for it (a
    deadly hex if there is one, else the one its owner would like less)."""
    e = 1 - p
    t = s.g[b, G_PUSH_SHIP]
    f = s.sh[b, e, t, SH_FACING]
    ca = s.g[b, G_PULL_A]
    cb = s.g[b, G_PULL_B]
    if ca < 0 or cb < 0:
        return cfg.k[K_A_PULL]
    sa = _position_score(s, cfg, b, e, t, ca, f)
    sb = _position_score(s, cfg, b, e, t, cb, f)
    return cfg.k[K_A_PULL] + (1 if sb < sa else 0)


@kernel(cache=True)
def _retreat_action(s, cfg, b, p, mask):
    """Talon 11: jump to FTL with a ship one hull box from destruction (its points are then
    lost to the enemy); the others fight on."""
    sh = s.sh
    for k in range(sh.shape[2]):
        a = cfg.k[K_A_RETREAT] + k
        if mask[a] and (sh[b, p, k, SH_HULL_HITS] >= cfg.cls[sh[b, p, k, SH_CLASS], CL_N_HULL] - 2
                        or named_by(s.g, b, p, VK_ESCAPE, k)):   # a ship the scenario wants away leaves
            return a
    return cfg.k[K_A_DONE]


# --- Talon 13 missiles ---
@kernel(cache=True)
def _retarget_action(s, cfg, b, p, mask):
    """13.7: give a missile that lost its target (13.3) a new one, with the first ship that may."""
    ms = s.ms
    M = ms.shape[1]
    for m in range(M):
        if ms[b, m, MS_STATUS] != MI_NONE and ms[b, m, MS_OWNER] == p and tracked_target(s, b, m) < 0:
            for k in range(s.sh.shape[2]):
                a = cfg.k[K_A_RETARGET] + M * k + m
                if mask[a]:
                    return a
    return -1


@kernel(cache=True)
def _new_target_action(s, cfg, b, p, mask):
    """13.7: the legal new target nearest the missile."""
    cell = s.ms[b, s.g[b, G_MISSILE], MS_CELL]
    best, best_d = -1, 1 << 30
    for t in range(s.sh.shape[2]):
        a = cfg.k[K_A_TARGET] + t
        if mask[a] and cfg.dist[cell, s.sh[b, 1 - p, t, SH_CELL]] < best_d:
            best, best_d = a, cfg.dist[cell, s.sh[b, 1 - p, t, SH_CELL]]
    return best


@kernel(cache=True)
def _missile_threat(s, cfg, b, p, m):
    """How much shooting enemy missile ``m`` is worth (13.6): its 2 damage, more the nearer it is
    to the own ship it tracks; 0 when it tracks nothing."""
    t = tracked_target(s, b, m)
    if t < 0:
        return 0.0
    d = cfg.dist[s.ms[b, m, MS_CELL], s.sh[b, p, t, SH_CELL]]
    return 4.0 / max(1, d)


@kernel(cache=True)
def _missile_shot_action(s, cfg, b, p, mask, ship_value):
    """13.6: fire at the enemy missile that threatens most, if that beats the best ship target
    (a damaged missile falls to any hit; an intact one to 3 damage, else it is only damaged)."""
    sh = s.sh
    k = s.g[b, G_SHIP]
    w = cfg.grp[sh[b, p, k, SH_CLASS], s.g[b, G_GROUP], GR_WEAPON]
    best, best_v = -1, ship_value
    for m in range(s.ms.shape[1]):
        a = cfg.k[K_A_MTARGET] + m
        if not mask[a]:
            continue
        dmg = expected_damage(cfg, w, cfg.dist[sh[b, p, k, SH_CELL], s.ms[b, m, MS_CELL]], 0)
        kill = 1.0 if s.ms[b, m, MS_STATUS] == MI_DAMAGED or dmg >= 3.0 else 0.5
        v = _missile_threat(s, cfg, b, p, m) * kill * min(1.0, dmg)
        if v > best_v:
            best, best_v = a, v
    return best


@kernel(cache=True)
def _launch_hex_action(s, cfg, b, p):
    """13.2 the launch hex nearest the target (ties: nearest the bow)."""
    k = s.g[b, G_SHIP]
    _, d = launch_directions(s, cfg, b, p, k, s.g[b, G_GROUP], s.sh[b, 1 - p, s.g[b, G_LAUNCH_TARGET], SH_CELL])
    return cfg.k[K_A_LAUNCH] + d


@kernel(cache=True)
def scripted_action(s, cfg, b, mask):
    p = s.g[b, G_DECIDER]
    st = s.g[b, G_STAGE]
    a = -1
    if cfg.k[K_MISSILES]:                                # --- Talon 13 missiles ---
        if st == ST_AP:
            a = _retarget_action(s, cfg, b, p, mask)
        elif st == ST_RETARGET:
            a = _new_target_action(s, cfg, b, p, mask)
        elif st == ST_LAUNCH:
            a = _launch_hex_action(s, cfg, b, p)
        elif st == ST_MOVE:
            a = first_legal(mask, cfg.k[K_A_MMOVE], cfg.k[K_A_MTARGET])    # 13.4 every legal move heads for the target
        elif st == ST_FIRE_TARGET:
            t = _target_action(s, cfg, b, p, mask)
            v = 0.0 if t < 0 else _target_score(s, cfg, b, p, s.g[b, G_SHIP],
                                                 cfg.grp[s.sh[b, p, s.g[b, G_SHIP], SH_CLASS], s.g[b, G_GROUP], GR_WEAPON],
                                                 t - cfg.k[K_A_TARGET])
            a = _missile_shot_action(s, cfg, b, p, mask, v)
            if a < 0:
                a = t
        if a >= 0 and mask[a]:
            return a
        a = -1
    if st == ST_AP:
        a = _ap_action(s, cfg, b, p, mask)
    elif st == ST_MOVE:
        a = _move_action(s, cfg, b, p, mask)
    elif st == ST_FIRE_SHIP:
        a = first_legal(mask, cfg.k[K_A_FIRE_SHIP], cfg.k[K_A_GROUP])
    elif st == ST_FIRE_GROUP:
        a = _group_action(s, cfg, b, p, mask)
    elif st == ST_FIRE_TARGET:
        a = _target_action(s, cfg, b, p, mask)
    elif st == ST_POWER:
        a = cfg.k[K_A_SPEED] + 1  # keep the speed
        if not mask[a]:
            a = first_legal(mask, cfg.k[K_A_SPEED], cfg.k[K_A_SPEED] + 3)
    elif st == ST_INIT:
        a = cfg.k[K_A_INIT]  # take or keep the initiative
    elif st == ST_COLLIDE:
        a = cfg.k[K_A_COLLIDE]  # the moving ship takes its damage first
    elif st == ST_EXPLODE:
        a = first_legal(mask, cfg.k[K_A_EXPLODE], cfg.k[K_A_PULL])
    elif st == ST_PULL:
        a = _pull_action(s, cfg, b, p)
    elif st == ST_PUSH:
        a = _push_action(s, cfg, b, p)
    elif st == ST_RETREAT:
        a = _retreat_action(s, cfg, b, p, mask)
    if a >= 0 and mask[a]:
        return a
    return first_legal(mask, 0, mask.shape[0])


# The learner-versus-opponent loops, written once in envs/core/loops.py
LOOPS = specialise_loops("talon", step_game, scripted_action, G_DONE, G_DECIDER, sources=(*_rules.CHAPTERS, _rules, sys.modules[__name__]),
                         policies=POLICIES)
play_turns, play_games, policy_actions, play = LOOPS.play_turns, LOOPS.play_games, LOOPS.policy_actions, LOOPS.play
policy_action = LOOPS.policy_action   # one game's built-in policy (serve.session calls it directly)
