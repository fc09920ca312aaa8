"""The action table of union_wars_v2 (option ``relations``; RULES.md "Observation: the action
table"): one row of ``N_AF`` values per action, what the action does measured against the
rules (can this model shoot someone now, how many wounds the target has left, how far it is,
how much nearer its goal a move takes the model), so that a policy head that scores each action
from its own row (training/networks.py, ``ActionFeatureHead``) can compare them.

Before, the network saw the models' positions and profiles only; which model can see which,
a weapon's rate and range, and what each of the 80 moves brings had to be recomputed inside a
64-unit latent, and the agent stalled near the scripted bot's level (RULES.md says by how much).

The scripted bot's goals (``goal_point``, ``stand_off``) live here, stated once: the bot walks
toward them and the table measures each move against them.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.kernel import kernel
from .actions import action_cost, action_reason, kind_reason, target_reason
from .general import exhausted, has_flag, is_active, model_distance, on_table, stat, wounds_left
from .layout import (AK_CHARGE, AK_FIRE0, AK_FIRE1, AK_FLY, AK_MOVE, AK_RECOVER, F_HIDDEN, F_SUPPRESSED, G_ACT,
                     G_ACTIVE, G_ACTOR, G_ACTOR_SIDE, G_BASE0, G_CONSOL, G_FACE, G_FACE_MOVE, G_MISSION, G_NOBJ,
                     G_RSLOT, G_STAGE, K_A_ACT, K_A_MINE, K_A_MODEL, K_A_MOVE, K_A_PASS, K_A_REACT, K_A_SPOT,
                     K_A_THEIR, M_BASES, MD_CAR, M_OBJECTIVES, M_PATROL, MD_USED, N_AK, N_DIRS,
                     N_DIST, N_MOVES, N_SLOTS, N_SPOTS, PF_ADM, PF_AT, PF_R0, RK_FIRE0,
                     ST_ACTION, ST_CONSOLIDATE, ST_COUNTERMOVE, ST_DEPLOY, ST_FACING, ST_MELEE_TARGET, ST_REACT,
                     ST_REACT_KIND, ST_SELECT, ST_TARGET, T_MAX, T_NONE, TI_EXPLORED, TI_KIND, WP_RANGE, WP_RATE,
                     FACE_ACTION, FACE_COUNTERMOVE)
from .movement import move_allowance, move_target
from .reactions import reaction_cost, reaction_reason

# columns of a row (RULES.md "Observation: the action table" says each in words)
AF_ROW = 0        # 1: the row describes the action
AF_FAMILY = 1     # 1 own model, 2 action kind, 3 enemy model, 4 own model as target, 5 move / facing, 6 spot,
                  # 7 reaction kind, 8 pass
AF_SHOTS = 2      # enemy models it can fire at now (own model, fire action, reaction fire); enemy model: own
                  # models that can fire at it (the actor's weapon once declared)
AF_RATE = 3       # the weapon's rate (fire action, reaction fire); own model: its best rate at a target
AF_LEFT = 4       # wounds left (FS - wounds) of the model the row names
AF_DIST = 5       # enemy / own model: cm from the actor (else from my nearest model); move: cm off where the
                  # mover wants to stand (its goal at its stand-off); spot: cm from the table's middle line
AF_GAIN = 6       # move: cm it gains toward where the mover wants to stand; facing: - steps of 22.5 degrees
                  # off its goal; own model: cm it stands off where it wants to be
AF_CHARGE = 7     # own model / charge action: 1 a charge is legal, 2 and it fights in melee (stand-off 0);
                  # enemy model: 1 the actor may charge it
AF_COST = 8       # action: its charisma cost now; own model: charisma left (stage reactions: a reaction's cost)
AF_STATE = 9      # own model: 1 suppressed + 2 tired (fatigue >= COS) + 4 acted this turn; recover: the actor's
N_AF = 10
FAM_MODEL, FAM_ACTION, FAM_ENEMY, FAM_MINE, FAM_MOVE, FAM_SPOT, FAM_REACT, FAM_PASS = range(1, 9)
TABLE_MIDDLE = 60.0   # cm: the middle of the 120 cm table, where the bot deploys


# -- what the scripted bot steers by -----------------------------------------------------------
@kernel(cache=True)
def goal_point(s, cfg, b, side, i):
    """Where the model heads: the mission's goal (odd slots: an objective, the enemy base, an
    unexplored element) or the nearest enemy it knows of (a hidden one is not known); the last
    value says whether the goal is an enemy."""
    m = s.g[b, G_MISSION]
    x, y = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    best_x, best_y, best_d = TABLE_MIDDLE, TABLE_MIDDLE, 1e9
    if m == M_OBJECTIVES and i % 2 == 1:
        for q in range(s.g[b, G_NOBJ]):
            d = math.hypot(s.objs[b, q, 0] - x, s.objs[b, q, 1] - y)
            if s.objs[b, q, 2] > 0 and d < best_d:
                best_x, best_y, best_d = s.objs[b, q, 0], s.objs[b, q, 1], d
        return best_x, best_y, False
    if m == M_BASES and i % 2 == 1:
        t = s.g[b, G_BASE0 + 1 - side]
        if t >= 0:
            return s.terr[b, t, 0, 0], s.terr[b, t, 0, 1], False
    if m == M_PATROL and i % 2 == 1:
        for t in range(T_MAX):
            if s.tinfo[b, t, TI_KIND] != T_NONE and s.tinfo[b, t, TI_EXPLORED] != side + 1:
                cx = (s.terr[b, t, 0, 0] + s.terr[b, t, 2, 0]) / 2
                cy = (s.terr[b, t, 0, 1] + s.terr[b, t, 2, 1]) / 2
                d = math.hypot(cx - x, cy - y)
                if d < best_d:
                    best_x, best_y, best_d = cx, cy, d
        if best_d < 1e9:
            return best_x, best_y, False
    for j in range(N_SLOTS):
        if is_active(s, b, 1 - side, j) and not has_flag(s, b, 1 - side, j, F_HIDDEN):
            d = math.hypot(s.pos[b, 1 - side, j, 0] - x, s.pos[b, 1 - side, j, 1] - y)
            if d < best_d:
                best_x, best_y, best_d = s.pos[b, 1 - side, j, 0], s.pos[b, 1 - side, j, 1], d
    return best_x, best_y, True


@kernel(cache=True)
def stand_off(s, cfg, b, side, i):
    """Preferred distance from an enemy: half the longest weapon's range (melee models: 0)."""
    best = 0.0
    for w in range(2):
        wpn = cfg.pf[s.md[b, side, i, 0], PF_R0 + w]
        if wpn >= 0 and cfg.wp[wpn, WP_RANGE] > 0:
            best = max(best, cfg.wp[wpn, WP_RANGE] / 2.0)
    if stat(s, cfg, b, side, i, PF_AT) >= 2 and stat(s, cfg, b, side, i, PF_ADM) <= 4:
        return 0.0
    return best


