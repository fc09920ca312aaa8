"""Talon missiles (rulebook section 13), with option ``missiles``.

Missiles live in a fixed pool of counters per game, ``ms[b, m, MS_*]`` (option
``max_missiles``; RULES.md "Missiles").  A missile group fires like any weapon group
(8.2-8.3: choose the ship, the group, then a target for each launcher), but each shot
places a missile counter next to the firer that tracks its target (13.2-13.3); the player
picks that hex (stage ST_LAUNCH, LAUNCH actions) when more than one is legal.  Missiles
move in their owner's movement step, one hex every impulse, towards the hex nearest their
target (13.4), and detonate for 2 damage when they meet it (13.5).  Any weapon but a missile
may be fired at an enemy missile (13.6); a ship with a working launcher may spend its AP to
give one of its side's missiles a new target (13.7).

Each legality condition is one inlined function returning 0 or a reason code; the mask
(``write_missile_mask``), ``stage_has_choice`` (``missile_stage_choice``) and ``action_reason``
(``missile_action_reason``) all ask the same functions.  Missiles as targets and damage to
missiles (``missile_target_reason``, ``hit_missile``, ``blast_missiles``) are in fire.py,
because a ship's explosion (8.6.2) hits missiles too.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (ARC_FRONT, CL_N_GROUPS, GR_ARCS, GR_WEAPON, G_GROUP, G_MISSILE, G_SHIP, G_STAGE, G_TILES,
                     G_WLEFT, K_A_DONE, K_A_MMOVE, K_A_MTARGET, K_A_RETARGET, K_A_SPEED, K_A_TARGET, K_COLS, K_ROWS,
                     MISSILE_DAMAGE, MI_INTACT, MI_NONE, MS_CELL, MS_FACING, MS_MOVED, MS_OWNER, MS_STATUS, MS_TARGET,
                     M_STRAIGHT, M_TURN_LEFT, N_MISSILE_MOVES, OK, R_MISSILE_COURSE, R_MISSILE_MOVED, R_NOT_ENEMY,
                     R_NO_LAUNCHER, R_NO_MISSILE, R_NO_TARGET, R_SAME_TARGET, R_STAGE,
                     SH_AP_SPENT, SH_BATTERY, SH_CELL, SH_CLASS, SH_FACING, SH_GROUP_DEAD, ST_AP, ST_FIRE_TARGET,
                     ST_MOVE, ST_RETARGET, TK_BLACK_HOLE, TK_PLANET, TK_WORM_HOLE, W_MISSILE)
from .layout import G_LAUNCH_TARGET, K_A_LAUNCH, R_LAUNCH_HEX, ST_LAUNCH      # Talon 13.2 the launch hex
from .ships import active, from_axial, neighbour, to_axial
from .fire import (damage, hit_missile, missile_target_reason, random_arc, reach_reason, roll_weapon_damage,
                   weapons_left_reason)
from .power import ap_ship_reason, ap_source
from .terrain import line_reason, tile_at

NOT_A_MISSILE_ACTION = -1    # missile_action_reason: the action is none of section 13's
FAR = 1 << 20                # distance of a hex off the map


# ---------------------------------------------------------------------------------
# The pool and the geometry of a missile's move
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def tracked_target(s, b, m):
    """The enemy ship missile ``m`` tracks, or -1 when it has none or its target has been
    destroyed or has left the battle (13.3: it then goes straight and cannot detonate)."""
    ms = borrow(s.ms)
    t = ms[b, m, MS_TARGET]
    if t >= 0 and active(borrow(s.sh), b, 1 - ms[b, m, MS_OWNER], t):
        return t
    return -1


@kernel(cache=True, inline="always")
def heading(f, mv):
    """The facing after move ``mv`` (straight, turn left, turn right: 13.4, turn radius 0)."""
    if mv == M_STRAIGHT:
        return f
    if mv == M_TURN_LEFT:
        return (f + 1) % 6
    return (f + 5) % 6


@kernel(cache=True, inline="always")
def own_missile_reason(s, b, p, m):
    ms = borrow(s.ms)
    if m < 0 or m >= ms.shape[1] or ms[b, m, MS_STATUS] == MI_NONE or ms[b, m, MS_OWNER] != p:
        return R_NO_MISSILE
    return OK


# ---------------------------------------------------------------------------------
# Legality: moving (13.3, 13.4), shooting down (13.6), retargeting (13.7)
# ---------------------------------------------------------------------------------
@kernel(cache=True, inline="always")
def missile_course_reason(s, cfg, b, m, mv):
    """Move ``mv`` of missile ``m`` takes it into the hex nearest its target among the three it
    may enter, or one of them if several are equally near (13.4: "un esagono più vicino al
    bersaglio ... se due esagoni sono equidistanti il giocatore sceglie"); a missile without
    a target goes straight (13.3)."""
    ms = borrow(s.ms)
    t = tracked_target(s, b, m)
    if t < 0:
        return OK if mv == M_STRAIGHT else R_MISSILE_COURSE
    tc = borrow(s.sh)[b, 1 - ms[b, m, MS_OWNER], t, SH_CELL]
    dist = borrow(cfg.dist)
    cell = ms[b, m, MS_CELL]
    f = ms[b, m, MS_FACING]
    best = FAR
    mine = FAR
    for i in range(N_MISSILE_MOVES):
        nc = neighbour(cfg, cell, heading(f, i))
        d = FAR if nc < 0 else dist[nc, tc]
        best = min(best, d)
        if i == mv:
            mine = d
    return OK if mine == best else R_MISSILE_COURSE


@kernel(cache=True, inline="always")
def missile_move_reason(s, cfg, b, p, m, mv):
    """May player ``p`` move its missile ``m`` by move ``mv`` now (13.4: once every impulse)?"""
    r = own_missile_reason(s, b, p, m)
    if r != OK:
        return r
    if borrow(s.ms)[b, m, MS_MOVED]:
        return R_MISSILE_MOVED
    return missile_course_reason(s, cfg, b, m, mv)


@kernel(cache=True, inline="always")
def missile_must_move(s, b, p):
    """Player ``p`` has a missile that has not moved this impulse (13.4: speed 6)."""
    ms = borrow(s.ms)
    for m in range(ms.shape[1]):
        if ms[b, m, MS_STATUS] != MI_NONE and ms[b, m, MS_OWNER] == p and not ms[b, m, MS_MOVED]:
            return True
    return False


@kernel(cache=True)
def shoot_missile_reason(s, cfg, b, p, m):
    """May the firing ship's current weapon be fired at missile ``m`` (13.6, 8.3)?"""
    r = weapons_left_reason(s, b, p)
    if r != OK:
        return r
    g = borrow(s.g)
    return missile_target_reason(s, cfg, b, p, g[b, G_SHIP], g[b, G_GROUP], m)


@kernel(cache=True, inline="always")
def has_launcher(s, cfg, b, p, k):
    """Ship ``k`` has a missile group not destroyed by a critical hit (13.7)."""
    sh = borrow(s.sh)
    c = sh[b, p, k, SH_CLASS]
    grp = borrow(cfg.grp)
    for gi in range(borrow(cfg.cls)[c, CL_N_GROUPS]):
        if grp[c, gi, GR_WEAPON] == W_MISSILE and not (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1:
            return True
    return False


@kernel(cache=True)
def retarget_target_reason(s, cfg, b, p, k, m, t):
    """May ship ``k`` give missile ``m`` enemy ship ``t`` as its new target (13.7): a ship in
    play, not the one it tracks, in the arc and range of one of ``k``'s working launchers
    with no planet or black hole on the line (17.2.2, 18.1)?  The missile itself may be
    anywhere."""
    sh = borrow(s.sh)
    e = 1 - p
    if not active(sh, b, e, t):
        return R_NOT_ENEMY
    if tracked_target(s, b, m) == t:
        return R_SAME_TARGET
    c = sh[b, p, k, SH_CLASS]
    grp = borrow(cfg.grp)
    fc = sh[b, p, k, SH_CELL]
    tc = sh[b, e, t, SH_CELL]
    r = R_NO_LAUNCHER
    for gi in range(borrow(cfg.cls)[c, CL_N_GROUPS]):
        if grp[c, gi, GR_WEAPON] == W_MISSILE and not (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1:
            r = reach_reason(cfg, W_MISSILE, grp[c, gi, GR_ARCS], fc, sh[b, p, k, SH_FACING], tc)
            if r == OK:
                return line_reason(s, cfg, b, fc, tc)
    return r


@kernel(cache=True)
def retarget_reason(s, cfg, b, p, k, m):
    """May ship ``k`` spend its AP to retarget own missile ``m`` (13.7, 6.1): it has an AP,
    a working launcher, and some enemy ship is a possible new target?"""
    r = ap_ship_reason(s, cfg, b, p, k)
    if r != OK:
        return r
    if not has_launcher(s, cfg, b, p, k):
        return R_NO_LAUNCHER
    r = own_missile_reason(s, b, p, m)
    if r != OK:
        return r
    for t in range(borrow(s.sh).shape[2]):
        if retarget_target_reason(s, cfg, b, p, k, m, t) == OK:
            return OK
    return R_NO_TARGET


@kernel(cache=True, inline="always")
def deadly_for_missile(s, b, cell):
    """A planet or black hole destroys a missile entering it (17.2.1, 18.1); a worm hole takes
    it out of the battle (19).  Asteroids and nebulae do nothing to it (RULES.md)."""
    if borrow(s.g)[b, G_TILES] == 0:
        return False
    kind = tile_at(s, b, cell)
    return kind == TK_PLANET or kind == TK_BLACK_HOLE or kind == TK_WORM_HOLE


@kernel(cache=True, inline="always")
def launch_hex_reason(s, cfg, b, p, k, gi, d):
    """May a missile of group ``gi`` of ship ``k`` be placed in the hex next to the ship in
    direction ``d`` (13.2 "nell'esagono adiacente all'arco di fuoco della nave"): on the map, in
    one of the group's arcs, and not a planet, black hole or worm hole hex, which would destroy
    it at once (RULES.md)?"""
    sh = borrow(s.sh)
    fc = sh[b, p, k, SH_CELL]
    f = sh[b, p, k, SH_FACING]
    arcs = borrow(cfg.grp)[sh[b, p, k, SH_CLASS], gi, GR_ARCS]
    nc = neighbour(cfg, fc, d)
    if nc < 0 or not (arcs >> borrow(cfg.arc_of)[fc, nc, f]) & 1 or deadly_for_missile(s, b, nc):
        return R_LAUNCH_HEX
    return OK


@kernel(cache=True, inline="always")
def launch_choice_reason(s, cfg, b, p, d):
    """May the player place the missile being launched (ST_LAUNCH) in direction ``d``?"""
    g = borrow(s.g)
    return launch_hex_reason(s, cfg, b, p, g[b, G_SHIP], g[b, G_GROUP], d)


# ---------------------------------------------------------------------------------
# Putting them together for legality.py: one action, the mask, any choice
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def missile_action_reason(s, cfg, b, p, st, a):
    """The reason code of action ``a`` if it is a section 13 action (the missile families, or
    a TARGET action while a missile is retargeted), else NOT_A_MISSILE_ACTION."""
    k_ = borrow(cfg.k)
    g = borrow(s.g)
    if k_[K_A_MMOVE] <= a < k_[K_A_DONE]:
        if a < k_[K_A_MTARGET]:
            if st != ST_MOVE:
                return R_STAGE
            i = a - k_[K_A_MMOVE]
            return missile_move_reason(s, cfg, b, p, i // N_MISSILE_MOVES, i % N_MISSILE_MOVES)
        if a < k_[K_A_RETARGET]:
            if st != ST_FIRE_TARGET:
                return R_STAGE
            return shoot_missile_reason(s, cfg, b, p, a - k_[K_A_MTARGET])
        if a < k_[K_A_LAUNCH]:
            if st != ST_AP:
                return R_STAGE
            i = a - k_[K_A_RETARGET]
            M = borrow(s.ms).shape[1]
            return retarget_reason(s, cfg, b, p, i // M, i % M)
        if st != ST_LAUNCH:
            return R_STAGE
        return launch_choice_reason(s, cfg, b, p, a - k_[K_A_LAUNCH])
    if st == ST_RETARGET:
        if k_[K_A_TARGET] <= a < k_[K_A_SPEED]:
            return retarget_target_reason(s, cfg, b, p, g[b, G_SHIP], g[b, G_MISSILE], a - k_[K_A_TARGET])
        return R_STAGE
    return NOT_A_MISSILE_ACTION


@kernel(cache=True)
def write_missile_mask(s, cfg, b, p, st, mask):
    """The legal section 13 actions of the current stage (write_mask's other families are
    written by write_mask)."""
    k_ = borrow(cfg.k)
    g = borrow(s.g)
    M = borrow(s.ms).shape[1]
    S = borrow(s.sh).shape[2]
    if st == ST_MOVE:
        for m in range(M):
            if own_missile_reason(s, b, p, m) == OK:
                for mv in range(N_MISSILE_MOVES):
                    if missile_move_reason(s, cfg, b, p, m, mv) == OK:
                        mask[k_[K_A_MMOVE] + N_MISSILE_MOVES * m + mv] = 1
    elif st == ST_FIRE_TARGET:
        for m in range(M):
            if shoot_missile_reason(s, cfg, b, p, m) == OK:
                mask[k_[K_A_MTARGET] + m] = 1
    elif st == ST_AP:
        for k in range(S):
            if ap_ship_reason(s, cfg, b, p, k) == OK and has_launcher(s, cfg, b, p, k):
                for m in range(M):
                    if retarget_reason(s, cfg, b, p, k, m) == OK:
                        mask[k_[K_A_RETARGET] + M * k + m] = 1
    elif st == ST_RETARGET:
        for t in range(S):
            if retarget_target_reason(s, cfg, b, p, g[b, G_SHIP], g[b, G_MISSILE], t) == OK:
                mask[k_[K_A_TARGET] + t] = 1
    elif st == ST_LAUNCH:
        for d in range(6):
            if launch_choice_reason(s, cfg, b, p, d) == OK:
                mask[k_[K_A_LAUNCH] + d] = 1


@kernel(cache=True)
def missile_stage_choice(s, cfg, b, p, st):
    """Is some section 13 action legal in the current stage (stage_has_choice)?"""
    M = borrow(s.ms).shape[1]
    S = borrow(s.sh).shape[2]
    if st == ST_MOVE:
        return missile_must_move(s, b, p)      # an unmoved missile always has a legal move
    if st == ST_FIRE_TARGET:
        for m in range(M):
            if shoot_missile_reason(s, cfg, b, p, m) == OK:
                return True
        return False
    if st == ST_AP:
        for k in range(S):
            if ap_ship_reason(s, cfg, b, p, k) == OK and has_launcher(s, cfg, b, p, k):
                for m in range(M):
                    if retarget_reason(s, cfg, b, p, k, m) == OK:
                        return True
        return False
    return st == ST_RETARGET or st == ST_LAUNCH     # ST_LAUNCH is entered only with two legal hexes or more


# ---------------------------------------------------------------------------------
# What missiles do: launching, moving, detonating (13.2-13.5, 13.7)
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def detonate(s, cfg, b, m, arc):
    """Missile ``m`` hits its target: 2 damage on shield arc ``arc`` (the hull if the shields
    are down), damaged or not (13.5, 13.6); the counter is removed.  The target's explosion,
    if it is destroyed, is resolved before anything else (sequence.advance)."""
    ms = s.ms
    t = tracked_target(s, b, m)
    e = 1 - ms[b, m, MS_OWNER]
    ms[b, m, MS_STATUS] = MI_NONE
    if t >= 0:
        damage(s, cfg, b, e, t, arc, MISSILE_DAMAGE)


@kernel(cache=True)
def launch_directions(s, cfg, b, p, k, gi, tc):
    """The legal launch hexes of group ``gi`` of ship ``k`` (launch_hex_reason): their number,
    and the direction of the one nearest target hex ``tc`` (ties: the one nearest the ship's bow,
    then the lower direction; -1 if there is none), which the scripted captain picks."""
    f = s.sh[b, p, k, SH_FACING]
    fc = s.sh[b, p, k, SH_CELL]
    n = 0
    best = -1
    best_key = FAR
    for i in range(6):
        d = (f + i) % 6
        if launch_hex_reason(s, cfg, b, p, k, gi, d) != OK:
            continue
        n += 1
        turn = min(i, 6 - i)
        key = (cfg.dist[neighbour(cfg, fc, d), tc] * 4 + turn) * 8 + d
        if key < best_key:
            best_key = key
            best = d
    return n, best


@kernel(cache=True)
def facing_towards(cfg, cell, tc, first):
    """The hexside of ``cell`` towards hex ``tc`` (13.2 "deve puntare al lato dell'esagono verso
    la nave bersaglio"): the direction whose neighbour is nearest ``tc``, ties to the one
    nearest direction ``first``, then the lower."""
    best = first
    best_key = FAR
    for d in range(6):
        nc = neighbour(cfg, cell, d)
        dd = FAR if nc < 0 else cfg.dist[nc, tc]
        turn = min((d - first) % 6, (first - d) % 6)
        key = (dd * 4 + turn) * 8 + d
        if key < best_key:
            best_key = key
            best = d
    return best


@kernel(cache=True)
def launch_missile(s, cfg, b, p, k, gi, t):
    """One launcher of group ``gi`` fires at enemy ship ``t`` (13.2).  At range 1 the missile
    detonates at once on the shield facing the firer (13.5).  Otherwise the player places the
    counter in an adjacent hex of the group's arcs (13.2): with two legal hexes or more the stage
    ST_LAUNCH asks which (LAUNCH actions); with one it goes there; with none, or no free counter,
    the launch is lost (RULES.md)."""
    sh = s.sh
    e = 1 - p
    fc = sh[b, p, k, SH_CELL]
    tc = sh[b, e, t, SH_CELL]
    if cfg.dist[fc, tc] <= 1:
        damage(s, cfg, b, e, t, cfg.arc_of[tc, fc, sh[b, e, t, SH_FACING]], MISSILE_DAMAGE)
        return
    if free_missile_slot(s, b) < 0:
        return
    n, d = launch_directions(s, cfg, b, p, k, gi, tc)
    if n == 1:
        place_missile(s, cfg, b, p, k, t, d)
    elif n > 1:
        s.g[b, G_LAUNCH_TARGET] = t
        s.g[b, G_STAGE] = ST_LAUNCH


@kernel(cache=True)
def free_missile_slot(s, b):
    """The lowest free counter slot of the pool, -1 if all are in play (13.1, option max_missiles)."""
    ms = s.ms
    for m in range(ms.shape[1]):
        if ms[b, m, MS_STATUS] == MI_NONE:
            return m
    return -1


@kernel(cache=True)
def place_missile(s, cfg, b, p, k, t, d):
    """Put the counter of a missile from ship ``k`` tracking enemy ship ``t`` in the hex next
    to the ship in direction ``d``, pointing at the hexside towards the target (13.2)."""
    ms = s.ms
    slot = free_missile_slot(s, b)
    cell = neighbour(cfg, s.sh[b, p, k, SH_CELL], d)
    ms[b, slot, MS_STATUS] = MI_INTACT
    ms[b, slot, MS_OWNER] = p
    ms[b, slot, MS_CELL] = cell
    ms[b, slot, MS_FACING] = facing_towards(cfg, cell, s.sh[b, 1 - p, t, SH_CELL], d)
    ms[b, slot, MS_TARGET] = t
    ms[b, slot, MS_MOVED] = 0


@kernel(cache=True)
def move_missile(s, cfg, b, m, mv):
    """Missile ``m`` turns (radius 0) and enters the next hex (13.4).  Off the map it is
    destroyed (the map does not move for it); into a planet or black hole it is destroyed, into
    a worm hole it leaves (17.2.1, 18.1, 19); into its target's hex it detonates on the shield
    facing the hex it came from (13.5).  Other ships and missiles in the hex do nothing."""
    ms = s.ms
    f = heading(ms[b, m, MS_FACING], mv)
    origin = ms[b, m, MS_CELL]
    ms[b, m, MS_FACING] = f
    ms[b, m, MS_MOVED] = 1
    cell = neighbour(cfg, origin, f)
    if cell < 0 or deadly_for_missile(s, b, cell):
        ms[b, m, MS_STATUS] = MI_NONE
        return
    ms[b, m, MS_CELL] = cell
    t = tracked_target(s, b, m)
    if t >= 0:
        e = 1 - ms[b, m, MS_OWNER]
        if s.sh[b, e, t, SH_CELL] == cell:
            detonate(s, cfg, b, m, cfg.arc_of[cell, origin, s.sh[b, e, t, SH_FACING]])


@kernel(cache=True)
def ship_entered(s, cfg, b, p, k, origin):
    """Ship ``k`` moved (or was pulled or pushed) from ``origin`` into a hex: the enemy missiles
    there that track it detonate (13.5 "quando la nave o il missile muovono nell'esagono
    dell'altro"), on the shield facing the way it moved (as the impacted shield of asteroids,
    17.3)."""
    ms = s.ms
    sh = s.sh
    cell = sh[b, p, k, SH_CELL]
    for m in range(ms.shape[1]):
        if not active(sh, b, p, k):
            return
        if ms[b, m, MS_STATUS] != MI_NONE and ms[b, m, MS_OWNER] != p and ms[b, m, MS_CELL] == cell \
                and tracked_target(s, b, m) == k:
            arc = cfg.arc_of[origin, cell, sh[b, p, k, SH_FACING]] if origin != cell else ARC_FRONT
            detonate(s, cfg, b, m, arc)


@kernel(cache=True)
def shift_missiles(s, cfg, b, dq, dr):
    """The moving map (7.5.1) takes the missiles along; one that falls off the map is
    destroyed (13.4 "sono distrutti se escono dalla mappa")."""
    ms = s.ms
    rows = cfg.k[K_ROWS]
    cols = cfg.k[K_COLS]
    for m in range(ms.shape[1]):
        if ms[b, m, MS_STATUS] != MI_NONE:
            q, r = to_axial(ms[b, m, MS_CELL], cols)
            cell = from_axial(q + dq, r + dr, rows, cols)
            if cell < 0:
                ms[b, m, MS_STATUS] = MI_NONE
            else:
                ms[b, m, MS_CELL] = cell


@kernel(cache=True)
def new_missile_impulse(s, b):
    """Every missile moves again in the next impulse (13.4)."""
    ms = s.ms
    for m in range(ms.shape[1]):
        ms[b, m, MS_MOVED] = 0


@kernel(cache=True)
def apply_missile_action(s, cfg, b, p, st, a):
    """Apply ``a`` if it is a section 13 action (missile moves, shots at missiles, retargeting,
    a missile group's launch); returns False otherwise."""
    k_ = cfg.k
    g = s.g
    sh = s.sh
    ms = s.ms
    M = ms.shape[1]
    if k_[K_A_MMOVE] <= a < k_[K_A_MTARGET]:
        i = a - k_[K_A_MMOVE]
        move_missile(s, cfg, b, i // N_MISSILE_MOVES, i % N_MISSILE_MOVES)
        return True
    if k_[K_A_MTARGET] <= a < k_[K_A_RETARGET]:
        # 13.6 one weapon of the group at an enemy missile: its damage on the weapon's table
        m = a - k_[K_A_MTARGET]
        k = g[b, G_SHIP]
        w = cfg.grp[sh[b, p, k, SH_CLASS], g[b, G_GROUP], GR_WEAPON]
        g[b, G_WLEFT] -= 1
        hit_missile(s, b, m, roll_weapon_damage(s, cfg, b, w, sh[b, p, k, SH_CELL], ms[b, m, MS_CELL]))
        return True
    if k_[K_A_LAUNCH] <= a < k_[K_A_DONE]:
        # 13.2 the player places the missile being launched; the group's next weapon follows
        place_missile(s, cfg, b, p, g[b, G_SHIP], g[b, G_LAUNCH_TARGET], a - k_[K_A_LAUNCH])
        g[b, G_STAGE] = ST_FIRE_TARGET
        return True
    if k_[K_A_RETARGET] <= a < k_[K_A_LAUNCH]:
        # 13.7 the ship spends its AP (from the battery if the chart gives none, 10.1.2)
        i = a - k_[K_A_RETARGET]
        k = i // M
        if ap_source(s, cfg, b, p, k) == 2:
            sh[b, p, k, SH_BATTERY] = 0
        sh[b, p, k, SH_AP_SPENT] = 1
        g[b, G_SHIP] = k
        g[b, G_MISSILE] = i % M
        g[b, G_STAGE] = ST_RETARGET
        return True
    if k_[K_A_TARGET] <= a < k_[K_A_SPEED]:
        t = a - k_[K_A_TARGET]
        if st == ST_RETARGET:
            # 13.7 the new target; already in the missile's hex: it detonates at once on the
            # shield a die per shield picks, ties rolled again
            m = g[b, G_MISSILE]
            ms[b, m, MS_TARGET] = t
            g[b, G_STAGE] = ST_AP
            if sh[b, 1 - p, t, SH_CELL] == ms[b, m, MS_CELL]:
                detonate(s, cfg, b, m, random_arc(s, b))
            return True
        k = g[b, G_SHIP]
        gi = g[b, G_GROUP]
        if cfg.grp[sh[b, p, k, SH_CLASS], gi, GR_WEAPON] == W_MISSILE:
            g[b, G_WLEFT] -= 1
            launch_missile(s, cfg, b, p, k, gi, t)         # 13.2
            return True
    return False