@kernel(cache=True)
def wanted_stand(s, cfg, b, side, i):
    """(x, y, cm): model (side, i) wants to stand that far from the point: its goal, at its
    stand-off when the goal is an enemy."""
    gx, gy, enemy = goal_point(s, cfg, b, side, i)
    return gx, gy, (stand_off(s, cfg, b, side, i) if enemy else 0.0)


@kernel(cache=True, inline="always")
def off_goal(gx, gy, want, x, y):
    """cm between the point (x, y) and where a model wants to stand (``wanted_stand``)."""
    return abs(math.hypot(gx - x, gy - y) - want)


@kernel(cache=True)
def facing_toward_goal(s, cfg, b, side, i, x, y, default):
    """The direction (0..15) from (x, y) toward model (side, i)'s goal (``default`` if there)."""
    gx, gy, _enemy = goal_point(s, cfg, b, side, i)
    if math.hypot(gx - x, gy - y) < 1e-6:
        return default
    return int(round(math.atan2(gy - y, gx - x) / (2.0 * math.pi / N_DIRS))) % N_DIRS


@kernel(cache=True)
def mover(s, cfg, b, me):
    """(side, slot, allowance in cm, flying) of the model a move choice of stage ``G_STAGE``
    moves (-1 slot: no move is being chosen): MOVIMENTO and VOLO its whole M (or volo), a
    CONTROMOSSA half of M, a consolidation its 2D6 cm.  The mask (rules.write_mask), the action
    table and the bot all ask it here."""
    st = s.g[b, G_STAGE]
    if st == ST_TARGET and (s.g[b, G_ACT] == AK_MOVE or s.g[b, G_ACT] == AK_FLY):
        side, i, fly = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR], s.g[b, G_ACT] == AK_FLY
        return side, i, move_allowance(s, cfg, b, side, i, fly, False), fly
    if st == ST_COUNTERMOVE:
        return me, s.g[b, G_RSLOT], move_allowance(s, cfg, b, me, s.g[b, G_RSLOT], False, True), False
    if st == ST_CONSOLIDATE:
        return me, s.g[b, G_RSLOT], float(s.g[b, G_CONSOL]), False
    if st == ST_FACING:
        kind = s.g[b, G_FACE]
        if kind == FACE_ACTION:
            side, i = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
            fly = s.g[b, G_ACT] == AK_FLY
            return side, i, move_allowance(s, cfg, b, side, i, fly, False), fly
        if kind == FACE_COUNTERMOVE:
            return me, s.g[b, G_RSLOT], move_allowance(s, cfg, b, me, s.g[b, G_RSLOT], False, True), False
        return me, s.g[b, G_RSLOT], float(s.g[b, G_CONSOL]), False
    return me, -1, 0.0, False


# -- the table ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def _put(obs, off, a, f, v):
    obs[off + a * N_AF + f] = max(-127, min(127, v))


@kernel(cache=True)
def fire_matrix(s, cfg, b, me):
    """``hits[i, w, j]``: my model i may declare FUOCO with weapon w now (LE AZIONI: its turn,
    charisma, fatigue, ...) at enemy model j (range, sight, the arc): the mask's own tests, asked
    once per observation and read by every row."""
    hits = np.zeros((N_SLOTS, 2, N_SLOTS), np.bool_)
    if s.g[b, G_ACTIVE] != me:
        return hits
    for i in range(N_SLOTS):
        if not is_active(s, b, me, i):
            continue
        for w in range(2):
            if kind_reason(s, cfg, b, me, i, AK_FIRE0 + w) != 0:
                continue
            for j in range(N_SLOTS):
                hits[i, w, j] = target_reason(s, cfg, b, me, i, AK_FIRE0 + w, 1 - me, j) == 0
    return hits


@kernel(cache=True)
def weapon_rate(s, cfg, b, side, i, w):
    wpn = cfg.pf[s.md[b, side, i, 0], PF_R0 + w]
    return cfg.wp[wpn, WP_RATE] if wpn >= 0 else 0


@kernel(cache=True)
def model_state(s, cfg, b, side, i):
    v = 1 if has_flag(s, b, side, i, F_SUPPRESSED) else 0
    if exhausted(s, cfg, b, side, i):
        v += 2
    if s.md[b, side, i, MD_USED] & 1:
        v += 4
    return v


@kernel(cache=True)
def charge_value(s, cfg, b, side, i):
    if action_reason(s, cfg, b, side, i, AK_CHARGE) != 0:
        return 0
    return 2 if stand_off(s, cfg, b, side, i) == 0.0 else 1


@kernel(cache=True)
def _own_rows(s, cfg, b, me, obs, off, st, tactical, hits):
    k = cfg.k
    for i in range(N_SLOTS):
        if not on_table(s, b, me, i):
            continue
        for a in (k[K_A_MODEL] + i, k[K_A_MINE] + i):
            _put(obs, off, a, AF_ROW, 1)
            _put(obs, off, a, AF_FAMILY, FAM_MODEL if a < k[K_A_ACT] else FAM_MINE)
            _put(obs, off, a, AF_LEFT, wounds_left(s, cfg, b, me, i))
            _put(obs, off, a, AF_STATE, model_state(s, cfg, b, me, i))
            _put(obs, off, a, AF_COST, reaction_cost(s, cfg, b, me, i) if st == ST_REACT else s.md[b, me, i, MD_CAR])
        if not tactical or not is_active(s, b, me, i):
            continue
        a = k[K_A_MODEL] + i
        gx, gy, want = wanted_stand(s, cfg, b, me, i)
        _put(obs, off, a, AF_GAIN, int(round(off_goal(gx, gy, want, s.pos[b, me, i, 0], s.pos[b, me, i, 1]))))
        if st == ST_REACT:
            best = 0
            for w in range(2):
                if reaction_reason(s, cfg, b, me, i, RK_FIRE0 + w) == 0:
                    best = max(best, weapon_rate(s, cfg, b, me, i, w))
            _put(obs, off, a, AF_SHOTS, 1 if best > 0 else 0)
            _put(obs, off, a, AF_RATE, best)
            continue
        shots, rate = 0, 0
        for w in range(2):
            n = hits[i, w].sum()
            if n > 0:
                shots = max(shots, n)
                rate = max(rate, weapon_rate(s, cfg, b, me, i, w))
        _put(obs, off, a, AF_SHOTS, shots)
        _put(obs, off, a, AF_RATE, rate)
        _put(obs, off, a, AF_CHARGE, charge_value(s, cfg, b, me, i))


@kernel(cache=True)
def _enemy_rows(s, cfg, b, me, obs, off, st, actor_side, actor, hits):
    """Rows of the enemy models: what the actor (or, with no actor, my models) could do to them."""
    k = cfg.k
    q = 1 - me
    ak = s.g[b, G_ACT]
    for j in range(N_SLOTS):
        if not on_table(s, b, q, j) or has_flag(s, b, q, j, F_HIDDEN):
            continue      # hidden models stay hidden, as in the model table
        a = k[K_A_THEIR] + j
        _put(obs, off, a, AF_ROW, 1)
        _put(obs, off, a, AF_FAMILY, FAM_ENEMY)
        _put(obs, off, a, AF_LEFT, wounds_left(s, cfg, b, q, j))
        if actor >= 0 and actor_side == me:
            _put(obs, off, a, AF_DIST, int(round(model_distance(s, cfg, b, me, actor, q, j))))
            if st == ST_TARGET and (ak == AK_FIRE0 or ak == AK_FIRE1):
                _put(obs, off, a, AF_SHOTS, 1 if target_reason(s, cfg, b, me, actor, ak, q, j) == 0 else 0)
            else:
                _put(obs, off, a, AF_SHOTS, 1 if hits[actor, 0, j] or hits[actor, 1, j] else 0)
            _put(obs, off, a, AF_CHARGE, 1 if target_reason(s, cfg, b, me, actor, AK_CHARGE, q, j) == 0 else 0)
            continue
        near, shooters = 1e9, 0
        for i in range(N_SLOTS):
            if not is_active(s, b, me, i):
                continue
            near = min(near, model_distance(s, cfg, b, me, i, q, j))
            if hits[i, 0, j] or hits[i, 1, j]:
                shooters += 1
        if near < 1e9:
            _put(obs, off, a, AF_DIST, int(round(near)))
        _put(obs, off, a, AF_SHOTS, shooters)


@kernel(cache=True)
def _action_rows(s, cfg, b, me, obs, off, side, i, hits):
    """Stage *declare an action*: the rows of the action kinds of my acting model."""
    base = cfg.k[K_A_ACT]
    for ak in range(N_AK):
        a = base + ak
        _put(obs, off, a, AF_ROW, 1)
        _put(obs, off, a, AF_FAMILY, FAM_ACTION)
        _put(obs, off, a, AF_COST, action_cost(s, cfg, b, side, i, ak))
    for w in range(2):
        _put(obs, off, base + AK_FIRE0 + w, AF_SHOTS, hits[i, w].sum())
        _put(obs, off, base + AK_FIRE0 + w, AF_RATE, weapon_rate(s, cfg, b, side, i, w))
    _put(obs, off, base + AK_CHARGE, AF_CHARGE, charge_value(s, cfg, b, side, i))
    _put(obs, off, base + AK_RECOVER, AF_STATE, model_state(s, cfg, b, side, i))


@kernel(cache=True)
def _move_rows(s, cfg, b, me, obs, off):
    """A move being chosen (MOVIMENTO, VOLO, CONTROMOSSA, consolidation) or the facing after it."""
    side, i, allow, _fly = mover(s, cfg, b, me)
    if i < 0 or side != me:
        return
    st = s.g[b, G_STAGE]
    base = cfg.k[K_A_MOVE]
    if st == ST_FACING:
        x, y, _a, _d = move_target(s, b, side, i, s.g[b, G_FACE_MOVE], allow)
        goal = facing_toward_goal(s, cfg, b, side, i, x, y, s.g[b, G_FACE_MOVE] // (N_DIST + 1))
        for d in range(N_DIRS):
            a = base + d * (N_DIST + 1)
            off_by = abs(d - goal)
            _put(obs, off, a, AF_ROW, 1)
            _put(obs, off, a, AF_FAMILY, FAM_MOVE)
            _put(obs, off, a, AF_GAIN, -min(off_by, N_DIRS - off_by))
        return
    gx, gy, want = wanted_stand(s, cfg, b, side, i)
    now = off_goal(gx, gy, want, s.pos[b, side, i, 0], s.pos[b, side, i, 1])
    for c in range(N_MOVES):
        x, y, _a, _d = move_target(s, b, side, i, c, allow)
        after = off_goal(gx, gy, want, x, y)
        a = base + c
        _put(obs, off, a, AF_ROW, 1)
        _put(obs, off, a, AF_FAMILY, FAM_MOVE)
        _put(obs, off, a, AF_DIST, int(round(after)))
        _put(obs, off, a, AF_GAIN, int(round(now - after)))


@kernel(cache=True)
def _react_rows(s, cfg, b, me, obs, off):
    """Stage *choose a reaction*: the reacting model's fire reactions."""
    j = s.g[b, G_RSLOT]
    base = cfg.k[K_A_REACT]
    for rk in range(7):
        _put(obs, off, base + rk, AF_ROW, 1)
        _put(obs, off, base + rk, AF_FAMILY, FAM_REACT)
    for w in range(2):
        rk = RK_FIRE0 + w
        if reaction_reason(s, cfg, b, me, j, rk) == 0:
            _put(obs, off, base + rk, AF_SHOTS, 1)
        _put(obs, off, base + rk, AF_RATE, weapon_rate(s, cfg, b, me, j, w))


@kernel(cache=True)
def write_action_table(s, cfg, b, me, obs, off):
    """The action table of player ``me`` into ``obs[off:off + n_actions * N_AF]`` (zeroed by the
    caller): the rows of the actions that may be legal in the current stage."""
    k = cfg.k
    st = s.g[b, G_STAGE]
    tactical = st == ST_SELECT or st == ST_ACTION or st == ST_TARGET or st == ST_REACT or st == ST_REACT_KIND
    hits = fire_matrix(s, cfg, b, me) if tactical else np.zeros((N_SLOTS, 2, N_SLOTS), np.bool_)
    _own_rows(s, cfg, b, me, obs, off, st, tactical, hits)
    actor_side, actor = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
    if not (st == ST_ACTION or st == ST_TARGET or st == ST_MELEE_TARGET):
        actor = -1
    if tactical or st == ST_MELEE_TARGET:
        _enemy_rows(s, cfg, b, me, obs, off, st, actor_side, actor, hits)
    if st == ST_ACTION and actor_side == me and actor >= 0:
        _action_rows(s, cfg, b, me, obs, off, actor_side, actor, hits)
    _move_rows(s, cfg, b, me, obs, off)
    if st == ST_REACT_KIND:
        _react_rows(s, cfg, b, me, obs, off)
    if st == ST_DEPLOY:
        for sp in range(N_SPOTS):
            a = k[K_A_SPOT] + sp
            _put(obs, off, a, AF_ROW, 1)
            _put(obs, off, a, AF_FAMILY, FAM_SPOT)
            _put(obs, off, a, AF_DIST, int(round(abs(cfg.spots[sp, 0] - TABLE_MIDDLE))))
    _put(obs, off, k[K_A_PASS], AF_ROW, 1)
    _put(obs, off, k[K_A_PASS], AF_FAMILY, FAM_PASS)
